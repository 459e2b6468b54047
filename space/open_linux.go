//go:build linux

package space

import (
	"errors"
	"os"
	"path/filepath"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/ryekit/rye/internal/filestat"
)

// aiDir is a space's .ai folder opened once, for openat2.
type aiDir struct {
	once sync.Once
	fd   int // -1 when it cannot be opened or openat2 is missing
}

// openDir opens the .ai folder once, when openat2 can be used with it.
func (s *Space) openDir() {
	s.dir.once.Do(func() {
		s.dir.fd = -1
		fd, err := unix.Open(filepath.Join(s.Root, AIDir), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return
		}
		// Probe once: ENOSYS (old kernel) or EPERM (seccomp) means no openat2.
		probe, err := unix.Openat2(fd, ".", &unix.OpenHow{Flags: unix.O_RDONLY | unix.O_CLOEXEC | unix.O_DIRECTORY, Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_BENEATH})
		if err != nil {
			unix.Close(fd)
			return
		}
		unix.Close(probe)
		s.dir.fd = fd
	})
}

// statData is StatData through the .ai folder opened for openat2 (the
// folder the file's bytes are read through): fstatat resolves only the
// path below .ai/, where lstat resolved every folder from the root. ok
// is false when the folder is not open here.
func (s *Space) statData(rel string) (st filestat.Stat, regular bool, ok bool, err error) {
	if s.openDir(); s.dir.fd < 0 {
		return filestat.Stat{}, false, false, nil
	}
	var u unix.Stat_t
	for {
		if err = unix.Fstatat(s.dir.fd, rel, &u, unix.AT_SYMLINK_NOFOLLOW); err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return filestat.Stat{}, false, true, &os.PathError{Op: "lstat", Path: rel, Err: err}
	}
	st = filestat.Stat{Size: u.Size, Mtime: u.Mtim.Nano(), Ctime: u.Ctim.Nano(), Ino: u.Ino, Dev: u.Dev}
	return st, u.Mode&unix.S_IFMT == unix.S_IFREG, true, nil
}

// openNoLinks opens rel below the space's .ai folder in one openat2 call
// that refuses every symbolic link and any path leaving the folder
// (RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH): the same guarantee as checking
// each component with lstat, without the calls, and without a window in
// which a component could be swapped for a link. O_NONBLOCK keeps a FIFO
// from blocking the open (the caller refuses anything but a regular file).
// ok is false when openat2 cannot be used here (an old kernel, a sandbox
// that forbids it): the caller then checks component by component. A link
// or an escape is reported as errLinkOnPath, for the caller to name.
func (s *Space) openNoLinks(rel string) (f *os.File, ok bool, err error) {
	if s.openDir(); s.dir.fd < 0 {
		return nil, false, nil
	}
	for {
		fd, err := unix.Openat2(s.dir.fd, rel, &unix.OpenHow{
			Flags:   unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NONBLOCK | unix.O_NOCTTY,
			Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_BENEATH,
		})
		switch {
		case err == nil:
			return os.NewFile(uintptr(fd), filepath.Join(s.AI(), rel)), true, nil
		case errors.Is(err, unix.EINTR), errors.Is(err, unix.EAGAIN):
			continue // openat2 asks to be retried when a rename raced it
		case errors.Is(err, unix.ELOOP), errors.Is(err, unix.EXDEV):
			return nil, true, errLinkOnPath
		}
		return nil, true, &os.PathError{Op: "open", Path: rel, Err: err}
	}
}
