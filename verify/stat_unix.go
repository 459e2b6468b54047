//go:build unix

package verify

import (
	"io/fs"
	"syscall"
)

// statOf reads the stat data that change with a file's content; ok is
// false where they are not all known.
func statOf(fi fs.FileInfo) (fileStat, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || !fi.Mode().IsRegular() {
		return fileStat{}, false
	}
	return fileStat{size: fi.Size(), mtime: fi.ModTime().UnixNano(), ctime: ctimeOf(st), ino: uint64(st.Ino), dev: uint64(st.Dev)}, true
}
