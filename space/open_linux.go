//go:build linux

package space

import (
	"errors"
	"os"
	"path/filepath"
	"sync"

	"golang.org/x/sys/unix"
)

// aiDir is a space's .ai folder opened once, for openat2.
type aiDir struct {
	once sync.Once
	fd   int // -1 when it cannot be opened or openat2 is missing
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
	if s.dir.fd < 0 {
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
