package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

func TestBatchCommit(t *testing.T) {
	dir := t.TempDir()
	var targets []string
	var perms []os.FileMode
	for i := 0; i < 50; i++ {
		sub := filepath.Join(dir, fmt.Sprint("d", i%5))
		os.MkdirAll(sub, 0o755)
		p := filepath.Join(sub, fmt.Sprintf("f%d.py", i))
		if i%2 == 0 {
			os.WriteFile(p, []byte("old"), 0o700)
		}
		targets = append(targets, p)
		perms = append(perms, map[bool]os.FileMode{true: 0o700, false: 0o644}[i%2 == 0])
	}
	var b Batch
	var wg sync.WaitGroup
	for i, p := range targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := b.Stage(p, []byte(fmt.Sprint("new ", i)), perms[i]); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if n := countTemp(dir); n != 50 {
		t.Fatalf("staged %d", n)
	}
	// Nothing is replaced before Commit.
	if data, _ := os.ReadFile(targets[0]); string(data) != "old" {
		t.Fatalf("replaced before commit: %q", data)
	}
	// A target whose folder disappears fails alone.
	gone := filepath.Join(dir, "gone")
	os.MkdirAll(gone, 0o755)
	lost := filepath.Join(gone, "x")
	if err := b.Stage(lost, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(gone)
	failed := b.Commit()
	if len(failed) != 1 || failed[lost] == nil {
		t.Fatalf("failed: %v", failed)
	}
	for i, p := range targets {
		data, err := os.ReadFile(p)
		if err != nil || string(data) != fmt.Sprint("new ", i) {
			t.Errorf("%s: %q %v", p, data, err)
		}
		info, _ := os.Stat(p)
		want := os.FileMode(0o644)
		if i%2 == 0 {
			want = 0o700
		}
		if runtime.GOOS != "windows" && info.Mode().Perm() != want {
			t.Errorf("%s mode %v, want %v", p, info.Mode().Perm(), want)
		}
	}
	if n := countTemp(dir); n != 0 {
		t.Errorf("%d temporary files left behind", n)
	}
	if len(b.Commit()) != 0 {
		t.Error("a second commit did something")
	}
}

// countTemp counts rye's temporary files below dir.
func countTemp(dir string) int {
	n := 0
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if strings.Contains(p, TempPrefix) {
			n++
		}
		return nil
	})
	return n
}

// TestCleanStale: the temporary file of a batch that never committed (a
// killed run) is removed, in a folder whose name has glob characters, and
// nothing else is.
func TestCleanStale(t *testing.T) {
	dir := t.TempDir()
	dir = filepath.Join(dir, "odd[*]")
	os.MkdirAll(dir, 0o755)
	p := filepath.Join(dir, "a[1].md")
	os.WriteFile(p, []byte("old"), 0o644)
	var b Batch
	if err := b.Stage(p, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(p); string(data) != "old" {
		t.Errorf("staging changed the target: %q", data)
	}
	stale := filepath.Join(dir, ".a[1].md"+TempPrefix+"abc")
	other := filepath.Join(dir, ".b.md.tmp")
	os.WriteFile(stale, nil, 0o644)
	os.WriteFile(other, nil, 0o644)
	CleanStale(dir)
	if _, err := os.Stat(stale); err == nil {
		t.Error("stale temp file kept")
	}
	if _, err := os.Stat(other); err != nil {
		t.Error("a file that is not ours was removed")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("entries: %v", entries)
	}
}

// TestCleanStaleOf: a killed run's temporary file for a target (its first
// name) is removed without listing the folder, and a target staged while
// that name is taken (another run at the same moment, or a leftover) gets
// another name and still replaces its target.
func TestCleanStaleOf(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.md")
	os.WriteFile(p, []byte("old"), 0o644)
	killed := &Batch{}
	if err := killed.Stage(p, []byte("never committed"), 0o644); err != nil {
		t.Fatal(err)
	}
	if n := countTemp(dir); n != 1 {
		t.Fatalf("staged %d temporary files", n)
	}
	// The name is taken: a second stage of the same target uses another.
	var b Batch
	if err := b.Stage(p, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if n := countTemp(dir); n != 2 {
		t.Fatalf("%d temporary files, want 2 (one under a second name)", n)
	}
	if failed := b.Commit(); len(failed) != 0 {
		t.Fatal(failed)
	}
	if data, _ := os.ReadFile(p); string(data) != "new" {
		t.Fatalf("target: %q", data)
	}
	CleanStaleOf(p)
	if n := countTemp(dir); n != 0 {
		t.Errorf("%d temporary files left after CleanStaleOf", n)
	}
	CleanStaleOf(filepath.Join(dir, "missing.md")) // nothing to remove: no error, no effect
	if data, _ := os.ReadFile(p); string(data) != "new" {
		t.Errorf("target after cleaning: %q", data)
	}
}

// TestBarrier: a barrier over a few paths (one fsync each) and over many
// (syncfs where the platform has it) flushes files and folders and reports
// no failure; a path that has gone is left to fail where it is used.
func TestBarrier(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for i := range 10 {
		p := filepath.Join(dir, fmt.Sprint("f", i))
		os.WriteFile(p, []byte("x"), 0o644)
		paths = append(paths, p)
	}
	for _, ps := range [][]string{{paths[0]}, {paths[0], dir}, append(paths, dir)} {
		if failed := barrier(ps); len(failed) != 0 {
			t.Errorf("barrier over %d paths: %v", len(ps), failed)
		}
	}
	if failed := barrier([]string{filepath.Join(dir, "gone")}); len(failed) != 0 {
		t.Errorf("a missing path: %v", failed)
	}
}
