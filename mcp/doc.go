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
// What it serves is only what a signature covers: a directive's body or a
// knowledge entry's front matter that a legacy format leaves out is not
// served by execute, load withholds any file with uncovered text, and
// search shows no words of an item but those of the bytes that verified.
//
// Which project a call may name is the user's choice, never the agent's:
// pinned (Options.Pin), the server loads its pin resolved at start, never
// the path a call gives; unpinned, it serves only folders the user owns
// (for root too), within Options.Roots when given, since it trusts the
// keys of the project a call names. It writes only to that project unless
// the user allowed the user space (Options.AllowUserSpace), which every
// project uses.
//
// The server never writes to its stream anything but protocol: tools run
// with their output captured (executor/prim), a response is cut to fit
// MaxResponse as encoded, and warnings go to Options.Log. Its transport
// (Transport) answers a malformed line with a JSON-RPC error and keeps
// serving.
package mcp
