//go:build !windows

package atomicfile

import (
	"io/fs"
	"path/filepath"

	"github.com/google/renameio/v2"
)

// File is a file being written that replaces its target on Commit (Create).
type File struct {
	pending *renameio.PendingFile
	path    string
}

// create opens the temporary file in path's own folder (renameio would
// otherwise pick $TMPDIR when it is on the same file system), so that an
// aborted run leaves nothing elsewhere and the rename never crosses a
// mount.
func create(path string, perm fs.FileMode) (*File, error) {
	p, err := renameio.NewPendingFile(path, renameio.WithTempDir(filepath.Dir(path)), renameio.WithPermissions(perm), renameio.WithExistingPermissions())
	if err != nil {
		return nil, err
	}
	return &File{pending: p, path: path}, nil
}

// Write appends to the temporary file.
func (f *File) Write(b []byte) (int, error) { return f.pending.Write(b) }

func (f *File) commit() error { return f.pending.CloseAtomicallyReplace() }

// Abort removes the temporary file; the target keeps its bytes. It does
// nothing after Commit.
func (f *File) Abort() { f.pending.Cleanup() }
