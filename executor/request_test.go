package executor

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ryekit/rye/config"
	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/item/syntax"
	"github.com/ryekit/rye/params"
	"github.com/ryekit/rye/space"
	"github.com/ryekit/rye/verify"
)

// Execute is the pipeline of rye execute and of the MCP server: the
// failures carry what a caller needs to call again.
func TestExecuteRequest(t *testing.T) {
	needBash(t)
	f := newFixture(t)
	f.write("project", "tools/t/hello.sh", shellTool("t", shellRuntimeID, "#   required: [count]\n"), f.key)
	f.write("project", "directives/t/greet.md", "# Greet\n\n```xml\n<directive name=\"greet\" version=\"1.0.0\">\n  <metadata>\n    <description>d</description>\n    <category>t</category>\n  </metadata>\n  <inputs>\n    <input name=\"who\" type=\"string\" required=\"true\">Who</input>\n    <input name=\"style\" type=\"string\" default=\"plain\">How</input>\n  </inputs>\n</directive>\n```\n\nGreet {input:who}.\n", f.key)
	x := f.executor()
	ctx := context.Background()

	// Parameters as JSON values, checked against the verified schema.
	r, err := x.Execute(ctx, &Request{Kind: item.Tool, ID: "t/hello", Params: map[string]any{"count": int64(3)}})
	if err != nil || !r.Succeeded() || !f.marker() {
		t.Fatalf("run: %v %+v", err, r)
	}
	// A dry run prepares and runs nothing.
	os.Remove(f.project + "/ran.marker")
	r, err = x.Execute(ctx, &Request{Kind: item.Tool, ID: "t/hello", Params: map[string]any{"count": int64(3)}, DryRun: true})
	if err != nil || !r.Succeeded() || !r.DryRun || f.marker() {
		t.Fatalf("dry run: %v %+v (marker %v)", err, r, f.marker())
	}
	// Wrong parameters: a params.Error, the chain, and the declared ones.
	r, err = x.Execute(ctx, &Request{Kind: item.Tool, ID: "t/hello", Params: map[string]any{"count": "many"}})
	var pe *params.Error
	if !errors.As(err, &pe) || r.Succeeded() || len(r.Chain) != 3 || f.marker() {
		t.Fatalf("bad parameters: %v %+v", err, r)
	}
	if got := declaredSummary(r.DeclaredInputs); got != "who string default=World; count integer required" {
		t.Errorf("declared parameters: %s", got)
	}
	// A directive's missing input: an InputError with the declared inputs.
	r, err = x.Execute(ctx, &Request{Kind: item.Directive, ID: "t/greet", Params: map[string]any{}})
	var ie *InputError
	if !errors.As(err, &ie) || r.Status != "error" || r.Type != "directive" {
		t.Fatalf("missing input: %v %+v", err, r)
	}
	if got := declaredSummary(r.DeclaredInputs); got != "who string required; style string default=plain" {
		t.Errorf("declared inputs: %s", got)
	}
	r, err = x.Execute(ctx, &Request{Kind: item.Directive, ID: "t/greet", Params: map[string]any{"who": "Ada"}})
	if err != nil || !strings.Contains(r.Data.(map[string]any)["instructions"].(string), "Greet Ada.") {
		t.Errorf("directive: %v %+v", err, r)
	}
	// A tool that is nowhere: the error is resolution's, the chain empty.
	r, err = x.Execute(ctx, &Request{Kind: item.Tool, ID: "t/none"})
	var nf *space.NotFoundError
	if !errors.As(err, &nf) || len(r.Chain) != 0 || r.Status != "error" || r.Error != `tool "t/none" not found (searched project, user, system)` {
		t.Errorf("unknown tool: %v %+v", err, r)
	}
	// A tool that does not verify: a VerifyError, and the partial chain
	// ends with its verdict.
	f.write("project", "tools/t/hello.sh", shellTool("t", shellRuntimeID, "#   required: [count]\n"), nil)
	r, err = x.Execute(ctx, &Request{Kind: item.Tool, ID: "t/hello", Params: map[string]any{"count": int64(3)}})
	var ve *VerifyError
	if !errors.As(err, &ve) || len(r.Chain) != 1 || r.Chain[0].Verdict != string(verify.Unsigned) || f.marker() {
		t.Errorf("unsigned tool: %v %+v", err, r)
	}
}

// The command line reads --dry-run and --timeout among the tool's flags,
// inside ToolParams: Execute reads them afterwards.
func TestExecuteReadsRunOptionsAfterToolParams(t *testing.T) {
	needBash(t)
	f := newFixture(t)
	f.write("project", "tools/t/slow.sh", "#!/usr/bin/env bash\n# ---\n# version: \"1.0.0\"\n# tool_type: shell\n# executor_id: "+shellRuntimeID+"\n# category: t\n# description: sleeps\n# ---\nsleep 30\n", f.key)
	x := f.executor()
	req := &Request{Kind: item.Tool, ID: "t/slow"}
	req.ToolParams = func(*syntax.Node) (map[string]any, error) {
		req.Timeout = 200 * time.Millisecond
		return nil, nil
	}
	start := time.Now()
	r, err := x.Execute(context.Background(), req)
	if err != nil || r.Succeeded() || !strings.Contains(r.Error, "timed out after 200ms") || time.Since(start) > 20*time.Second {
		t.Errorf("timeout set in ToolParams: %v %+v", err, r)
	}
}

func TestNewPutsRunFoldersInTheUserCache(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("HOME", cache)
	f := newFixture(t)
	ts, err := verify.LoadTrustStore(verify.TrustSources(f.ss.All()))
	if err != nil {
		t.Fatal(err)
	}
	x, noCache, err := New(f.ss, ts, verify.Policy{}, nil, "/elsewhere")
	if err != nil || noCache != nil {
		t.Fatal(err, noCache)
	}
	if !strings.HasPrefix(x.TempDir, cache) || x.ProjectPath != f.project || x.ProjectInterpreters || x.Tracked == nil || x.WorkTree == nil {
		t.Errorf("run root %s, project path %s, project interpreters %v", x.TempDir, x.ProjectPath, x.ProjectInterpreters)
	}
	// Only the user's configuration lets a project choose its interpreter.
	project := &config.Settings{Project: &config.Config{Execute: config.Execute{ProjectInterpreters: true}}}
	if x, _, _ := New(f.ss, ts, verify.Policy{}, project, ""); x.ProjectInterpreters {
		t.Error("the project's own configuration allowed project interpreters")
	}
	user := &config.Settings{User: &config.Config{Execute: config.Execute{ProjectInterpreters: true}}}
	if x, _, _ := New(f.ss, ts, verify.Policy{}, user, ""); !x.ProjectInterpreters {
		t.Error("the user's configuration did not allow project interpreters")
	}
	if info, err := os.Stat(x.TempDir); err != nil || info.Mode().Perm() != 0o700 {
		t.Errorf("run root: %v %v", info, err)
	}
}

func declaredSummary(ds []DeclaredInput) string {
	var parts []string
	for _, d := range ds {
		s := d.Name + " " + d.Type
		if d.Required {
			s += " required"
		}
		if d.Default != nil {
			s += " default=" + d.Default.(string)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}
