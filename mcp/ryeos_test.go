package mcp

import (
	"context"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The sign tool takes parameters and ignores them, as the February
// reference's does (spec 7.6.3); any other undeclared property is still
// refused.
func TestSignIgnoresParameters(t *testing.T) {
	f := newFixture(t)
	f.write(f.project, "knowledge/p/style.md", styleKnowledge, nil)
	cs := f.connect(Options{Key: f.key})
	args := map[string]any{"item_type": "knowledge", "item_id": "p/style", "project_path": f.project, "parameters": map[string]any{"who": "Ada", "n": 3}}
	if got := call(t, cs, "sign", args); got["status"] != "success" || !strings.Contains(mustJSON(got), `"result":"signed"`) {
		t.Errorf("sign with parameters: %s", mustJSON(got))
	}
	delete(args, "parameters")
	args["params"] = map[string]any{}
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "sign", Arguments: args})
	if err == nil && !res.IsError {
		t.Errorf("an undeclared property is accepted: %+v", res)
	}
}
