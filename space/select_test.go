package space

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ryekit/rye/item"
)

func TestSelect(t *testing.T) {
	root := t.TempDir()
	tree(t, root, map[string]string{
		".ai/tools/p/a.py":          "",
		".ai/tools/p/b.yaml":        "",
		".ai/tools/p/sub/c.sh":      "",
		".ai/tools/p/sub/deep/d.js": "",
		".ai/tools/q/e.py":          "",
		".ai/tools/.gitkeep":        "",
		".ai/directives/p/a.md":     "",
		".ai/knowledge/p/k.md":      "",
		".ai/config/rye.yaml":       "",
		".ai/trusted_keys/x.toml":   "",
	})
	sp := NewDiskSpace(Project, root, "")
	ids := func(sel *Selection) string {
		var s []string
		for _, f := range sel.Items {
			s = append(s, string(f.Kind)+":"+string(f.ID))
		}
		return strings.Join(s, " ")
	}
	cases := []struct {
		kinds    []item.Kind
		patterns []string
		want     string
	}{
		{item.Kinds, []string{"p/a"}, "directive:p/a tool:p/a"},
		{[]item.Kind{item.Tool}, []string{"p/a"}, "tool:p/a"},
		{[]item.Kind{item.Tool}, []string{"p/*"}, "tool:p/a tool:p/b"},
		{[]item.Kind{item.Tool}, []string{"p/**"}, "tool:p/a tool:p/b tool:p/sub/c tool:p/sub/deep/d"},
		{[]item.Kind{item.Tool}, []string{"p/?"}, "tool:p/a tool:p/b"},
		{[]item.Kind{item.Tool}, []string{"*/e", "p/a", "q/e"}, "tool:p/a tool:q/e"},
		{item.Kinds, []string{".ai/tools/p/sub/c.sh", filepath.Join(root, ".ai/knowledge/p/k.md")}, "tool:p/sub/c knowledge:p/k"},
		{item.Kinds, []string{"**"}, "directive:p/a tool:p/a tool:p/b tool:p/sub/c tool:p/sub/deep/d tool:q/e knowledge:p/k"},
	}
	for _, c := range cases {
		sel, err := Select(sp, c.kinds, c.patterns, root)
		if err != nil {
			t.Errorf("%v: %v", c.patterns, err)
			continue
		}
		if got := ids(sel); got != c.want {
			t.Errorf("%v: %s, want %s", c.patterns, got, c.want)
		}
	}
	// Pre-commit passes every staged file: non-items are skipped.
	sel, err := Select(sp, item.Kinds, []string{".ai/config/rye.yaml", ".ai/trusted_keys/x.toml", ".ai/tools/.gitkeep", ".ai/tools/p/a.py"}, root)
	if err != nil || ids(sel) != "tool:p/a" || len(sel.Skipped) != 3 {
		t.Errorf("pre-commit files: %v %v %v", ids(sel), sel.Skipped, err)
	}
	// Relative paths from a subfolder.
	sub := filepath.Join(root, ".ai", "tools", "p")
	if sel, err := Select(sp, item.Kinds, []string{"a.py", "./b.yaml"}, sub); err != nil || ids(sel) != "tool:p/a tool:p/b" {
		t.Errorf("relative: %v %v", ids(sel), err)
	}
	bad := map[string]string{
		"p/none":              `no item "p/none" in the project space`,
		"zz/*":                `no item in the project space matches "zz/*"`,
		"../x":                "is not inside",
		".ai/tools/p/none.py": "no such file",
		"a b":                 "invalid item id",
		"p/[":                 "invalid pattern",
	}
	for p, want := range bad {
		if _, err := Select(sp, item.Kinds, []string{p}, root); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", p, err, want)
		}
	}
	// Symbolic links named like items are selected as refused links.
	if err := os.Symlink("a.py", filepath.Join(root, ".ai/tools/p/l.py")); err == nil {
		for _, pats := range [][]string{{".ai/tools/p/l.py"}, {"p/l"}, {"p/*"}, nil} {
			sel, err := Select(sp, []item.Kind{item.Tool}, pats, root)
			if err != nil || len(sel.Links) != 1 || sel.Links[0].ID != "p/l" {
				t.Errorf("symlink %v: %+v %v", pats, sel, err)
			}
		}
	}
}

// Over several spaces a pattern must match in one of them, not in each;
// one that matches nowhere is still an error.
func TestSelectAll(t *testing.T) {
	p, u := t.TempDir(), t.TempDir()
	tree(t, p, map[string]string{".ai/tools/mine/a.py": ""})
	tree(t, u, map[string]string{".ai/tools/theirs/b.py": ""})
	spaces := []*Space{NewDiskSpace(Project, p, ""), NewDiskSpace(User, u, "")}
	count := func(sels []*Selection) int {
		n := 0
		for _, s := range sels {
			n += len(s.Items)
		}
		return n
	}
	sels, err := SelectAll(spaces, item.Kinds, []string{"mine/a", "theirs/*"}, p)
	if err != nil || count(sels) != 2 || sels[0].Space != spaces[0] {
		t.Fatalf("one pattern in each space: %d items, %v", count(sels), err)
	}
	if sels, err := SelectAll(spaces, item.Kinds, nil, p); err != nil || count(sels) != 2 {
		t.Errorf("no patterns: %v", err)
	}
	if _, err := SelectAll(spaces, item.Kinds, []string{"mine/a", "nothing/x"}, p); err == nil || !strings.Contains(err.Error(), `"nothing/x"`) {
		t.Errorf("a pattern that matches nowhere: %v", err)
	}
	if _, err := SelectAll(spaces, item.Kinds, []string{"[bad"}, p); err == nil || !strings.Contains(err.Error(), "invalid pattern") {
		t.Errorf("an invalid pattern: %v", err)
	}
}
