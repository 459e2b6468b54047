package filestat

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// TestOfSeesAnEditThatKeepsSizeAndTime: an edit that keeps the size and
// puts the modification time back still changes the stat data (the change
// time), and Racy tells a change near a read.
func TestOfSeesAnEditThatKeepsSizeAndTime(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	os.WriteFile(file, []byte("one"), 0o644)
	old := time.Now().Add(-time.Hour)
	os.Chtimes(file, old, old)
	fi, _ := os.Lstat(file)
	before, complete := Of(fi)
	if runtime.GOOS == "windows" || !complete {
		t.Skip("no change time here: a cache reads every file")
	}
	if before.Size != 3 || before.Mtime != old.UnixNano() || before.Ino == 0 {
		t.Fatalf("stat data: %+v", before)
	}
	time.Sleep(10 * time.Millisecond)
	os.WriteFile(file, []byte("two"), 0o644)
	os.Chtimes(file, old, old)
	fi, _ = os.Lstat(file)
	after, _ := Of(fi)
	if after == before {
		t.Error("an edit keeping size and modification time left the stat data as they were")
	}
	if !after.Racy(time.Now(), time.Second) {
		t.Error("a file changed just now is not racy")
	}
	if after.Racy(time.Now().Add(time.Hour), time.Second) {
		t.Error("a file read an hour after its change is racy")
	}
}
