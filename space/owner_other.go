//go:build !unix

package space

// ownedByCaller is a no-op where rye cannot read a folder's owner.
func ownedByCaller(string) error { return nil }

// OwnedByCaller is a no-op where rye cannot read a folder's owner.
func OwnedByCaller(string) error { return nil }
