package mcp

import (
	"encoding/json"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The tools' names, descriptions and input schemas are the reference's
// (RYE OS), so that an agent set up for it works unchanged. Every schema
// refuses properties it does not declare: a misspelt "dry_run" must not
// quietly run a tool.

const projectPathSchema = `"project_path": {"type": "string", "description": "Absolute path to the project root (the folder that holds .ai/)."}`

const itemTypeSchema = `"item_type": {"type": "string", "enum": ["directive", "tool", "knowledge"], "description": "The kind of item."}`

var executeSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    ` + itemTypeSchema + `,
    "item_id": {"type": "string", "description": "The item's id, as search returns it: the file's path below .ai/<kind folder>/ without the extension (.ai/tools/a/b.py is a/b)."},
    ` + projectPathSchema + `,
    "parameters": {"type": "object", "description": "A tool's parameters, or a directive's inputs."},
    "dry_run": {"type": "boolean", "default": false, "description": "Verify and validate without running anything."}
  },
  "required": ["item_type", "item_id", "project_path"],
  "additionalProperties": false
}`)

var searchSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "scope": {"type": "string", "description": "A kind with an optional namespace, written as ids are: \"directive\", \"tool/rye/core/*\", \"my-project/*\" (every kind), \"knowledge\", or \"all\"; the dotted \"tool.rye.core.*\" works too."},
    "query": {"type": "string", "description": "Words to find in names, titles, descriptions, categories and bodies; a word also matches words of the same stem (greeting: greet) and, from three letters, words it starts; a word ending in * matches every word it starts; \"*\" lists everything in scope."},
    ` + projectPathSchema + `,
    "space": {"type": "string", "enum": ["project", "user", "system", "all"], "default": "all", "description": "The space to search."},
    "limit": {"type": "integer", "minimum": 0, "default": 10, "description": "The most results to return (0: all)."}
  },
  "required": ["scope", "query", "project_path"],
  "additionalProperties": false
}`)

var loadSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    ` + itemTypeSchema + `,
    "item_id": {"type": "string", "description": "The item's id."},
    ` + projectPathSchema + `,
    "source": {"type": "string", "enum": ["project", "user", "system"], "description": "The space to load from (default: project, then user, then system)."},
    "destination": {"type": "string", "enum": ["project", "user"], "description": "Copy the item into this space instead of returning it."}
  },
  "required": ["item_type", "item_id", "project_path"],
  "additionalProperties": false
}`)

var signSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    ` + itemTypeSchema + `,
    "item_id": {"type": "string", "description": "An id, or a glob: * and ? within a segment, ** across segments (\"my-project/**\")."},
    ` + projectPathSchema + `,
    "source": {"type": "string", "enum": ["project", "user"], "default": "project", "description": "The space whose items are signed."},
    "parameters": {"type": "object", "description": "Accepted and ignored, as the reference's sign tool accepts and ignores it."}
  },
  "required": ["item_type", "item_id", "project_path"],
  "additionalProperties": false
}`)

// forPin is schema as a server pinned to the project pin offers it:
// project_path is optional there (the pinned project when absent), and its
// description says so.
func forPin(schema json.RawMessage, pin string) json.RawMessage {
	if pin == "" {
		return schema
	}
	var m map[string]any
	if err := json.Unmarshal(schema, &m); err != nil {
		panic(err) // the schemas above are constants
	}
	var required []any
	for _, r := range m["required"].([]any) {
		if r != "project_path" {
			required = append(required, r)
		}
	}
	m["required"] = required
	m["properties"].(map[string]any)["project_path"] = map[string]any{"type": "string",
		"description": "Optional: this server serves only the project " + pin + ", which is used when project_path is absent; any other path is refused."}
	out, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return out
}

// boolPtr is a pointer to b, for the annotations that default to true.
func boolPtr(b bool) *bool { return &b }

// Each tool's annotations, so that a client can tell the safe tools from
// the others: search reads. load reads, and with a destination copies a
// verified item to a new file (never over one), so it is not read-only
// but never destructive. execute runs a project's code, which may do
// anything, reach the network included. sign rewrites files, again to
// the same bytes when nothing changed.
var (
	searchAnnotations  = &sdk.ToolAnnotations{Title: "Search RYE items", ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: boolPtr(false)}
	loadAnnotations    = &sdk.ToolAnnotations{Title: "Load a verified item", DestructiveHint: boolPtr(false), IdempotentHint: true, OpenWorldHint: boolPtr(false)}
	executeAnnotations = &sdk.ToolAnnotations{Title: "Execute a verified item", DestructiveHint: boolPtr(true), OpenWorldHint: boolPtr(true)}
	signAnnotations    = &sdk.ToolAnnotations{Title: "Sign items with the user's key", DestructiveHint: boolPtr(true), IdempotentHint: true, OpenWorldHint: boolPtr(false)}
)

const (
	executeDescription = "Execute a tool, or return a directive or knowledge entry, after verifying it. " +
		"A tool runs only when every element of its chain (the tool, its runtimes, the primitive, its dependencies) verifies against the project's trust store; " +
		"a directive is returned with its inputs validated and interpolated, for you to follow; a knowledge entry is returned as context. " +
		"dry_run verifies and validates without running anything."
	searchDescription = "Search directives, tools and knowledge by scope and query (BM25 over names, titles, descriptions, categories and bodies). " +
		"Each result carries its verdict; one that does not verify is matched on its id and path only and has no name, title, description or category."
	loadDescription = "Load an item's verified content and metadata, or copy it into the project or user space (destination). " +
		"An item that does not verify is refused, with its verdict and the fix."
	signDescription = "Sign items with the user's key (an id or a glob). " +
		"Only when the user started the server with signing allowed (rye mcp --allow-sign)."
)
