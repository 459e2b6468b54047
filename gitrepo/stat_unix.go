//go:build unix

package gitrepo

import (
	"io/fs"
	"syscall"
)

// sameStat reports whether a file's stat data are those the index entry
// recorded: size, modification and change times and inode, as git
// compares them.
func sameStat(e *indexEntry, fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return false
	}
	return int64(e.Size) == fi.Size()&0xffffffff && e.MTime.Equal(fi.ModTime()) &&
		e.CTime.UnixNano() == ctimeOf(st) && e.Ino == uint32(st.Ino)
}
