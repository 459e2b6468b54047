package item

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ryekit/rye/internal/vectors"
)

// ryeosVectors are the cases of spec 7's vectors (cases.json).
type ryeosVectors struct {
	Cases []struct {
		Name        string          `json:"name"`
		Kind        string          `json:"kind"`
		Path        string          `json:"path"`
		File        string          `json:"file"`
		Expect      string          `json:"expect"`
		ID          string          `json:"id"`
		Metadata    map[string]any  `json:"metadata"`
		Frontmatter json.RawMessage `json:"frontmatter"`
		Lint        struct {
			Errors []string `json:"errors"`
			Advice []string `json:"advice"`
		} `json:"lint"`
		ExecutorResolvesTo string `json:"executor_resolves_to"`
	} `json:"cases"`
	IDs []struct {
		Ref     string `json:"ref"`
		Context string `json:"context"`
		Valid   bool   `json:"valid"`
		Reason  string `json:"reason"`
	} `json:"ids"`
}

func loadRyeOSVectors(t *testing.T) (*ryeosVectors, string) {
	t.Helper()
	dir := vectors.RyeOS02Dir()
	data, err := os.ReadFile(filepath.Join(dir, "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var v ryeosVectors
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Cases) != 49 || len(v.IDs) != 21 {
		t.Fatalf("%d cases and %d ids, want 49 and 21", len(v.Cases), len(v.IDs))
	}
	return &v, dir
}

// normal is a value as JSON has it (numbers as float64), for comparing
// with the vectors.
func normal(t *testing.T, v any) any {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// Every file case of spec 7's vectors: whether RyeOS reads the path as an
// item, the id it derives from it, the metadata it extracts, the knowledge
// runtime's front matter, and the parse and metadata refusals (the lint
// codes of the first three steps; lint's tests check the rest).
func TestRyeOSVectors(t *testing.T) {
	v, dir := loadRyeOSVectors(t)
	for _, c := range v.Cases {
		t.Run(c.Name, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join(dir, c.File))
			if err != nil {
				t.Fatal(err)
			}
			rel := strings.TrimPrefix(c.Path, ".ai/")
			k, id, ext, ok := RyeOSItemAt(rel)
			if c.Expect == "not-an-item" {
				if ok {
					t.Fatalf("%s is read as %s %s, but RyeOS reads no item there", c.Path, k, id)
				}
				return
			}
			if !ok {
				t.Fatalf("%s is not read as an item", c.Path)
			}
			if string(k) != c.Kind {
				t.Errorf("kind %s, want %s", k, c.Kind)
			}
			if c.ID != "" && id.Ref(k) != c.ID {
				t.Errorf("id %s, want %s", id.Ref(k), c.ID)
			}
			d := ReadRyeOS(k, id, ext, src)
			var refused []string
			if d.Refusal != nil {
				refused = []string{d.Refusal.Rule}
			}
			var want []string
			for _, e := range c.Lint.Errors {
				if strings.HasPrefix(e, "parse/") || strings.HasPrefix(e, "metadata/") {
					want = append(want, e)
				}
			}
			if !reflect.DeepEqual(refused, want) {
				t.Errorf("refused with %v (%v), want %v", refused, d.Refusal, want)
			}
			got := normal(t, d.Metadata()).(map[string]any)
			for key, w := range c.Metadata {
				if !reflect.DeepEqual(got[key], normal(t, w)) {
					t.Errorf("metadata %s = %#v, want %#v (all: %v)", key, got[key], w, got)
				}
			}
			if k == Knowledge {
				var front any
				if d.Front != nil {
					front = normal(t, d.Front.Plain())
				}
				if c.Frontmatter == nil {
					t.Fatal("a knowledge case without frontmatter")
				}
				var want any
				if err := json.Unmarshal(c.Frontmatter, &want); err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(front, want) {
					t.Errorf("front matter %#v, want %#v", front, want)
				}
			}
			if c.ExecutorResolvesTo != "" {
				to, err := ResolveExecutor(Tool, d.Value.Get("executor_id").String())
				if err != nil || to != c.ExecutorResolvesTo {
					t.Errorf("executor resolves to %q (%v), want %q", to, err, c.ExecutorResolvesTo)
				}
			}
		})
	}
}

