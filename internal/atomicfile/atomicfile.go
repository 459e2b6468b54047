// Package atomicfile replaces files so that a reader, or a crash, only ever
// sees the old bytes or the new bytes: the data goes to a temporary file in
// the same directory, is flushed to disk, and is renamed over the target.
// Signing, lint fixes and copies all rewrite items this way, so a failure on
// one item never leaves a half-written file.
package atomicfile

import (
	"errors"
	"io/fs"
	"os"
)

// WriteFile atomically replaces (or creates) path with data. An existing
// file keeps its permission bits; a new one gets perm.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	if info, err := os.Stat(path); err == nil {
		perm = info.Mode().Perm()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return writeFile(path, data, perm)
}
