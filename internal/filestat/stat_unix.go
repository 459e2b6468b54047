//go:build unix

package filestat

import (
	"io/fs"
	"syscall"
)

func sys(fi fs.FileInfo, st Stat) (Stat, bool) {
	s, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return st, false
	}
	st.Ctime, st.Ino, st.Dev = ctimeOf(s), uint64(s.Ino), uint64(s.Dev)
	return st, true
}
