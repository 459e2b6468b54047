package python

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ryekit/rye/item/syntax"
)

// FuzzReadPython checks that Read never panics and that everything
// it returns points into the input: error positions, names, expressions,
// every node and every map key, with Raw equal to the text at the node.
func FuzzReadPython(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "python", "*.py"))
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		lines := syntax.NewLineIndex(src)
		m, err := Read(src)
		if err != nil {
			e, ok := err.(*syntax.Error)
			if !ok || m != nil {
				t.Fatalf("got %v, %T %v", m, err, err)
			}
			checkFuzzPos(t, src, lines, "error", e.Pos)
			return
		}
		if m.Docstring != nil {
			checkFuzzNode(t, src, lines, m.Docstring, 0)
		}
		for _, a := range m.Assigns {
			checkFuzzPos(t, src, lines, "name "+a.Name, a.NamePos)
			checkFuzzPos(t, src, lines, "expression of "+a.Name, a.ExprPos)
			if string(src[a.NamePos.Offset:min(a.NamePos.Offset+len(a.Name), len(src))]) != a.Name {
				t.Errorf("name %q is not at %s", a.Name, a.NamePos)
			}
			if (a.Value == nil) != (a.Reason != "") {
				t.Errorf("%s: value %v with reason %q", a.Name, a.Value, a.Reason)
			}
			if a.Value != nil {
				checkFuzzNode(t, src, lines, a.Value, 0)
			}
			if got := m.Lookup(a.Name); got == nil || got.NamePos.Offset < a.NamePos.Offset {
				t.Errorf("Lookup(%q) did not return the last binding", a.Name)
			}
		}
	})
}

func checkFuzzPos(t *testing.T, src []byte, lines *syntax.LineIndex, what string, p syntax.Pos) {
	t.Helper()
	if p.Offset < 0 || p.Offset > len(src) || p != lines.Pos(p.Offset) {
		t.Fatalf("%s: position %+v is not a place in the %d-byte input (%+v there)", what, p, len(src), lines.Pos(p.Offset))
	}
}

func checkFuzzNode(t *testing.T, src []byte, lines *syntax.LineIndex, n *syntax.Node, depth int) {
	t.Helper()
	if depth > pyMaxNesting+1 {
		t.Fatalf("node nested %d deep", depth)
	}
	checkFuzzPos(t, src, lines, "node", n.Pos)
	checkFuzzPos(t, src, lines, "node end", n.End)
	if n.End.Offset < n.Pos.Offset {
		t.Fatalf("node ends at %s before it starts at %s", n.End, n.Pos)
	}
	if n.Raw != "" && string(src[n.Pos.Offset:n.End.Offset]) != n.Raw {
		t.Fatalf("raw %q is not the text at %s-%s (%q)", n.Raw, n.Pos, n.End, src[n.Pos.Offset:n.End.Offset])
	}
	for _, it := range n.Items {
		checkFuzzNode(t, src, lines, it, depth+1)
	}
	for _, f := range n.Fields {
		checkFuzzPos(t, src, lines, "key "+f.Key, f.KeyPos)
		checkFuzzNode(t, src, lines, f.Value, depth+1)
	}
}
