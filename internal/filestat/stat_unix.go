//go:build unix

package filestat

import (
	"io/fs"
	"syscall"
)

func lstat(path string) (st Stat, regular, complete bool, err error) {
	var s syscall.Stat_t
	for {
		if err = syscall.Lstat(path, &s); err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return Stat{}, false, false, &fs.PathError{Op: "lstat", Path: path, Err: err}
	}
	st = Stat{Size: s.Size, Mtime: mtimeOf(&s), Ctime: ctimeOf(&s), Ino: uint64(s.Ino), Dev: uint64(s.Dev)}
	return st, s.Mode&syscall.S_IFMT == syscall.S_IFREG, true, nil
}

func sys(fi fs.FileInfo, st Stat) (Stat, bool) {
	s, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return st, false
	}
	st.Ctime, st.Ino, st.Dev = ctimeOf(s), uint64(s.Ino), uint64(s.Dev)
	return st, true
}
