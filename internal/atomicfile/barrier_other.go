//go:build !linux

package atomicfile

import (
	"os"
	"runtime"
)

// barrier fsyncs each path (files, and directories where the platform
// allows opening and syncing them) and returns those that failed.
func barrier(paths []string) map[string]error {
	failed := map[string]error{}
	for _, p := range paths {
		f, err := os.Open(p)
		if err == nil {
			err = f.Sync()
			f.Close()
		}
		if err != nil && runtime.GOOS != "windows" { // Windows cannot sync directories
			failed[p] = err
		}
	}
	return failed
}
