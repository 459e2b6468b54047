package gitrepo

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TreeFS lists and reads the commit, not the working tree: a file deleted
// or added since, and a file changed since, read as the commit has them.
func TestTreeFS(t *testing.T) {
	root, _ := repoWith(t, map[string]string{
		".ai/node/a/b.yaml":  "node",
		".ai/tools/x/t.sh":   "tool",
		".ai/big/huge.txt":   "0123456789",
		"outside/.ai/n.yaml": "no",
	})
	os.RemoveAll(filepath.Join(root, ".ai", "node"))
	os.WriteFile(filepath.Join(root, ".ai", "tools", "x", "t.sh"), []byte("changed"), 0o644)
	os.WriteFile(filepath.Join(root, ".ai", "new.yaml"), []byte("new"), 0o644)
	r, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	fsys, err := r.TreeFS("HEAD", ".ai", 8)
	if err != nil {
		t.Fatal(err)
	}
	var walked []string
	err = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		walked = append(walked, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".", "big", "big/huge.txt", "node", "node/a", "node/a/b.yaml", "tools", "tools/x", "tools/x/t.sh"}
	if !slices.Equal(walked, want) {
		t.Fatalf("walked %q, want %q", walked, want)
	}
	if data, err := fs.ReadFile(fsys, "tools/x/t.sh"); err != nil || string(data) != "tool" {
		t.Errorf("t.sh: %q, %v (want the commit's bytes)", data, err)
	}
	if _, err := fs.ReadFile(fsys, "big/huge.txt"); !errors.Is(err, ErrTooLarge) {
		t.Errorf("a file over the limit: %v", err)
	}
	if _, err := fs.Stat(fsys, "new.yaml"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a file the commit lacks: %v", err)
	}
	if info, err := fs.Lstat(fsys, "node/a"); err != nil || !info.IsDir() {
		t.Errorf("node/a: %v, %v", info, err)
	}
}

// A symbolic link in the commit is one to Lstat, and never followed.
func TestTreeFSLink(t *testing.T) {
	root, _ := repoWith(t, map[string]string{".ai/tools/x/t.sh": "tool"})
	if err := os.Symlink("/etc/passwd", filepath.Join(root, ".ai", "tools", "x", "l.sh")); err != nil {
		t.Fatal(err)
	}
	gitCmd(t, root, "add", ".ai/tools/x/l.sh")
	gitCmd(t, root, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "link")
	r, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	fsys, err := r.TreeFS("HEAD", ".ai", 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	info, err := fs.Lstat(fsys, "tools/x/l.sh")
	if err != nil || info.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("l.sh: %v, %v", info, err)
	}
	if _, err := fs.ReadFile(fsys, "tools/x/l.sh"); err == nil {
		t.Error("a link was followed")
	}
	if target, err := fs.ReadLink(fsys, "tools/x/l.sh"); err != nil || target != "/etc/passwd" {
		t.Errorf("ReadLink: %q, %v", target, err)
	}
}
