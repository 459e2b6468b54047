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
	// A file system with coarse timestamps can give the edit the change
	// time the file had: the modification time is put back again (which
	// sets the change time to now) until the stat data differ, for a few
	// seconds at most. Only the change time may tell them apart.
	if err := os.WriteFile(file, []byte("two"), 0o644); err != nil {
		t.Fatal(err)
	}
	var after Stat
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		os.Chtimes(file, old, old)
		fi, _ = os.Lstat(file)
		if after, _ = Of(fi); after != before {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("an edit keeping size and modification time left the stat data as they were, 5 s after it")
		}
	}
	if after.Size != before.Size || after.Mtime != before.Mtime || after.Ino != before.Ino || after.Dev != before.Dev || after.Ctime == before.Ctime {
		t.Errorf("only the change time should differ: before %+v, after %+v", before, after)
	}
	if !after.Racy(time.Now(), time.Second) {
		t.Error("a file changed just now is not racy")
	}
	if after.Racy(time.Now().Add(time.Hour), time.Second) {
		t.Error("a file read an hour after its change is racy")
	}
}

// TestLstatIsOf: Lstat gives the stat data Of reads from os.Lstat, tells a
// regular file from a folder and a link (not followed), and fails for a
// missing file.
func TestLstatIsOf(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	os.WriteFile(file, []byte("one"), 0o644)
	fi, _ := os.Lstat(file)
	want, wantComplete := Of(fi)
	got, regular, complete, err := Lstat(file)
	if err != nil || !regular || complete != wantComplete || got != want {
		t.Fatalf("Lstat: %+v regular %v complete %v %v; Of: %+v", got, regular, complete, err, want)
	}
	if _, regular, _, err := Lstat(dir); err != nil || regular {
		t.Errorf("a folder: regular %v, %v", regular, err)
	}
	link := filepath.Join(dir, "l")
	if os.Symlink(file, link) == nil {
		if _, regular, _, err := Lstat(link); err != nil || regular {
			t.Errorf("a link to a regular file: regular %v, %v", regular, err)
		}
	}
	if _, _, _, err := Lstat(filepath.Join(dir, "missing")); !os.IsNotExist(err) {
		t.Errorf("a missing file: %v", err)
	}
}
