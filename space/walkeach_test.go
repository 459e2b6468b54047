package space

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/ryekit/rye/internal/filestat"
	"github.com/ryekit/rye/item"
)

// TestWalkEachIsWalk: the items WalkEach hands over, a few at a time, are
// Walk's, in Walk's order, and the links it returns are the links named
// like items among Walk's oddities; in rye's layout (with links, hidden
// folders, files that are not items), in a RyeOS tree (with its bundle
// manifest) and in the embedded system space, for chunk sizes from one to
// more than the tree.
func TestWalkEachIsWalk(t *testing.T) {
	root := t.TempDir()
	tree(t, root, map[string]string{
		".ai/tools/p/a.py":              "",
		".ai/tools/p/b.sh":              "",
		".ai/tools/p/readme.txt":        "",
		".ai/tools/p/Bad Name.py":       "",
		".ai/tools/p/sub/c.sh":          "",
		".ai/tools/p-x/f.py":            "",
		".ai/tools/.hidden/h.py":        "",
		".ai/tools/p/node_modules/m.js": "",
		".ai/tools/plain.py":            "",
		".ai/directives/p/a.md":         "",
		".ai/knowledge/p/k.md":          "",
		".ai/knowledge/p/sub/k2.md":     "",
	})
	ai := filepath.Join(root, ".ai")
	os.Symlink(filepath.Join(ai, "tools", "p"), filepath.Join(ai, "tools", "link"))
	os.Symlink("a.py", filepath.Join(ai, "tools", "p", "l.py"))
	os.Symlink("k.md", filepath.Join(ai, "knowledge", "p", "m.md"))
	ryeos := writeTree(t, map[string]string{
		"manifest.yaml":            "name: demo\n",
		"config/demo/s.yaml":       "category: demo\n",
		"tools/demo/data.json":     "{}\n",
		"tools/demo/run.sh":        "echo\n",
		"tools/demo/lib/helper.py": "x = 1\n",
		"knowledge/dé/café.md":     "x\n",
	})
	os.Symlink("run.sh", filepath.Join(ryeos, ".ai", "tools", "demo", "again.sh"))
	spaces := map[string]*Space{
		"rye":    NewDiskSpace(Project, root, ""),
		"ryeos":  NewDiskSpace(Project, ryeos, ""),
		"system": EmbeddedSpace(),
	}
	for name, sp := range spaces {
		for _, kinds := range [][]item.Kind{nil, {item.Tool}, {item.Knowledge, item.Directive}} {
			want, odd, err := sp.Walk(kinds)
			if err != nil {
				t.Fatal(err)
			}
			var wantLinks []Oddity
			for _, o := range odd {
				if o.Symlink && o.ID != "" {
					wantLinks = append(wantLinks, o)
				}
			}
			for _, size := range []int{1, 2, 3, 1000} {
				var got []Found
				links, err := sp.WalkEach(kinds, size, func(found []Found) error {
					if len(found) == 0 || len(found) > size {
						t.Fatalf("%s: a chunk of %d items (size %d)", name, len(found), size)
					}
					got = append(got, found...)
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(links, wantLinks) {
					t.Fatalf("%s, kinds %v, size %d:\n got %v\n     links %v\nwant %v\n     links %v", name, kinds, size, got, links, want, wantLinks)
				}
			}
		}
	}
	if links, _ := spaces["rye"].WalkEach(nil, 2, func([]Found) error { return nil }); len(links) != 2 {
		t.Fatalf("links named like items: %v", links)
	}
}

// TestPathsFollowRootAndShown: the .ai folder's paths, made once, follow
// a change of the space's Root or Shown made after they were first used.
func TestPathsFollowRootAndShown(t *testing.T) {
	sp := NewDiskSpace(Project, "/a", "")
	if sp.AI() != filepath.FromSlash("/a/.ai") || sp.DisplayPath("tools/x.py") != filepath.FromSlash("/a/.ai/tools/x.py") {
		t.Fatalf("paths: %s %s", sp.AI(), sp.DisplayPath("tools/x.py"))
	}
	sp.Shown = "b"
	if got := sp.DisplayPath("tools/x.py"); got != filepath.FromSlash("b/.ai/tools/x.py") {
		t.Errorf("shown after a change of Shown: %s", got)
	}
	sp.Root = "/c"
	if sp.AI() != filepath.FromSlash("/c/.ai") {
		t.Errorf("on disk after a change of Root: %s", sp.AI())
	}
	if got := sp.DisplayPath("../x"); got != filepath.FromSlash("b/x") {
		t.Errorf("a path that is not clean: %s", got)
	}
}

// TestStatData: a file's stat data through its space are those lstat
// gives for its path; a link is not followed, a folder is not a regular
// file, a missing file is an error, and the system space has none.
func TestStatData(t *testing.T) {
	root := t.TempDir()
	tree(t, root, map[string]string{".ai/tools/p/a.py": "x"})
	os.Symlink("a.py", filepath.Join(root, ".ai/tools/p/l.py"))
	sp := NewDiskSpace(Project, root, "")
	st, regular, complete, err := sp.StatData("tools/p/a.py")
	want, wantRegular, wantComplete, _ := filestat.Lstat(filepath.Join(root, ".ai", "tools", "p", "a.py"))
	if err != nil || regular != wantRegular || complete != wantComplete || st != want || !regular {
		t.Fatalf("a file: %+v %v %v %v; lstat %+v", st, regular, complete, err, want)
	}
	if _, regular, _, err := sp.StatData("tools/p/l.py"); err != nil || regular {
		t.Errorf("a link: regular %v, %v", regular, err)
	}
	if _, regular, _, err := sp.StatData("tools/p"); err != nil || regular {
		t.Errorf("a folder: regular %v, %v", regular, err)
	}
	if _, _, _, err := sp.StatData("tools/p/missing.py"); !os.IsNotExist(err) {
		t.Errorf("a missing file: %v", err)
	}
	if _, _, _, err := EmbeddedSpace().StatData("tools/x.py"); err == nil {
		t.Error("the system space has stat data")
	}
}
