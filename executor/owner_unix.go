//go:build unix

package executor

import (
	"errors"
	"os"
	"syscall"
)

// ownedByMe refuses a folder that another user owns: they could replace
// what rye writes there.
func ownedByMe(info os.FileInfo) error {
	st, ok := info.Sys().(*syscall.Stat_t)
	if ok && int(st.Uid) != os.Getuid() {
		return errors.New("owned by another user")
	}
	return nil
}
