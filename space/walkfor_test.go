package space

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ryekit/rye/item"
)

// TestWalkForSelectsWhatAWholeWalkSelects: for any patterns, walking only
// the folders they name selects the same items and links, in the same
// order, and the same patterns match, as walking every kind folder and
// filtering: through linked and hidden folders, files that are not items,
// links named like items, ids that are not valid, and patterns that name
// nothing.
func TestWalkForSelectsWhatAWholeWalkSelects(t *testing.T) {
	root := t.TempDir()
	tree(t, root, map[string]string{
		".ai/tools/p/a.py":                "",
		".ai/tools/p/a.yaml":              "",
		".ai/tools/p/b.sh":                "",
		".ai/tools/p/readme.txt":          "",
		".ai/tools/p/Bad Name.py":         "",
		".ai/tools/p/sub/c.sh":            "",
		".ai/tools/p/sub/deep/d.js":       "",
		".ai/tools/p-x/f.py":              "",
		".ai/tools/q/e.py":                "",
		".ai/tools/q/e/g.py":              "",
		".ai/tools/.hidden/h.py":          "",
		".ai/tools/p/node_modules/m.js":   "",
		".ai/tools/p/node_modules/x/y.js": "",
		".ai/tools/p/.dot/i.py":           "",
		".ai/tools/plain.py":              "",
		".ai/tools/p.py":                  "", // an item named like a glob's fixed folder
		".ai/tools/p/sub.sh":              "",
		".ai/directives/p/a.md":           "",
		".ai/directives/q/e.md":           "",
		".ai/knowledge/p/k.md":            "",
		".ai/knowledge/p/sub/k2.md":       "",
	})
	ai := filepath.Join(root, ".ai")
	os.Symlink(filepath.Join(ai, "tools", "p"), filepath.Join(ai, "tools", "link"))
	os.Symlink("a.py", filepath.Join(ai, "tools", "p", "l.py"))
	os.WriteFile(filepath.Join(ai, "tools", "file"), nil, 0o644)  // a file where an id's folder would be
	os.MkdirAll(filepath.Join(ai, "tools", "p", "dir.py"), 0o755) // a folder named like an item file
	os.WriteFile(filepath.Join(ai, "tools", "p", "Up.py"), nil, 0o644)
	mkfifo(filepath.Join(ai, "tools", "p", "fifo.sh")) // not a regular file
	os.Symlink(filepath.Join(ai, "tools", "q"), filepath.Join(ai, "tools", "p", "sub", "qlink"))
	sp := NewDiskSpace(Project, root, "")

	pool := []string{
		"p/a", "p/b", "p/l", "p/sub/c", "p/sub/deep/d", "q/e", "q/e/g", "plain", "link/a", "link/sub/c",
		"p/nothing", "nowhere/x", "file/x", ".hidden/h", "p/node_modules/m", "p/node_modules/x/y", ".ai/tools/p/node_modules/x/y.js", "p-x/f", "p/sub/k2", "k",
		"p/*", "p/**", "*/e", "**/d", "p/s*/c", "**", "q/**", "link/*", "p/sub/*", "*", "p-*/f", "{p,q}/e",
		"q/e/**", "p/sub/**", "p/sub/**/d", "link/**", "q/e/*", "p/**/c",
		".ai/tools/p/a.py", ".ai/tools/p/sub/c.sh", ".ai/tools/link/b.sh", ".ai/tools/p/readme.txt",
		".ai/knowledge/p/k.md", ".ai/tools/p/l.py", ".ai/directives/q/e.md",
		"p/dir", "p/Up", "p/up", "P/a", "p/fifo", "p/sub/qlink/e", ".ai/tools/p/Up.py", ".ai/tools/p/up.py",
		".ai/tools/p/fifo.sh", ".ai/tools/p/sub/qlink/e.py", ".ai/tools/p/dir.py", ".ai/tools/file/x.py",
	}
	kindSets := [][]item.Kind{item.Kinds, {item.Tool}, {item.Knowledge, item.Directive}}
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 400 {
		kinds := kindSets[r.IntN(len(kindSets))]
		var patterns []string
		for range 1 + r.IntN(3) {
			patterns = append(patterns, pool[r.IntN(len(pool))])
		}
		if round < len(pool) {
			patterns = []string{pool[round]}
		}
		pats, err := ParsePatterns(sp, patterns, root)
		if err != nil {
			continue
		}
		got, gotMatched, err := selectIn(sp, kinds, pats)
		if err != nil {
			t.Fatalf("%v: %v", patterns, err)
		}
		want, wantMatched := wholeSelect(t, sp, kinds, pats)
		if show(got) != show(want) || !reflect.DeepEqual(gotMatched, wantMatched) {
			t.Errorf("%v in %v:\n got %s %v\nwant %s %v", patterns, kinds, show(got), gotMatched, show(want), wantMatched)
		}
	}
}

