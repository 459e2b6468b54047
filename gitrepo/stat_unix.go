//go:build unix

package gitrepo

import (
	"io/fs"
	"syscall"

	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// sameStat reports whether a file's stat data are those the index entry
// recorded: size, modification and change times and inode, as git
// compares them.
func sameStat(e *index.Entry, fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return false
	}
	return int64(e.Size) == fi.Size()&0xffffffff && e.ModifiedAt.Equal(fi.ModTime()) &&
		e.CreatedAt.UnixNano() == ctimeOf(st) && e.Inode == uint32(st.Ino)
}
