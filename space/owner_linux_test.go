//go:build linux

package space

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// setACL gives user uid read, write and search access to dir with a POSIX
// access ACL (what setfacl -m u:UID:rwx does), whose mask then shows as
// the group's write bit.
func setACL(t *testing.T, dir string, uid uint32) {
	t.Helper()
	b := binary.LittleEndian.AppendUint32(nil, 2) // POSIX_ACL_XATTR_VERSION
	entry := func(tag, perm uint16, id uint32) {
		b = binary.LittleEndian.AppendUint16(b, tag)
		b = binary.LittleEndian.AppendUint16(b, perm)
		b = binary.LittleEndian.AppendUint32(b, id)
	}
	entry(0x01, 7, ^uint32(0)) // user::rwx
	entry(0x02, 7, uid)        // user:uid:rwx
	entry(0x04, 5, ^uint32(0)) // group::r-x
	entry(0x10, 7, ^uint32(0)) // mask::rwx
	entry(0x20, 5, ^uint32(0)) // other::r-x
	if err := unix.Setxattr(dir, "system.posix_acl_access", b, 0); err != nil {
		if errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.ENOTSUP) {
			t.Skipf("this file system has no POSIX ACLs: %v", err)
		}
		t.Fatal(err)
	}
}

// A folder another user may write through an ACL is writable by others,
// also when its group is the caller's private group (the mode then shows
// the ACL's mask as the group's write bit, not the group's own right).
func TestSafeFolderACL(t *testing.T) {
	top := t.TempDir()
	parent := filepath.Join(top, "parent")
	dir := filepath.Join(parent, "proj")
	os.MkdirAll(dir, 0o755)
	check := func() error {
		info, err := os.Stat(dir)
		if err != nil {
			t.Fatal(err)
		}
		return SafeFolder(dir, info)
	}
	if err := check(); err != nil {
		t.Fatalf("a folder of one's own: %v", err)
	}
	other := uint32(65534)
	if uint32(os.Getuid()) == other {
		other = 65533
	}
	setACL(t, dir, other)
	if err := check(); err == nil || !strings.Contains(err.Error(), "writable by other users") {
		t.Errorf("the folder, writable by uid %d through an ACL: %v", other, err)
	}
	unix.Removexattr(dir, "system.posix_acl_access")
	os.Chmod(dir, 0o755)
	setACL(t, parent, other)
	if err := check(); err == nil || !strings.Contains(err.Error(), "writable by other users") {
		t.Errorf("a folder above, writable by uid %d through an ACL: %v", other, err)
	}
}
