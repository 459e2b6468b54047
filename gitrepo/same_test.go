package gitrepo

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestSameInIndex: a folder, a link or nothing at a path is the same in
// the index as at a commit only when every file (blob id, link or not)
// is; a change below it, an added or removed file, a file turned into a
// link, an intent to add, or a folder replaced by a link is a difference,
// with and without git's cache tree.
func TestSameInIndex(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	root := t.TempDir()
	write := func(rel, data string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitCmd(t, root, "init", "-q", "-b", "main")
	write("sub/.ai/tools/a.sh", "a\n")
	write("sub/.ai/trusted_keys/k.pem", "k\n")
	write("sub/notes.txt", "n\n")
	os.Symlink("../sub/.ai", filepath.Join(root, "linked"))
	gitCmd(t, root, "add", "-A")
	gitCmd(t, root, "commit", "-q", "-m", "base")

	same := func(path string) bool {
		t.Helper()
		r, err := Open(root)
		if err != nil {
			t.Fatal(err)
		}
		ok, err := r.SameInIndex("main", path)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	check := func(what, path string, want bool) {
		t.Helper()
		if got := same(path); got != want {
			t.Errorf("%s: SameInIndex(%q) = %v, want %v", what, path, got, want)
		}
	}
	check("committed", "sub/.ai", true)
	check("committed link", "linked", true)
	check("nothing at either", "none/.ai", true)

	// Without the cache tree (git update-index drops it for the folders it
	// touches; read-tree without -m writes none): the files are compared.
	gitCmd(t, root, "read-tree", "main")
	check("no cache tree", "sub/.ai", true)

	write("sub/notes.txt", "changed\n")
	gitCmd(t, root, "add", "-A")
	check("a change beside .ai", "sub/.ai", true)

	steps := []struct {
		what string
		do   func()
		path string
	}{
		{"a changed file", func() { write("sub/.ai/tools/a.sh", "b\n"); gitCmd(t, root, "add", "-A") }, "sub/.ai"},
		{"an added key", func() { write("sub/.ai/trusted_keys/evil.pem", "e\n"); gitCmd(t, root, "add", "-A") }, "sub/.ai"},
		{"a removed file", func() { gitCmd(t, root, "rm", "-q", "--cached", "sub/.ai/tools/a.sh") }, "sub/.ai"},
		{"an intent to add", func() { write("sub/.ai/tools/new.sh", "n\n"); gitCmd(t, root, "add", "-N", "sub/.ai/tools/new.sh") }, "sub/.ai"},
		{"a file made a link", func() {
			os.Remove(filepath.Join(root, "sub/.ai/tools/a.sh"))
			os.Symlink("a\n", filepath.Join(root, "sub/.ai/tools/a.sh"))
			gitCmd(t, root, "add", "-A")
		}, "sub/.ai"},
		{"a link retargeted", func() {
			os.Remove(filepath.Join(root, "linked"))
			os.Symlink("../elsewhere", filepath.Join(root, "linked"))
			gitCmd(t, root, "add", "-A")
		}, "linked"},
		{"a folder where the link was", func() {
			os.Remove(filepath.Join(root, "linked"))
			write("linked/tools/x.sh", "x\n")
			gitCmd(t, root, "add", "-A")
		}, "linked"},
		{"added where nothing was", func() { write("none/.ai/tools/x.sh", "x\n"); gitCmd(t, root, "add", "-A") }, "none/.ai"},
	}
	for _, s := range steps {
		gitCmd(t, root, "reset", "-q", "--hard", "main")
		check("reset before "+s.what, s.path, true)
		s.do()
		check(s.what, s.path, false)
	}
}
