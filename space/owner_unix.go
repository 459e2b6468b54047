//go:build unix

package space

import (
	"fmt"
	"os"
	"syscall"
)

// ownedByCaller refuses a path that another user owns, for root too (as
// git does).
func ownedByCaller(p string) error {
	info, err := os.Lstat(p)
	if err != nil {
		return err
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if uid := os.Getuid(); int(st.Uid) != uid {
		return fmt.Errorf("%s belongs to another user (uid %d)", p, st.Uid)
	}
	return nil
}
