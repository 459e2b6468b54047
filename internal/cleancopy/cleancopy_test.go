package cleancopy

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func files(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// TestCopyLeavesIgnored copies an example whose run left git-ignored state
// behind (the quickstart's lockfile), under a repository whose top-level
// .gitignore excludes more: the copy holds what a clone holds.
func TestCopyLeavesIgnored(t *testing.T) {
	repo := t.TempDir()
	write(t, filepath.Join(repo, ".git", "HEAD"), "ref: refs/heads/main\n")
	write(t, filepath.Join(repo, ".gitignore"), "*.test\n/rye\n")
	ex := filepath.Join(repo, "examples", "hello")
	write(t, filepath.Join(ex, ".gitignore"), "# run state\n/.ai/lockfiles/\n")
	write(t, filepath.Join(ex, ".ai", "tools", "hello", "greet.py"), "x")
	write(t, filepath.Join(ex, ".ai", "lockfiles", "hello", "greet@1.0.0.lock.json"), "{}")
	write(t, filepath.Join(ex, ".ai", "tools", "hello", "lockfiles", "kept.txt"), "anchored: not ignored")
	write(t, filepath.Join(ex, "cli.test"), "a binary")
	write(t, filepath.Join(ex, "rye"), "not the top's /rye: kept")
	write(t, filepath.Join(ex, "vendor", "x", ".git", "config"), "a nested repository's folder")

	dst := filepath.Join(t.TempDir(), "copy")
	if err := Copy(dst, ex); err != nil {
		t.Fatal(err)
	}
	want := []string{".ai/tools/hello/greet.py", ".ai/tools/hello/lockfiles/kept.txt", ".gitignore", "rye"}
	if got := files(t, dst); !slices.Equal(got, want) {
		t.Errorf("copied %q, want %q", got, want)
	}
}

// TestCopyOutsideGit copies a folder that is in no repository: its own
// .gitignore still counts.
func TestCopyOutsideGit(t *testing.T) {
	src := t.TempDir()
	write(t, filepath.Join(src, ".gitignore"), "out/\n")
	write(t, filepath.Join(src, "out", "x"), "x")
	write(t, filepath.Join(src, "in", "y"), "y")
	dst := filepath.Join(t.TempDir(), "copy")
	if err := Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if got, want := files(t, dst), []string{".gitignore", "in/y"}; !slices.Equal(got, want) {
		t.Errorf("copied %q, want %q", got, want)
	}
}
