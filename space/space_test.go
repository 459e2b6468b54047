package space

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/ryekit/rye/item"
)

// tree writes files (path → content) under root.
func tree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestDiscoverAndResolve(t *testing.T) {
	dir := t.TempDir()
	project, home, sys := filepath.Join(dir, "proj"), filepath.Join(dir, "home"), filepath.Join(dir, "sys")
	tree(t, project, map[string]string{
		".ai/tools/a/x.yaml": "project yaml",
		".ai/tools/a/x.sh":   "project sh",
		"sub/deeper/keep":    "",
	})
	tree(t, home, map[string]string{
		".ai/tools/a/x.py": "user py",
		".ai/tools/a/y.py": "user y",
	})
	tree(t, sys, map[string]string{".ai/tools/a/z.toml": "sys z", ".ai/tools/a/y.py": "sys y"})

	ss, err := Discover(Options{WorkDir: filepath.Join(project, "sub", "deeper"), Getenv: env(map[string]string{"HOME": home, "RYE_SYSTEM_PATH": sys})})
	if err != nil {
		t.Fatal(err)
	}
	if ss.Project == nil || ss.Project.Root != project || ss.User.Root != home || len(ss.System) != 2 || ss.System[1].Label != "system:"+sys {
		t.Fatalf("spaces: %+v", ss)
	}
	if got := ss.Project.DisplayPath("tools/a/x.py"); got != filepath.Join("..", "..", ".ai", "tools", "a", "x.py") {
		t.Errorf("display path %s", got)
	}
	cases := []struct{ id, space, rel string }{
		{"a/x", "project", "tools/a/x.yaml"}, // project wins over user; .yaml before .sh
		{"a/y", "user", "tools/a/y.py"},      // user wins over system
		{"a/z", "system:" + sys, "tools/a/z.toml"},
		{"rye/core/extractors/tool/tool_extractor", "system", "tools/rye/core/extractors/tool/tool_extractor.yaml"},
	}
	for _, c := range cases {
		loc, err := ss.Resolve(item.Tool, item.MustID(c.id), nil)
		if err != nil {
			t.Fatalf("%s: %v", c.id, err)
		}
		if loc.Space.Label != c.space || loc.Rel != c.rel {
			t.Errorf("%s resolved to %s %s, want %s %s", c.id, loc.Space.Label, loc.Rel, c.space, c.rel)
		}
	}
	_, err = ss.Resolve(item.Tool, "a/none", nil)
	var nf *NotFoundError
	if !errors.As(err, &nf) || !errors.Is(err, ErrNotFound) || err.Error() != `tool "a/none" not found (searched project, user, system)` {
		t.Errorf("not found: %v", err)
	}
	// Narrowing (spec 3.2): from the user space, project items are invisible.
	loc, err := ss.Resolve(item.Tool, "a/x", ss.From(ss.User))
	if err != nil || loc.Space.Name != User {
		t.Errorf("from user: %v %v", loc, err)
	}
	if _, err := ss.Resolve(item.Tool, "a/x", ss.From(ss.System[0])); !errors.Is(err, ErrNotFound) {
		t.Errorf("from system: %v", err)
	}
	if n, _ := ss.Named("system"); len(n) != 2 {
		t.Errorf("Named(system) = %d spaces", len(n))
	}
	if _, err := ss.Named("galaxy"); err == nil {
		t.Error("Named(galaxy) accepted")
	}
}

// A folder inside a .ai/ folder belongs to the project above, also when a
// .ai folder was planted in it: from .ai/tools, from the .ai folder itself
// and from a file's folder below them, the project is the real one.
func TestFolderInsideAIIsNotAProject(t *testing.T) {
	top := t.TempDir()
	tree(t, top, map[string]string{".ai/tools/t/x.py": "", ".ai/tools/.ai/config/rye.yaml": "", ".ai/.ai/k": "", ".ai/tools/t/.ai/k": ""})
	for _, dir := range []string{".ai/tools", ".ai", ".ai/tools/t", ".ai/tools/.ai/config"} {
		got, err := FindProjectRoot(filepath.Join(top, dir), "")
		if err != nil || got != top {
			t.Errorf("FindProjectRoot(%s) = %q, %v; want %s", dir, got, err, top)
		}
	}
	if got, err := ProjectOf(".ai/tools/t/x.py", top, ""); err != nil || got != top {
		t.Errorf("ProjectOf = %q, %v; want %s", got, err, top)
	}
}

