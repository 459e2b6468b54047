//go:build windows

package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
)

// writeFile is the Windows fallback (renameio has no Windows build): temp
// file in the same directory, sync, close, then os.Rename, which replaces
// the target with MoveFileEx(MOVEFILE_REPLACE_EXISTING).
func writeFile(path string, data []byte, perm fs.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // no-op once renamed
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp, perm); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
