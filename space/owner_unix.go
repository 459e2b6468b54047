//go:build unix

package space

import (
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
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

// SafeFolder refuses a folder that someone other than the caller (or
// root) could replace or change: the folder itself (info, from a handle
// the caller holds) must be the caller's and not writable by group or
// others, sticky or not (others could still add what it lacks: a
// trusted_keys/ or config/ in a .ai/ folder), and every folder above it
// must be the caller's or root's and not writable by group or others,
// unless sticky (/tmp: others cannot rename what they do not own there).
// A server that checked a project before reading it thus reads the folder
// it checked, for the whole call: nobody else can swap it, a folder above
// it, or what it holds, in between. A group-writable folder counts as
// writable by others unless its group is the caller's private group
// (named after the caller) and it has no access ACL (whose mask the
// group's bits then show: the users and groups it names may write).
func SafeFolder(dir string, info os.FileInfo) error {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	uid := uint32(os.Getuid())
	if st.Uid != uid {
		return fmt.Errorf("%s belongs to another user (uid %d)", dir, st.Uid)
	}
	private := privateGroup()
	if mode := info.Mode(); mode&0o002 != 0 || mode&0o020 != 0 && (st.Gid != private || hasACL(dir)) {
		return fmt.Errorf("%s is writable by other users (mode %v), who could put their own files in it", dir, mode.Perm())
	}
	for d := filepath.Dir(dir); ; d = filepath.Dir(d) {
		fi, err := os.Lstat(d)
		if err != nil {
			return err
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			return nil
		}
		mode := fi.Mode()
		switch {
		case st.Uid != uid && st.Uid != 0:
			return fmt.Errorf("%s, a folder above %s, belongs to another user (uid %d), who could put another folder in its place", d, dir, st.Uid)
		case mode&os.ModeSticky != 0:
		case mode&0o002 != 0, mode&0o020 != 0 && (st.Gid != private || hasACL(d)):
			return fmt.Errorf("%s, a folder above %s, is writable by other users (mode %v), who could put another folder in its place", d, dir, mode.Perm())
		}
		if parent := filepath.Dir(d); parent == d {
			return nil
		}
	}
}

// privateGroup is the caller's user-private group id (a group named after
// the caller, with the caller's gid), or an impossible id when there is
// none: only such a group's write permission is the caller's alone.
func privateGroup() uint32 {
	u, err := user.Current()
	if err != nil {
		return ^uint32(0)
	}
	g, err := user.LookupGroupId(u.Gid)
	if err != nil || g.Name != u.Username {
		return ^uint32(0)
	}
	id, err := strconv.ParseUint(u.Gid, 10, 32)
	if err != nil {
		return ^uint32(0)
	}
	return uint32(id)
}