func TestUserRootIsNotAProject(t *testing.T) {
	home := t.TempDir()
	tree(t, home, map[string]string{".ai/tools/t.py": "", "work/file": ""})
	ss, err := Discover(Options{WorkDir: filepath.Join(home, "work"), Getenv: env(map[string]string{"HOME": home}), NoEmbedded: true})
	if err != nil {
		t.Fatal(err)
	}
	if ss.Project != nil {
		t.Errorf("the user space was taken for a project: %s", ss.Project.Root)
	}
	ss, _ = Discover(Options{WorkDir: home, ProjectDir: filepath.Join(home, "work"), Getenv: env(map[string]string{"USER_SPACE": home}), NoEmbedded: true})
	if ss.Project == nil || ss.Project.Root != filepath.Join(home, "work") {
		t.Errorf("--project: %+v", ss.Project)
	}
	if _, err := Discover(Options{WorkDir: home, Getenv: env(map[string]string{"RYE_SYSTEM_PATH": filepath.Join(home, "nope")})}); err == nil || !strings.Contains(err.Error(), "has no .ai/ folder") {
		t.Errorf("bad RYE_SYSTEM_PATH: %v", err)
	}
}

func TestSymlinksAndSizes(t *testing.T) {
	root := t.TempDir()
	tree(t, root, map[string]string{
		".ai/tools/real/t.py":  "x",
		".ai/tools/a/big.py":   strings.Repeat("x", MaxItemSize+1),
		".ai/tools/a/limit.py": strings.Repeat("x", MaxItemSize),
		"outside/secret.py":    "secret",
	})
	if err := os.Symlink(filepath.Join(root, "outside"), filepath.Join(root, ".ai/tools/linkdir")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	if err := os.Symlink("t.py", filepath.Join(root, ".ai/tools/real/link.py")); err != nil {
		t.Fatal(err)
	}
	sp := NewDiskSpace(Project, root, "")
	for _, id := range []string{"linkdir/secret", "real/link"} {
		_, err := sp.Find(item.Tool, item.MustID(id))
		if !errors.Is(err, ErrSymlink) {
			t.Errorf("%s: %v, want ErrSymlink", id, err)
		}
	}
	if _, err := sp.ReadFile("tools/a/big.py"); !errors.Is(err, ErrTooLarge) {
		t.Errorf("big: %v", err)
	}
	if data, err := sp.ReadFile("tools/a/limit.py"); err != nil || len(data) != MaxItemSize {
		t.Errorf("limit: %d %v", len(data), err)
	}
	if _, err := sp.ReadFile("../outside/secret.py"); err == nil {
		t.Error("read outside the space")
	}
	if _, err := sp.Find(item.Tool, "real/t.py/x"); !errors.Is(err, ErrNotFound) {
		t.Errorf("file as a folder: %v", err)
	}
}

func TestWalk(t *testing.T) {
	root := t.TempDir()
	tree(t, root, map[string]string{
		".ai/tools/a/b.py":              "",
		".ai/tools/a/c.yaml":            "",
		".ai/tools/a/data.json":         "{}",
		".ai/tools/a/README":            "",
		".ai/tools/a/notes.txt":         "",
		".ai/tools/a/bad name.py":       "",
		".ai/tools/a/.gitkeep":          "",
		".ai/tools/a/__pycache__/b.pyc": "",
		".ai/tools/node_modules/x/y.js": "",
		".ai/tools/.hidden/z.py":        "",
		".ai/knowledge/k.md":            "",
		".ai/knowledge/k.yml":           "",
		".ai/directives/d/e.md":         "",
		".ai/directives/d/e.py":         "",
	})
	sp := NewDiskSpace(Project, root, "")
	found, odd, err := sp.Walk(item.Kinds)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range found {
		got = append(got, string(f.Kind)+" "+string(f.ID)+" "+f.Rel)
	}
	want := []string{"directive d/e directives/d/e.md", "tool a/b tools/a/b.py", "tool a/c tools/a/c.yaml", "knowledge k knowledge/k.md", "knowledge k knowledge/k.yml"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("found:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var odds []string
	for _, o := range odd {
		odds = append(odds, o.Rel+": "+o.Reason)
	}
	wantOdd := []string{
		"directives/d/e.py: .py is not a directive file form (expected one of .md)",
		"tools/a/README: a file without an extension is not a tool (expected one of .py .yaml .yml .js .ts .sh .toml)",
		`tools/a/bad name.py: invalid item id "a/bad name": segment 2 "bad name" contains ' '; allowed are letters, digits, '_', '.' and '-'`,
		"tools/a/data.json: JSON cannot carry an embedded signature line (it has no comments): convert it to YAML (.yaml)",
		"tools/a/notes.txt: .txt is not a tool file form (expected one of .py .yaml .yml .js .ts .sh .toml)",
	}
	if strings.Join(odds, "\n") != strings.Join(wantOdd, "\n") {
		t.Errorf("oddities:\n%s\nwant:\n%s", strings.Join(odds, "\n"), strings.Join(wantOdd, "\n"))
	}
	// A missing kind folder is simply empty.
	if found, odd, err := NewDiskSpace(User, t.TempDir(), "").Walk(item.Kinds); err != nil || len(found)+len(odd) != 0 {
		t.Errorf("empty space: %v %v %v", found, odd, err)
	}
}

func TestKindAndID(t *testing.T) {
	k, id, ext, err := KindAndID("tools/rye/bash/bash.py")
	if err != nil || k != item.Tool || id != "rye/bash/bash" || ext != ".py" {
		t.Errorf("%s %s %s %v", k, id, ext, err)
	}
	for _, bad := range []string{"config/rye.yaml", "tools", "tools/../x.py", "lockfiles/x.json"} {
		if _, _, _, err := KindAndID(bad); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

func TestEmbeddedExtractors(t *testing.T) {
	ss := &Spaces{System: []*Space{EmbeddedSpace()}}
	for _, k := range item.Kinds {
		if _, err := ss.Extractor(k); err != nil {
			t.Errorf("%s: %v", k, err)
		}
	}
}

func TestMkdirAndCheckNoSymlinks(t *testing.T) {
	base, elsewhere := t.TempDir(), t.TempDir()
	made, err := MkdirNoSymlinks(base, "a/b/c")
	if err != nil || strings.Join(made, " ") != strings.Join([]string{filepath.Join(base, "a"), filepath.Join(base, "a", "b"), filepath.Join(base, "a", "b", "c")}, " ") {
		t.Fatalf("made %v, %v", made, err)
	}
	if made, err := MkdirNoSymlinks(base, "a/b/d"); err != nil || len(made) != 1 {
		t.Errorf("existing folders were made again: %v %v", made, err)
	}
	os.WriteFile(filepath.Join(base, "a", "file"), []byte("x"), 0o644)
	if made, err := MkdirNoSymlinks(base, "a/file/x"); err == nil || !strings.Contains(err.Error(), "is not a folder") || len(made) != 0 {
		t.Errorf("through a file: %v %v", made, err)
	}
	if err := CheckNoSymlinks(base, "a/file/x"); err == nil || !strings.Contains(err.Error(), "is not a folder") {
		t.Errorf("check through a file: %v", err)
	}
	if err := CheckNoSymlinks(base, "a/b"); !errors.Is(err, ErrNotFile) {
		t.Errorf("a folder as the file: %v", err)
	}
	for _, rel := range []string{"a/file", "a/missing/x", "missing/y/z"} {
		if err := CheckNoSymlinks(base, rel); err != nil {
			t.Errorf("%s: %v", rel, err)
		}
	}
	if err := os.Symlink(elsewhere, filepath.Join(base, "a", "link")); err != nil {
		t.Skip(err)
	}
	if made, err := MkdirNoSymlinks(base, "a/link/x"); !errors.Is(err, ErrSymlink) || len(made) != 0 {
		t.Errorf("through a link: %v %v", made, err)
	}
	if err := CheckNoSymlinks(base, "a/link/x"); !errors.Is(err, ErrSymlink) {
		t.Errorf("check through a link: %v", err)
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
		t.Error("made a folder through the link")
	}
}

// The extractor rules of every kind come from the system bundle unless a
// project copy shadows them; broken rules are an error, never absent.
func TestExtractors(t *testing.T) {
	root := t.TempDir()
	ss := &Spaces{Project: NewDiskSpace(Project, root, ""), System: []*Space{EmbeddedSpace()}}
	x, err := ss.Extractors()
	if err != nil || len(x) != len(item.Kinds) {
		t.Fatalf("%d extractors, %v", len(x), err)
	}
	tree(t, root, map[string]string{".ai/tools/rye/core/extractors/tool/tool_extractor.yaml": "extensions: [\n"})
	if _, err := ss.Extractors(); err == nil || !strings.Contains(err.Error(), "extractor rules") {
		t.Errorf("broken rules: %v", err)
	}
}

// A project found above the working directory must belong to the user who
// runs rye; --project takes any folder.
func TestProjectAboveOwnedByAnotherUserIsRefused(t *testing.T) {
	root := t.TempDir()
	ai := filepath.Join(root, ".ai")
	sub := filepath.Join(root, "sub")
	os.MkdirAll(ai, 0o755)
	os.MkdirAll(sub, 0o755)
	if err := os.Chown(ai, os.Getuid()+4242, -1); err != nil {
		t.Skipf("cannot give a folder to another user here: %v", err)
	}
	_, err := Discover(Options{WorkDir: sub, Getenv: func(string) string { return "" }})
	var fe *ForeignProjectError
	if !errors.As(err, &fe) || fe.Dir != root || !strings.Contains(err.Error(), "belongs to another user") {
		t.Fatalf("another user's project above: %v", err)
	}
	ss, err := Discover(Options{WorkDir: sub, ProjectDir: root, Getenv: func(string) string { return "" }})
	if err != nil || ss.Project == nil || ss.Project.Root != root {
		t.Fatalf("--project: %v", err)
	}
	// Started in the project itself, it is the user's own choice.
	if ss, err := Discover(Options{WorkDir: root, Getenv: func(string) string { return "" }}); err != nil || ss.Project == nil {
		t.Fatalf("started in it: %v", err)
	}
}

// A system root inside the project could be written by a change to it.
func TestSystemPathInsideTheProjectIsRefused(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, ".ai"), 0o755)
	os.MkdirAll(filepath.Join(root, "vendor", "sys", ".ai"), 0o755)
	env := map[string]string{"RYE_SYSTEM_PATH": filepath.Join(root, "vendor", "sys")}
	_, err := Discover(Options{WorkDir: root, Getenv: func(k string) string { return env[k] }})
	if err == nil || !strings.Contains(err.Error(), "is inside the project") {
		t.Fatalf("%v", err)
	}
}

// oneByteReader hands out its bytes one at a time, as a pipe or a file
// that is being written may.
type oneByteReader struct{ b []byte }

func (r *oneByteReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	p[0], r.b = r.b[0], r.b[1:]
	return 1, nil
}

// TestReadAtMost: whatever size the stat gave (right, too small because
// the file grew, too large because it shrank, not known), the whole file
// is read, and no more than MaxItemSize bytes are ever accepted.
func TestReadAtMost(t *testing.T) {
	data := []byte(strings.Repeat("0123456789", 300))
	for _, size := range []int64{3000, 0, 1, 2999, 3001, 100000, -1} {
		for _, slow := range []bool{false, true} {
			var r io.Reader = bytes.NewReader(data)
			if slow {
				r = &oneByteReader{b: data}
			}
			got, err := ReadAtMost(r, size)
			if err != nil || !bytes.Equal(got, data) {
				t.Errorf("size %d, slow %v: %d bytes, %v", size, slow, len(got), err)
			}
		}
	}
	big := make([]byte, MaxItemSize+1)
	for _, size := range []int64{MaxItemSize + 1, MaxItemSize, 10, -1} {
		if _, err := ReadAtMost(bytes.NewReader(big), size); !errors.Is(err, ErrTooLarge) {
			t.Errorf("%d bytes read with size %d: %v", len(big), size, err)
		}
	}
	if got, err := ReadAtMost(bytes.NewReader(big[:MaxItemSize]), 10); err != nil || len(got) != MaxItemSize {
		t.Errorf("exactly MaxItemSize: %d, %v", len(got), err)
	}
	boom := errors.New("boom")
	if _, err := ReadAtMost(io.MultiReader(bytes.NewReader(data), iotest.ErrReader(boom)), 3000); !errors.Is(err, boom) {
		t.Errorf("read error: %v", err)
	}
}
