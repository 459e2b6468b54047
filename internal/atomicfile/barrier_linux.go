//go:build linux

package atomicfile

import (
	"os"

	"golang.org/x/sys/unix"
)

// barrier makes everything written so far to the filesystems holding paths
// durable: one syncfs(2) per filesystem. It returns the paths whose
// filesystem could not be flushed; a path that no longer exists is left to
// fail where it is used.
func barrier(paths []string) map[string]error {
	byDev := map[uint64][]string{}
	for _, p := range paths {
		var st unix.Stat_t
		if unix.Stat(p, &st) == nil {
			byDev[st.Dev] = append(byDev[st.Dev], p)
		}
	}
	failed := map[string]error{}
	for _, ps := range byDev {
		if err := syncfs(ps[0]); err != nil {
			for _, p := range ps {
				failed[p] = err
			}
		}
	}
	return failed
}

func syncfs(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return unix.Syncfs(int(f.Fd()))
}
