package vectors

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// shared is the specification's copy, beside the repository.
const shared = "../../../shared/vectors"

// The repository's copies must be the specification's, file for file.
func TestCopyIsCurrent(t *testing.T) {
	sameTree(t, shared, Dir(), "vectors.json", "internal/vectors/testdata", 80)
}

func TestErasCopyIsCurrent(t *testing.T) {
	sameTree(t, "../../../shared/vectors-eras", ErasDir(), "eras.json", "internal/vectors/testdata-eras", 70)
}

func TestRyeOS02CopyIsCurrent(t *testing.T) {
	sameTree(t, "../../../shared/vectors-ryeos02", RyeOS02Dir(), "cases.json", "internal/vectors/testdata-ryeos02", 80)
}

func sameTree(t *testing.T, shared, dir, index, copyPath string, least int) {
	if _, err := os.Stat(filepath.Join(shared, index)); err != nil {
		t.Skipf("the specification's vectors are not beside the repository (%s); the copy is used as it is", shared)
	}
	files := func(root string) map[string][]byte {
		m := map[string][]byte{}
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			data, err := os.ReadFile(p)
			m[filepath.ToSlash(rel)] = data
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	want, got := files(shared), files(dir)
	for p, data := range want {
		if !bytes.Equal(got[p], data) {
			t.Errorf("%s differs from %s: copy it again (cp -r %s/. %s)", p, shared, shared, copyPath)
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("%s is not in %s", p, shared)
		}
	}
	if len(want) < least {
		t.Errorf("only %d files in %s", len(want), shared)
	}
}
