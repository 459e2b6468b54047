package space

import "golang.org/x/sys/unix"

// hasACL reports whether the path (not followed) has a POSIX access ACL
// beyond its mode: then the group's bits of the mode are the ACL's mask,
// and users or groups the ACL names may have the rights it shows. A file
// system without ACLs has none.
func hasACL(p string) bool {
	n, err := unix.Lgetxattr(p, "system.posix_acl_access", nil)
	return err == nil && n > 0
}
