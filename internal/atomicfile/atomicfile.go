// Package atomicfile replaces files so that a reader, or a crash, only ever
// sees the old bytes or the new bytes: the data goes to a temporary file in
// the same directory, is flushed to disk, and is renamed over the target.
// Signing, lint fixes and copies all rewrite items this way, so a failure on
// one item never leaves a half-written file.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteFile atomically replaces (or creates) path with data. An existing
// file keeps its permission bits; a new one gets perm.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	if info, err := os.Stat(path); err == nil {
		perm = info.Mode().Perm()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return named(path, writeFile(path, data, perm))
}

// named makes an error of writing path name path, not the temporary file
// beside it that the user never asked for: "missing/x.tar.gz: the folder
// missing does not exist".
func named(path string, err error) error {
	var pe *fs.PathError
	if !errors.As(err, &pe) || pe.Path == path {
		return err
	}
	dir := filepath.Dir(path)
	if _, serr := os.Stat(dir); errors.Is(serr, fs.ErrNotExist) {
		return fmt.Errorf("%s: the folder %s does not exist", path, dir)
	}
	return &fs.PathError{Op: "write", Path: path, Err: pe.Err}
}
