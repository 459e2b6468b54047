package atomicfile

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// A file written in parts replaces its target only on Commit: until then,
// and after Abort, the target holds its old bytes and nothing else is left
// in its folder; a committed file keeps the old file's mode.
func TestCreateCommitAbort(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "report.json")
	if err := os.WriteFile(p, []byte("old"), 0o640); err != nil {
		t.Fatal(err)
	}
	f, err := Create(p, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("new, "))
	if data, _ := os.ReadFile(p); string(data) != "old" {
		t.Errorf("before Commit the target holds %q", data)
	}
	f.Write([]byte("whole"))
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	f.Abort() // nothing after Commit
	data, _ := os.ReadFile(p)
	info, _ := os.Stat(p)
	if string(data) != "new, whole" || runtime.GOOS != "windows" && info.Mode().Perm() != 0o640 {
		t.Errorf("committed %q, mode %v", data, info.Mode().Perm())
	}

	f, err = Create(p, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("half a docu"))
	f.Abort()
	if data, _ := os.ReadFile(p); string(data) != "new, whole" {
		t.Errorf("after Abort the target holds %q", data)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("left behind: %v", entries)
	}

	_, err = Create(filepath.Join(dir, "missing", "x.sarif"), 0o644)
	if err == nil || !strings.Contains(err.Error(), "the folder "+filepath.Join(dir, "missing")+" does not exist") {
		t.Errorf("a missing folder: %v", err)
	}
}
