package atomicfile

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestWriteFileKeepsModeAndLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "item.py")
	if err := os.WriteFile(p, []byte("old"), 0o750); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(p, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	info, _ := os.Stat(p)
	if string(data) != "new" {
		t.Errorf("data %q", data)
	}
	if runtime.GOOS != "windows" && info.Mode().Perm() != 0o750 {
		t.Errorf("mode %v, want 0750 kept", info.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("left behind: %v", entries)
	}
	q := filepath.Join(dir, "new.md")
	if err := WriteFile(q, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if info, _ := os.Stat(q); runtime.GOOS != "windows" && info.Mode().Perm() != 0o600 {
		t.Errorf("new file mode %v", info.Mode().Perm())
	}
	if err := WriteFile(filepath.Join(dir, "missing", "x"), nil, 0o644); err == nil {
		t.Error("write into a missing directory succeeded")
	}
}

// A file in a folder that does not exist: the error names the file asked
// for and the missing folder, never the temporary file beside it.
func TestWriteFileMissingFolder(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "missing", "dir", "x.tar.gz")
	err := WriteFile(target, []byte("x"), 0o644)
	want := target + ": the folder " + filepath.Join(dir, "missing", "dir") + " does not exist"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v\nwant %s", err, want)
	}
}
