// ---
// version: "1.0.0"
// tool_type: node
const x = 1;
