//go:build windows

package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// File is a file being written that replaces its target on Commit (Create).
type File struct {
	tmp  *os.File
	path string
	perm fs.FileMode
	done bool
}

func create(path string, perm fs.FileMode) (*File, error) {
	if info, err := os.Stat(path); err == nil {
		perm = info.Mode().Perm()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return nil, err
	}
	return &File{tmp: f, path: path, perm: perm}, nil
}

// Write appends to the temporary file.
func (f *File) Write(b []byte) (int, error) { return f.tmp.Write(b) }

func (f *File) commit() error {
	if err := f.tmp.Sync(); err != nil {
		return err
	}
	if err := f.tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(f.tmp.Name(), f.perm); err != nil {
		return err
	}
	if err := os.Rename(f.tmp.Name(), f.path); err != nil {
		return err
	}
	f.done = true
	return nil
}

// Abort removes the temporary file; the target keeps its bytes. It does
// nothing after Commit.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.tmp.Close()
	os.Remove(f.tmp.Name())
}
