// ---
// version: "1.0.0"
// tool_type: node
// executor_id: rye/core/runtimes/node_runtime
// category: text
// description: Count the words of a file, or of a page fetched over HTTPS
// config_schema:
//   type: object
//   properties:
//     path: {type: string}
//     url: {type: string}
// ---
const fs = require("fs");
const { execFileSync } = require("child_process");

async function main(params) {
  let text;
  if (params.url) {
    const resp = await fetch(params.url); // the page is data: counted, never run
    text = await resp.text();
  } else {
    text = fs.readFileSync(params.path, "utf8");
  }
  const words = text.split(/\s+/).filter(Boolean).length;
  const branch = execFileSync("git", ["rev-parse", "--abbrev-ref", "HEAD"]).toString().trim();
  return { success: true, words, branch };
}

main(JSON.parse(process.argv[process.argv.indexOf("--params") + 1]))
  .then((r) => console.log(JSON.stringify(r)))
  .catch((e) => console.log(JSON.stringify({ success: false, error: String(e) })));
