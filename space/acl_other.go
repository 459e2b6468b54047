//go:build unix && !linux

package space

// hasACL reports whether the path has an access ACL beyond its mode; rye
// reads POSIX ACLs on Linux only.
func hasACL(string) bool { return false }
