// Package mcp is rye's MCP server (rye mcp): the four tools of RYE OS,
// search, load, execute and sign, with the reference's names and input
// schemas, over the official Go SDK.
//
// Each tool runs the very request function its command-line verb runs
// (search.Run, verify.Load, executor.Execute, sign.Run): there is no
// second pipeline to drift. That makes the server verified by
// construction: execute goes through Prepare, so nothing runs unless every
// element of its chain verifies, and runs the bytes that verified; load
// withholds the content of an item that does not verify and says why;
// search gives every result its verdict; sign signs only when the user
// gave the server a key at start.
//
// The server never writes to its stream anything but protocol: tools run
// with their output captured (executor/prim), and warnings go to
// Options.Log. Its transport (Transport) answers a malformed line with a
// JSON-RPC error and keeps serving.
package mcp
