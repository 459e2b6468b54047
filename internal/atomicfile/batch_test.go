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
