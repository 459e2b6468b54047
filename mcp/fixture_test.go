package mcp

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ryekit/rye/sign"
	"github.com/ryekit/rye/space"
	"github.com/ryekit/rye/verify"
)

// fixture is a project and a user space whose items are signed by a key
// the project trusts.
type fixture struct {
	t       *testing.T
	project string
	user    string
	key     *sign.Key
}

func testKey(b byte) *sign.Key {
	seed := make([]byte, ed25519.SeedSize)
	for i := range seed {
		seed[i] = b + byte(i)
	}
	return sign.NewKey(ed25519.NewKeyFromSeed(seed))
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	dir := t.TempDir()
	f := &fixture{t: t, project: filepath.Join(dir, "project"), user: filepath.Join(dir, "user"), key: testKey(1)}
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config")) // the cache secret
	k := &verify.TrustedKey{Owner: "test", Public: f.key.Public}
	f.write(f.project, "trusted_keys/"+f.key.Fingerprint+".toml", string(verify.FormatTrustedKey(k)), nil)
	os.MkdirAll(filepath.Join(f.user, ".ai"), 0o755)
	return f
}

// write puts a file at rel below root's .ai/, signed with key unless key
// is nil.
func (f *fixture) write(root, rel, content string, key *sign.Key) string {
	f.t.Helper()
	data := []byte(content)
	if key != nil {
		k, id, ext, err := space.KindAndID(rel)
		if err != nil {
			f.t.Fatal(err)
		}
		if data, err = sign.Sign(key, sign.V2, k, id, ext, data, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)); err != nil {
			f.t.Fatal(err)
		}
	}
	p := filepath.Join(root, ".ai", filepath.FromSlash(rel))
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		f.t.Fatal(err)
	}
	return p
}

// getenv is the fixture's environment: its user space, nothing else.
func (f *fixture) getenv(k string) string {
	if k == "USER_SPACE" {
		return f.user
	}
	return ""
}

// connect starts a server with o (Getenv defaults to the fixture's) on
// an in-memory transport and returns a client session on it.
func (f *fixture) connect(o Options) *sdk.ClientSession {
	f.t.Helper()
	if o.Getenv == nil {
		o.Getenv = f.getenv
	}
	st, ct := sdk.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- NewServer(o).Run(ctx, st) }()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() {
		cs.Close()
		cancel()
		<-done
	})
	return cs
}

// call calls a tool and decodes its response from the text content,
// checking that the structured content is the same object and that
// IsError says whether the status is "error".
func call(t *testing.T, cs *sdk.ClientSession, tool string, args map[string]any) map[string]any {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("%s: %d contents", tool, len(res.Content))
	}
	text, ok := res.Content[0].(*sdk.TextContent)
	if !ok {
		t.Fatalf("%s: content %T", tool, res.Content[0])
	}
	var got, structured map[string]any
	if err := json.Unmarshal([]byte(text.Text), &got); err != nil {
		t.Fatalf("%s: text is not JSON: %v\n%s", tool, err, text.Text)
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &structured); err != nil {
		t.Fatalf("%s: structured content: %v", tool, err)
	}
	if a, b := mustJSON(got), mustJSON(structured); a != b {
		t.Errorf("%s: text and structured content differ:\n%s\n%s", tool, a, b)
	}
	if res.IsError != (got["status"] == "error") {
		t.Errorf("%s: isError %v with status %v", tool, res.IsError, got["status"])
	}
	if _, ok := got["metadata"].(map[string]any)["duration_ms"]; !ok {
		t.Errorf("%s: no metadata.duration_ms: %s", tool, text.Text)
	}
	return got
}

// sameJSON reports whether v is the JSON value want.
func sameJSON(v any, want string) bool {
	var w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		panic(err)
	}
	return mustJSON(v) == mustJSON(w)
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func needBash(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
}

// shellTool is a shell tool of category p; body runs in the project.
func shellTool(body, schema string) string {
	return "#!/usr/bin/env bash\n# ---\n# version: \"1.0.0\"\n# tool_type: shell\n# executor_id: rye/core/runtimes/shell_runtime\n# category: p\n# description: a test tool\n" + schema + "# ---\n" + body
}

// markerTool writes ran.marker into the project (the proof that it ran)
// and prints its parameter who.
var markerTool = shellTool("touch ran.marker\nprintf '{\"success\": true, \"who\": \"%s\"}\\n' \"$RYE_PARAM_WHO\"\n",
	"# config_schema:\n#   type: object\n#   properties:\n#     who: {type: string, description: Whom to greet}\n#   required: [who]\n")

const greetDirective = "# Greet\n\n```xml\n<directive name=\"greet\" version=\"1.0.0\">\n  <metadata>\n    <description>Greet someone</description>\n    <category>p</category>\n  </metadata>\n  <inputs>\n    <input name=\"who\" type=\"string\" required=\"true\">Who</input>\n    <input name=\"style\" type=\"string\" default=\"plain\">How</input>\n  </inputs>\n</directive>\n```\n\nGreet {input:who} in a {input:style} way.\n"

const styleKnowledge = "```yaml\nid: style\ntitle: House style\nentry_type: guide\ncategory: p\nversion: \"1.0.0\"\ndescription: How lighthouse keepers greet\n```\n\nBe brief.\n"

func (f *fixture) marker() bool {
	_, err := os.Stat(filepath.Join(f.project, "ran.marker"))
	return err == nil
}
