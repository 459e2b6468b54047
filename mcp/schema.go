package mcp

import "encoding/json"

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
    "item_id": {"type": "string", "description": "The item's id: its path below .ai/<kind>s/ without the extension, e.g. \"rye/core/create_directive\"."},
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
    "scope": {"type": "string", "description": "A kind with an optional namespace: \"directive\", \"tool.rye.core.*\", \"knowledge\", or \"all\"."},
    "query": {"type": "string", "description": "Words to find in names, titles, descriptions, categories and bodies; a word ending in * matches as a prefix; \"*\" lists everything in scope."},
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
