package gitrepo

import (
	"fmt"
	"os/exec"
	"sync"
	"testing"
)

// TestBlobsReadConcurrently: rye check --staged reads the index's blobs
// from many goroutines; from loose objects and from a pack (after git gc)
// every read must return its own blob's bytes.
func TestBlobsReadConcurrently(t *testing.T) {
	files := map[string]string{}
	for i := range 200 {
		files[fmt.Sprintf("d/f%03d.txt", i)] = fmt.Sprintf("file %d\n%s", i, string(make([]byte, i*37)))
	}
	root, _ := repoWith(t, files)
	for _, packed := range []bool{false, true} {
		if packed {
			git, err := exec.LookPath("git")
			if err != nil {
				t.Skip("git is not installed: no packed objects to read")
			}
			if out, err := exec.Command(git, "-C", root, "gc", "-q").CombinedOutput(); err != nil {
				t.Fatalf("git gc: %v\n%s", err, out)
			}
		}
		r, err := Open(root)
		if err != nil {
			t.Fatal(err)
		}
		idx, err := r.Index("d", 0)
		if err != nil || len(idx) != len(files) {
			t.Fatalf("index: %d %v", len(idx), err)
		}
		var wg sync.WaitGroup
		for rel, f := range idx {
			wg.Add(1)
			go func() {
				defer wg.Done()
				data, err := r.Blob(f, 1<<20)
				if err != nil || string(data) != files["d/"+rel] {
					t.Errorf("packed %v: %s: %d bytes, %v", packed, rel, len(data), err)
				}
			}()
		}
		wg.Wait()
	}
}
