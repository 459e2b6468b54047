package gitrepo

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A split index (core.splitIndex) is refused with what to do, not with the
// error of parsing its entries, which are a diff against a shared index.
func TestSplitIndexIsRefusedAsSuch(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("init", "-q")
	run("config", "core.splitIndex", "true")
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644)
	run("add", "a.txt")
	run("commit", "-q", "-m", "a")
	os.WriteFile(filepath.Join(dir, "b.txt"), []byte("b\n"), 0o644)
	run("add", "b.txt")
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Index("", 0)
	if err == nil || !strings.Contains(err.Error(), "the index is a split index (core.splitIndex; undo with") {
		t.Errorf("a split index: %v", err)
	}
}