// TestOneItemListsNoFolder: selecting items by id or by file path looks at
// the files those can be and lists no folder (a folder of a thousand
// siblings costs nothing), and selects what a walk of everything selects;
// a glob still lists the folder it names.
func TestOneItemListsNoFolder(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{".ai/tools/p/a.py": "", ".ai/tools/p/a.yaml": "", ".ai/directives/p/a.md": ""}
	for i := range 50 {
		files[fmt.Sprintf(".ai/tools/p/sibling_%02d.sh", i)] = ""
	}
	tree(t, root, files)
	sp := NewDiskSpace(Project, root, "")
	rec := &recordFS{fsys: sp.fsys}
	sp.fsys = rec
	sp.Layout() // the layout check walks the tree's first folders: not what is measured here
	for _, c := range []struct {
		patterns []string
		kinds    []item.Kind
		listed   bool
	}{
		{[]string{"p/a"}, []item.Kind{item.Tool}, false},
		{[]string{"p/a"}, nil, false},
		{[]string{".ai/tools/p/a.py"}, nil, false},
		{[]string{"p/a", ".ai/tools/p/sibling_07.sh"}, nil, false},
		{[]string{"p/missing"}, []item.Kind{item.Tool}, false},
		{[]string{"p/a*"}, []item.Kind{item.Tool}, true},
	} {
		rec.opened = nil
		pats, err := ParsePatterns(sp, c.patterns, root)
		if err != nil {
			t.Fatal(err)
		}
		got, gotMatched, err := selectIn(sp, c.kinds, pats)
		if err != nil {
			t.Fatalf("%v: %v", c.patterns, err)
		}
		if listed := len(rec.opened) > 0; listed != c.listed {
			t.Errorf("%v: folders listed %v, want listed %v", c.patterns, rec.opened, c.listed)
		}
		want, wantMatched := wholeSelect(t, sp, c.kinds, pats)
		if show(got) != show(want) || !reflect.DeepEqual(gotMatched, wantMatched) {
			t.Errorf("%v: got %s %v, want %s %v", c.patterns, show(got), gotMatched, show(want), wantMatched)
		}
	}
}

// recordFS records the folders listed or opened through it.
type recordFS struct {
	fsys   fs.FS
	opened []string
}

func (r *recordFS) Open(name string) (fs.File, error) {
	r.opened = append(r.opened, name)
	return r.fsys.Open(name)
}

func (r *recordFS) ReadDir(name string) ([]fs.DirEntry, error) {
	r.opened = append(r.opened, name)
	return fs.ReadDir(r.fsys, name)
}

func (r *recordFS) Lstat(name string) (fs.FileInfo, error) { return fs.Lstat(r.fsys, name) }

func (r *recordFS) ReadLink(name string) (string, error) { return fs.ReadLink(r.fsys, name) }

