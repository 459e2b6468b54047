package item

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ryekit/rye/item/syntax"
)

func readSample(t *testing.T, k Kind, name string) (*Metadata, error) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", string(k), name))
	if err != nil {
		t.Fatal(err)
	}
	return ReadMetadata(k, name, src)
}

func mustSample(t *testing.T, k Kind, name string) *Metadata {
	t.Helper()
	md, err := readSample(t, k, name)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return md
}

func plainJSON(t *testing.T, n *syntax.Node) string {
	t.Helper()
	b, err := json.Marshal(n)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// wantPos asserts that a node (or field key) sits at line:col.
func wantPos(t *testing.T, what string, got syntax.Pos, line, col int) {
	t.Helper()
	if got.Line != line || got.Col != col {
		t.Errorf("%s at %s, want %d:%d", what, got, line, col)
	}
}

func wantErrAt(t *testing.T, err error, line, col int, contains string) {
	t.Helper()
	var e *syntax.Error
	if !errors.As(err, &e) {
		t.Fatalf("got %v, want *Error", err)
	}
	if e.Pos.Line != line || e.Pos.Col != col || !strings.Contains(e.Msg, contains) {
		t.Errorf("got %s %q, want %d:%d containing %q", e.Pos, e.Msg, line, col, contains)
	}
}

func TestDirectiveSigned(t *testing.T) {
	md := mustSample(t, Directive, "signed.md")
	if md.Form != FormDirectiveXML {
		t.Errorf("form %s", md.Form)
	}
	want := `{"name":"greet","version":"1.0.0","description":"Greet a person","category":"demo","author":"vectors","inputs":[{"name":"who","type":"string","required":true,"description":"Who to greet"}]}`
	if got := plainJSON(t, md.Fields); got != want {
		t.Errorf("fields\n got %s\nwant %s", got, want)
	}
	wantPos(t, "name", md.Get("name").Pos, 7, 18)
	wantPos(t, "version", md.Get("version").Pos, 7, 34)
	wantPos(t, "category", md.Get("category").Pos, 10, 15)
	wantPos(t, "input name", md.Get("inputs").Items[0].Get("name").Pos, 14, 18)
	if !strings.HasPrefix(md.Body, "\n<process>") || md.BodyPos.Line != 18 {
		t.Errorf("body at %s: %q", md.BodyPos, md.Body)
	}
	if !strings.HasPrefix(md.Preamble, "# Greet") || !strings.HasPrefix(md.Content, "<directive name=\"greet\"") {
		t.Errorf("preamble %q content %q", md.Preamble, md.Content)
	}
}

func TestDirectiveFull(t *testing.T) {
	md := mustSample(t, Directive, "full.md")
	get := func(k string) string { return plainJSON(t, md.Get(k)) }
	checks := map[string]string{
		"name":        `"deploy_app"`,
		"model":       `{"tier":"fast","fallback":"general"}`,
		"limits":      `{"turns":6,"tokens":4096,"spend":0.5,"depth":"x"}`,
		"permissions": `["rye.execute.tool.rye.file-system.*","rye.execute.tool.ops.*","rye.search.*"]`,
		"inputs":      `[{"name":"env","type":"string","required":true,"description":"Target environment"},{"name":"dry","type":"boolean","default":"false","required":false}]`,
		"outputs":     `[{"name":"url","type":"string","required":false,"description":"Where it runs"}]`,
		"actions":     `[{"primary":"execute","item_type":"tool","item_id":"ops/deploy","params":{"env":"{input:env}","note":"hello"}},{"primary":"load","item_type":"knowledge","item_id":"ops/runbook"}]`,
		"hooks":       `[{"event":"on_error","when":"always","content":"Report the failure.","actions":[{"primary":"execute","item_type":"tool","item_id":"ops/notify"}]}]`,
	}
	for k, want := range checks {
		if got := get(k); got != want {
			t.Errorf("%s\n got %s\nwant %s", k, got, want)
		}
	}
	if len(md.Problems) != 1 || !strings.Contains(md.Problems[0].Msg, "unknown permission <fetch>") {
		t.Fatalf("problems: %v", md.Problems)
	}
	wantPos(t, "<fetch>", md.Problems[0].Pos, 22, 7)
	wantPos(t, "limits.spend", md.Get("limits").Get("spend").Pos, 18, 44)
	if md.Get("limits").Get("spend").Raw != "0.50" {
		t.Errorf("raw %q", md.Get("limits").Get("spend").Raw)
	}
	if !strings.Contains(md.Body, "Deploy to {input:env}.") {
		t.Errorf("body %q", md.Body)
	}
}

func TestDirectiveLineEndingsAndBOM(t *testing.T) {
	md := mustSample(t, Directive, "crlf.md")
	if md.Str("name") != "crlf" || md.Str("description") != "CRLF" || md.Get("category").Str != "" {
		t.Errorf("crlf: %s", plainJSON(t, md.Fields))
	}
	wantPos(t, "crlf name", md.Get("name").Pos, 3, 18)
	md = mustSample(t, Directive, "bom.md")
	if md.Str("name") != "bom" {
		t.Errorf("bom: %s", plainJSON(t, md.Fields))
	}
	wantPos(t, "bom name", md.Get("name").Pos, 2, 18)
}

func TestDirectiveErrors(t *testing.T) {
	_, err := readSample(t, Directive, "badxml.md")
	wantErrAt(t, err, 7, 3, "invalid XML")
	_, err = readSample(t, Directive, "unclosed.md")
	wantErrAt(t, err, 1, 1, "never closed")
	_, err = readSample(t, Directive, "nofence.md")
	wantErrAt(t, err, 1, 1, "no ```xml block")
	_, err = ReadMetadata(Directive, "empty.md", nil)
	wantErrAt(t, err, 1, 1, "no ```xml block")
	_, err = ReadMetadata(Directive, "x.md", []byte("```xml\n<other/>\n```\n"))
	wantErrAt(t, err, 2, 1, "must hold a <directive>")
	_, err = ReadMetadata(Directive, "x.md", []byte("```xml\n```\n"))
	wantErrAt(t, err, 2, 1, "empty")
}

func TestKnowledgeForms(t *testing.T) {
	md := mustSample(t, Knowledge, "fence.md")
	if md.Form != formYAMLFence || plainJSON(t, md.Fields) != `{"id":"note","title":"A note","entry_type":"reference","category":"demo","version":"1.0.0"}` {
		t.Errorf("fence: %s %s", md.Form, plainJSON(t, md.Fields))
	}
	wantPos(t, "fence id", md.Get("id").Pos, 3, 5)
	wantPos(t, "fence version key", md.Fields.Field("version").KeyPos, 7, 1)
	if md.Body != "\n# A note\n\nSome text.\n" || md.BodyPos.Line != 9 {
		t.Errorf("body %s %q", md.BodyPos, md.Body)
	}

	md = mustSample(t, Knowledge, "frontmatter.md")
	if md.Form != formFrontMatter || md.Str("id") != "note2" || md.Body != "\nBody text\n" {
		t.Errorf("front matter: %s %s %q", md.Form, plainJSON(t, md.Fields), md.Body)
	}
	wantPos(t, "front matter title", md.Get("title").Pos, 4, 8)

	md = mustSample(t, Knowledge, "whole.yaml")
	v := md.Get("version")
	if md.Form != formYAMLFile || v.Kind != syntax.FloatNode || v.Raw != "1.0" || md.Str("created_at") != "2026-02-18T00:00:00Z" {
		t.Errorf("whole: %s %s", md.Form, plainJSON(t, md.Fields))
	}
	wantPos(t, "version", v.Pos, 5, 10)
	if v.End.Col != 13 {
		t.Errorf("version end %s", v.End)
	}

	md = mustSample(t, Knowledge, "nested.md")
	if md.Str("id") != "nested" || !strings.Contains(md.Body, "also_wrong") {
		t.Errorf("nested: %s", plainJSON(t, md.Fields))
	}
}

func TestKnowledgeErrors(t *testing.T) {
	_, err := readSample(t, Knowledge, "dupkey.md")
	wantErrAt(t, err, 4, 1, "duplicate key")
	_, err = readSample(t, Knowledge, "unclosed_frontmatter.md")
	wantErrAt(t, err, 1, 1, "never closed")
	_, err = ReadMetadata(Knowledge, "x.md", []byte("# no metadata\n"))
	wantErrAt(t, err, 1, 1, "no metadata")
	_, err = ReadMetadata(Knowledge, "x.md", []byte("---\nid: [unclosed\n---\n"))
	wantErrAt(t, err, 2, 1, "invalid YAML")
	_, err = ReadMetadata(Knowledge, "x.yaml", []byte("- a list\n"))
	wantErrAt(t, err, 1, 1, "must be a YAML mapping")
	_, err = ReadMetadata(Knowledge, "x.yaml", []byte("a: 1\n---\nb: 2\n"))
	wantErrAt(t, err, 2, 1, "more than one YAML document")
	md, err := ReadMetadata(Knowledge, "x.yaml", nil)
	if err != nil || len(md.Fields.Fields) != 0 {
		t.Errorf("empty yaml: %v %v", md, err)
	}
}

func TestToolForms(t *testing.T) {
	md := mustSample(t, Tool, "runtime.yaml")
	if md.Str("executor_id") != "rye/core/primitives/subprocess" || plainJSON(t, md.Get("config")) != `{"command":"python3","args":["{tool_path}"]}` {
		t.Errorf("yaml: %s", plainJSON(t, md.Fields))
	}
	wantPos(t, "args[0]", md.Get("config").Get("args").Items[0].Pos, 9, 10)

	md = mustSample(t, Tool, "count.sh")
	if md.Form != FormCommentHeader || md.Str("tool_type") != "shell" || md.Str("version") != "1.0.0" {
		t.Errorf("sh: %s", plainJSON(t, md.Fields))
	}
	wantPos(t, "sh version", md.Get("version").Pos, 4, 12)
	if !strings.HasPrefix(md.Body, "wc -l") {
		t.Errorf("sh body %q", md.Body)
	}

	md = mustSample(t, Tool, "echo.js")
	if md.Str("executor_id") != "rye/core/runtimes/node_runtime" {
		t.Errorf("js: %s", plainJSON(t, md.Fields))
	}
	wantPos(t, "js category", md.Get("category").Pos, 6, 14)

	md = mustSample(t, Tool, "deploy.toml")
	want := `{"version":"1.0.0","tool_type":"toml","executor_id":"rye/core/runtimes/shell_runtime","category":"ops","description":"A TOML tool","config":{"command":"bash","args":["-c","echo {msg}"],"timeout":30},"config_schema":{"properties":{"msg":{"type":"string"}}}}`
	if got := plainJSON(t, md.Fields); got != want {
		t.Errorf("toml\n got %s\nwant %s", got, want)
	}
	wantPos(t, "toml category", md.Get("category").Pos, 5, 12)
	wantPos(t, "toml config.command key", md.Get("config").Field("command").KeyPos, 9, 1)
	wantPos(t, "toml config.args", md.Get("config").Get("args").Pos, 10, 8)
}

func TestToolErrors(t *testing.T) {
	_, err := readSample(t, Tool, "unclosed.ts")
	wantErrAt(t, err, 1, 1, "never closed")
	_, err = readSample(t, Tool, "noheader.sh")
	wantErrAt(t, err, 2, 1, "no metadata header")
	_, err = ReadMetadata(Tool, "x.toml", []byte("a = 1\nb = \n"))
	wantErrAt(t, err, 2, 5, "invalid TOML")
	_, err = ReadMetadata(Tool, "x.json", []byte("{}"))
	if err == nil || !strings.Contains(err.Error(), "not a tool file form") {
		t.Errorf("json tool: %v", err)
	}
}

func TestPlainRoundTrip(t *testing.T) {
	md := mustSample(t, Tool, "runtime.yaml")
	got := md.Fields.Plain()
	var want any
	if err := json.Unmarshal([]byte(plainJSON(t, md.Fields)), &want); err != nil {
		t.Fatal(err)
	}
	// JSON numbers come back as float64; compare through JSON again.
	a, _ := json.Marshal(got)
	b, _ := json.Marshal(want)
	if !reflect.DeepEqual(a, b) {
		t.Errorf("Plain %s != JSON %s", a, b)
	}
}

func TestDirectiveTextEnds(t *testing.T) {
	src := []byte("```xml\n<directive name=\"a\" version=\"1.0.0\">\n<metadata><category>  ops &amp; more  </category><author>x</author></metadata>\n</directive>\n```\n")
	md, err := ReadMetadata(Directive, "a.md", src)
	if err != nil {
		t.Fatal(err)
	}
	c := md.Get("category")
	if c.Str != "ops & more" || string(src[c.Pos.Offset:c.End.Offset]) != "ops &amp; more" {
		t.Errorf("category %q spans %q", c.Str, src[c.Pos.Offset:c.End.Offset])
	}
	n := md.Get("name")
	if string(src[n.Pos.Offset:n.End.Offset]) != "a" {
		t.Errorf("name spans %q", src[n.Pos.Offset:n.End.Offset])
	}
}

func TestYAMLMergeAndManyKeys(t *testing.T) {
	md, err := ReadMetadata(Tool, "m.yaml", []byte("base: &b {a: 1, b: 2}\nx:\n  <<: *b\n  b: 3\n  c: 4\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := plainJSON(t, md.Get("x")); got != `{"a":1,"b":3,"c":4}` {
		t.Errorf("merge: %s", got)
	}
	var b strings.Builder
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&b, "k%d: %d\n", i, i)
	}
	md, err = ReadMetadata(Tool, "big.yaml", []byte(b.String()))
	if err != nil || len(md.Fields.Fields) != 20000 || md.Get("k19999").Int != 19999 {
		t.Errorf("20,000 keys: %v", err)
	}
}

func TestCodeBlocks(t *testing.T) {
	src := []byte("a\n```yaml\nx\n```\nb\n````md\n```\ny\n```\n````\n~~~\nopen")
	got := CodeBlocks(src)
	want := [][2]int{{2, 16}, {18, 40}, {40, 48}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("block %d: got %v (%q), want %v", i, got[i], src[got[i][0]:got[i][1]], want[i])
		}
	}
}
