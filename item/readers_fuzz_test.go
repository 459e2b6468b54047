package item

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ryekit/rye/item/syntax"
)

// checkPositions fails when a node's position lies outside the source or
// disagrees with the line index: every position a reader reports must be
// usable as-is by an editor or a fix.
func checkPositions(t *testing.T, src []byte, n *syntax.Node) {
	t.Helper()
	idx := syntax.NewLineIndex(src)
	var walk func(n *syntax.Node, depth int)
	walk = func(n *syntax.Node, depth int) {
		if n == nil || depth > 1000 {
			return
		}
		for _, p := range []syntax.Pos{n.Pos, n.End} {
			if !p.IsValid() {
				continue
			}
			if p.Offset < 0 || p.Offset > len(src) || idx.Pos(p.Offset) != p {
				t.Fatalf("bad position %+v (index says %+v) in %q", p, idx.Pos(p.Offset), src)
			}
		}
		if n.End.IsValid() && n.Pos.IsValid() && n.End.Offset < n.Pos.Offset {
			t.Fatalf("end %s before start %s", n.End, n.Pos)
		}
		for _, it := range n.Items {
			walk(it, depth+1)
		}
		for _, f := range n.Fields {
			if f.KeyPos.IsValid() && idx.Pos(f.KeyPos.Offset) != f.KeyPos {
				t.Fatalf("bad key position %+v", f.KeyPos)
			}
			walk(f.Value, depth+1)
		}
	}
	walk(n, 0)
}

func addSamples(f *testing.F, k Kind, pattern string) {
	files, _ := filepath.Glob(filepath.Join("testdata", string(k), pattern))
	for _, p := range files {
		src, err := os.ReadFile(p)
		if err == nil {
			f.Add(src)
		}
	}
}

func fuzzRead(t *testing.T, k Kind, name string, src []byte) {
	md, err := ReadMetadata(k, name, src)
	if err != nil {
		if _, ok := err.(*syntax.Error); !ok {
			t.Fatalf("error of type %T: %v", err, err)
		}
		return
	}
	checkPositions(t, src, md.Fields)
}

func FuzzReadDirective(f *testing.F) {
	addSamples(f, Directive, "*.md")
	f.Fuzz(func(t *testing.T, src []byte) { fuzzRead(t, Directive, "x.md", src) })
}

func FuzzReadKnowledge(f *testing.F) {
	addSamples(f, Knowledge, "*")
	f.Fuzz(func(t *testing.T, src []byte) {
		fuzzRead(t, Knowledge, "x.md", src)
		fuzzRead(t, Knowledge, "x.yaml", src)
	})
}

func FuzzReadToolConfig(f *testing.F) {
	addSamples(f, Tool, "*")
	f.Fuzz(func(t *testing.T, src []byte) {
		for _, name := range []string{"x.yaml", "x.toml", "x.sh", "x.js"} {
			fuzzRead(t, Tool, name, src)
		}
	})
}

func FuzzParseExtractor(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("..", "space", "system", ".ai", "tools", "rye", "core", "extractors", "*", "*.yaml"))
	if len(files) == 0 {
		f.Fatal("no extractor files to seed the corpus with: has the system bundle moved?")
	}
	for _, p := range files {
		if src, err := os.ReadFile(p); err == nil {
			f.Add(src)
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		x, err := ParseExtractor(src)
		if err != nil {
			return
		}
		md, err := ReadMetadata(Tool, "x.yaml", src)
		if err == nil {
			x.Check(md, MustID("a/b"))
		}
	})
}

// FuzzCodeBlocks: the fenced code blocks of any text are in order, do not
// overlap, lie inside it, and each starts at the beginning of a line with
// a fence of three or more backticks or tildes.
func FuzzCodeBlocks(f *testing.F) {
	f.Add([]byte("a\n```yaml\nx\n```\n````md\n```\ny\n```\n````\n~~~\nopen"))
	f.Fuzz(func(t *testing.T, src []byte) {
		end := 0
		for _, b := range CodeBlocks(src) {
			if b[0] < end || b[1] <= b[0] || b[1] > len(src) {
				t.Fatalf("block %v after %d in %q", b, end, src)
			}
			if b[0] > 0 && src[b[0]-1] != '\n' {
				t.Fatalf("block %v does not start a line", b)
			}
			if _, n := FenceRun(src[b[0]:lineEnd(src, b[0])]); n < 3 {
				t.Fatalf("block %v does not open with a fence", b)
			}
			end = b[1]
		}
	})
}