// TestExactFallsBackOnCaseInsensitiveNames: where a file system would find
// a file under a name of another case, selection by name is not trusted and
// the folder is listed as before. Simulated: a space whose file system
// ignores case.
func TestExactFallsBackOnCaseInsensitiveNames(t *testing.T) {
	root := t.TempDir()
	tree(t, root, map[string]string{".ai/tools/p/Greet.py": ""})
	sp := NewDiskSpace(Project, root, "")
	sp.fsys = foldFS{sp.fsys, []string{"tools/p/Greet.py"}}
	pats, err := ParsePatterns(sp, []string{"p/greet"}, root)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, ok := sp.findExact([]item.Kind{item.Tool}, pats); ok {
		t.Fatal("found by name on a file system that ignores case")
	}
	sel, matched, err := selectIn(sp, []item.Kind{item.Tool}, pats)
	if err != nil || len(sel.Items) != 0 || matched[0] {
		t.Errorf("p/greet selected %s %v %v; a walk lists Greet.py, whose id is p/Greet", show(sel), matched, err)
	}
}

// foldFS answers a name in any case for the files it knows, as a file
// system that ignores case does.
type foldFS struct {
	fsys  fs.FS
	files []string
}

func (f foldFS) real(name string) string {
	if i := slices.IndexFunc(f.files, func(p string) bool { return strings.EqualFold(p, name) }); i >= 0 {
		return f.files[i]
	}
	return name
}

func (f foldFS) Open(name string) (fs.File, error) { return f.fsys.Open(f.real(name)) }

func (f foldFS) Lstat(name string) (fs.FileInfo, error) { return fs.Lstat(f.fsys, f.real(name)) }

func (f foldFS) ReadLink(name string) (string, error) { return fs.ReadLink(f.fsys, f.real(name)) }

// wholeSelect is selection by walking every kind folder and filtering.
func wholeSelect(t *testing.T, sp *Space, kinds []item.Kind, pats []Pattern) (*Selection, []bool) {
	found, odd, err := sp.Walk(kinds)
	if err != nil {
		t.Fatal(err)
	}
	sel := &Selection{Space: sp}
	matched := make([]bool, len(pats))
	selects := func(k item.Kind, id item.ID, rel string) bool {
		hit := false
		for i, p := range pats {
			if p.Match(k, id, rel) {
				matched[i], hit = true, true
			}
		}
		return hit
	}
	for _, f := range found {
		if selects(f.Kind, f.ID, f.Rel) {
			sel.Items = append(sel.Items, f)
		}
	}
	for _, o := range odd {
		if o.Symlink && o.ID != "" && selects(o.Kind, o.ID, o.Rel) {
			sel.Links = append(sel.Links, o)
		}
	}
	return sel, matched
}

func show(sel *Selection) string {
	s := ""
	for _, f := range sel.Items {
		s += fmt.Sprintf("%s:%s(%s) ", f.Kind, f.ID, f.Rel)
	}
	for _, l := range sel.Links {
		s += fmt.Sprintf("link %s:%s(%s) ", l.Kind, l.ID, l.Rel)
	}
	return s
}

// TestDisplayPathIsJoin: the fast form of DisplayPath (for clean paths) is
// what filepath.Join gives, for every kind of root.
func TestDisplayPathIsJoin(t *testing.T) {
	for _, root := range []string{"", ".", "/", "/a/b", "a/b/", "../x", "./y"} {
		for _, rel := range []string{"tools/a/b.py", "x", "config/rye.yaml", "a/../b", "./c", ".", "d//e", ""} {
			sp := NewDiskSpace(Project, "/r", "")
			sp.Shown = root
			want := filepath.Join(sp.Shown, AIDir, filepath.FromSlash(rel))
			if sp.Shown == "" {
				want = filepath.Join(sp.Root, AIDir, filepath.FromSlash(rel))
			}
			if got := sp.DisplayPath(rel); got != want {
				t.Errorf("root %q, rel %q: %q, want %q", root, rel, got, want)
			}
		}
	}
}