// The reference-syntax cases of spec 7.4.
func TestRyeOSRefVectors(t *testing.T) {
	v, _ := loadRyeOSVectors(t)
	for _, c := range v.IDs {
		var err error
		switch c.Context {
		case "tool executor_id":
			_, err = ResolveExecutor(Tool, c.Ref)
		case "streaming_tool executor_id":
			_, err = ResolveExecutor(StreamingTool, c.Ref)
		case "sign target":
			_, err = parseSignTarget(c.Ref)
		case "any ref":
			_, err = ParseRef(c.Ref)
		default:
			t.Fatalf("unknown context %q", c.Context)
		}
		if (err == nil) != c.Valid {
			t.Errorf("%s %q: error %v, want valid=%v (%s)", c.Context, c.Ref, err, c.Valid, c.Reason)
		}
	}
}

// rye's own knowledge reader reads a page signed by RyeOS's Rust engine
// as RyeOS's knowledge runtime does: blank lines after the signature line
// do not hide the front matter, and a page without front matter takes no
// metadata from a ```yaml example in its body (interop issue 1).
func TestRustSignedKnowledgeFrontMatter(t *testing.T) {
	dir := filepath.Join(vectors.RyeOS02Dir(), "files", "blank")
	for _, c := range []struct {
		file     string
		form     Form
		category string
	}{
		{"kn-blank-after-sig/note.md", formFrontMatter, "demo"},
		{"kn-two-blank-lines/note.md", formFrontMatter, "demo"},
		{"kn-fenced-header/fenced.md", formYAMLFence, "demo"},
		{"kn-no-frontmatter/idea.md", formMarkdown, ""},
		{"kn-blank-then-prose/idea.md", formMarkdown, ""},
	} {
		src, err := os.ReadFile(filepath.Join(dir, c.file))
		if err != nil {
			t.Fatal(err)
		}
		md, err := ReadMetadata(Knowledge, c.file, src)
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if md.Form != c.form || md.Str("category") != c.category || md.Get("id") != nil {
			t.Errorf("%s: form %s, category %q, id %v; want %s, %q and no id", c.file, md.Form, md.Str("category"), md.Get("id"), c.form, c.category)
		}
		if c.form == formMarkdown && !strings.Contains(md.Body, "```yaml") {
			t.Errorf("%s: the example is not in the body: %q", c.file, md.Body)
		}
	}
}

// The forms only RyeOS 0.2+ writes (spec 6.4), unsigned or under any
// signature, and rye's own forms, which are not.
func TestRyeOSForm(t *testing.T) {
	for _, c := range []struct {
		kind Kind
		ext  string
		src  string
		want bool
	}{
		{Directive, ".md", "---\ndescription: x\n---\nbody\n", true},
		{Directive, ".md", "<!-- rye:signed:v2:x -->\n---\nd: x\n---\n", true},
		{Directive, ".md", "# Greet\n\n```xml\n<directive name=\"g\"/>\n```\n", false},
		{Directive, ".md", "---\nname: g\n---\n```xml\n<directive/>\n```\n", false},
		{Tool, ".py", "#!/usr/bin/env python3\n\n# ryeos-tool:\n#   category: demo\n", true},
		{Tool, ".py", "# rye:signed:x\n#  ryeos-tool:\n#   category: demo\n", true},
		{Tool, ".py", "__version__ = \"1.0.0\"\n# ryeos-tool:\n", false},
		{Tool, ".yaml", "executor_id: \"@subprocess\"\ncategory: demo\n", true},
		{Tool, ".yaml", "required_caps: []\n", true},
		{Tool, ".yaml", "config:\n  command: \"bin:demo\"\n", true},
		{Tool, ".yaml", "executor_id: rye/core/primitives/subprocess\n", false},
		{Knowledge, ".md", "---\ncategory: demo\ntags: [x]\n---\nbody\n", true},
		{Knowledge, ".md", "---\nid: demo/x\ntitle: X\ncategory: demo\n---\nbody\n", false},
	} {
		md, _ := ReadMetadata(c.kind, "x"+c.ext, []byte(c.src))
		if got := RyeOSForm(c.kind, c.ext, []byte(c.src), md); got != c.want {
			t.Errorf("%s %q: %v, want %v", c.kind, c.src, got, c.want)
		}
	}
}
