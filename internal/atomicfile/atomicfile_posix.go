//go:build !windows

package atomicfile

import (
	"io/fs"

	"github.com/google/renameio/v2"
)

// writeFile uses renameio: temp file in the same directory, fsync, rename,
// and fsync of the directory so that the rename itself survives a crash.
func writeFile(path string, data []byte, perm fs.FileMode) error {
	return renameio.WriteFile(path, data, perm)
}
