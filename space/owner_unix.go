//go:build unix

package space

import (
	"fmt"
	"os"
	"syscall"
)

// OwnedByCaller refuses a path (not followed, if it is a symbolic link)
// that another user owns, for root too, as git does: rye mcp refuses a
// project_path someone else controls, as rye refuses a project found in
// a folder above that someone else owns.
func OwnedByCaller(p string) error { return ownedByCaller(p) }

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
