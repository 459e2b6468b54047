package gitrepo

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// repoWith makes a repository with files committed, then applies edits to
// the working tree (not committed).
func repoWith(t *testing.T, committed map[string]string) (string, *git.Worktree) {
	t.Helper()
	root := t.TempDir()
	for rel, data := range committed {
		p := filepath.Join(root, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, err := git.PlainInit(root, false)
	if err != nil {
		t.Fatal(err)
	}
	wt, _ := r.Worktree()
	if err := wt.AddGlob("."); err != nil {
		t.Fatal(err)
	}
	if _, err := wt.Commit("base", &git.CommitOptions{Author: &object.Signature{Name: "t", Email: "t@example.com", When: time.Now()}}); err != nil {
		t.Fatal(err)
	}
	return root, wt
}

func TestTreeIndexAndChangedSince(t *testing.T) {
	root, wt := repoWith(t, map[string]string{
		"p/.ai/a.txt":     "alpha\n",
		"p/.ai/sub/b.txt": "beta\n",
		"p/.ai/big.txt":   strings.Repeat("x", 100),
		"other/c.txt":     "gamma\n",
	})
	r, prefix, err := OpenAt(filepath.Join(root, "p"))
	if err != nil || prefix != "p" {
		t.Fatalf("OpenAt: %q %v", prefix, err)
	}
	if _, err := r.Prefix(t.TempDir()); err == nil {
		t.Error("a folder outside the work tree has a prefix")
	}

	files, err := r.Tree("HEAD", "p/.ai", 50)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 3 || string(files["a.txt"].Data) != "alpha\n" || files["sub/b.txt"].Blob != BlobID([]byte("beta\n")) {
		t.Errorf("tree: %+v", files)
	}
	if f := files["big.txt"]; !f.TooLarge || f.Data != nil {
		t.Errorf("a file over the limit: %+v", f)
	}
	if files, _ := r.Tree("HEAD", "p/.ai", 0); files["a.txt"].Data != nil || files["big.txt"].TooLarge {
		t.Error("limit 0 read data")
	}
	if files, err := r.Tree("HEAD", "nowhere", 0); err != nil || len(files) != 0 {
		t.Errorf("a missing folder: %v %v", files, err)
	}
	if _, err := r.Tree("no-such-ref", "", 0); err == nil || !strings.Contains(err.Error(), `git ref "no-such-ref"`) {
		t.Errorf("bad ref: %v", err)
	}

	// The blob id is git's own.
	if git, err := exec.LookPath("git"); err == nil {
		out, err := exec.Command(git, "-C", root, "hash-object", "p/.ai/a.txt").Output()
		if err != nil || strings.TrimSpace(string(out)) != BlobID([]byte("alpha\n")) {
			t.Errorf("git hash-object says %s, BlobID %s (%v)", out, BlobID([]byte("alpha\n")), err)
		}
	}

	// Stage an edit: the index has it, HEAD does not.
	os.WriteFile(filepath.Join(root, "p/.ai/a.txt"), []byte("ALPHA\n"), 0o644)
	if _, err := wt.Add("p/.ai/a.txt"); err != nil {
		t.Fatal(err)
	}
	idx, err := r.Index("p/.ai", 50)
	if err != nil || string(idx["a.txt"].Data) != "ALPHA\n" || len(idx) != 3 {
		t.Errorf("index: %+v %v", idx, err)
	}

	read := func(s string, err error) func() ([]byte, error) {
		return func() ([]byte, error) { return []byte(s), err }
	}
	cands := []Candidate{
		{Rel: "a.txt", Read: read("ALPHA\n", nil)},           // edited
		{Rel: "sub/b.txt", Read: read("beta\n", nil)},        // same
		{Rel: "new.txt", Read: read("new\n", nil)},           // new
		{Rel: "sub/b.txt", Read: read("", os.ErrPermission)}, // unreadable: always a change
	}
	changed, old, err := r.ChangedSince("HEAD", "p/.ai", cands)
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for _, c := range changed {
		got = append(got, c.Index)
	}
	if len(got) != 3 || got[0] != 0 || got[1] != 2 || got[2] != 3 || string(changed[0].Data) != "ALPHA\n" || changed[2].Err == nil {
		t.Errorf("changed: %+v", changed)
	}
	if len(old) != 3 {
		t.Errorf("old files: %d", len(old))
	}
}

// The identity comes from the repository's configuration over the global
// file, and from GIT_AUTHOR_* over both; outside a repository from the
// global file.
func TestIdentity(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[user]\n\tname = Ada Lovelace\n\temail = ada@example.com\n"), 0o644)
	none := func(string) string { return "" }
	if name, email := Identity(t.TempDir(), none); name != "Ada Lovelace" || email != "ada@example.com" {
		t.Errorf("global: %q %q", name, email)
	}
	root, _ := repoWith(t, map[string]string{"a": "x"})
	cfg := filepath.Join(root, ".git", "config")
	data, _ := os.ReadFile(cfg)
	os.WriteFile(cfg, append(data, "[user]\n\temail = ada@work.example\n"...), 0o644)
	if name, email := Identity(filepath.Join(root), none); name != "Ada Lovelace" || email != "ada@work.example" {
		t.Errorf("repository: %q %q", name, email)
	}
	env := map[string]string{"GIT_AUTHOR_NAME": "A. L."}
	if name, email := Identity(root, func(k string) string { return env[k] }); name != "A. L." || email != "ada@work.example" {
		t.Errorf("environment: %q %q", name, email)
	}
	os.Remove(filepath.Join(home, ".gitconfig"))
	if name, email := Identity(t.TempDir(), none); name != "" || email != "" {
		t.Errorf("nothing set: %q %q", name, email)
	}
}
