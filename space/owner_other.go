//go:build !unix

package space

import "os"

// ownedByCaller is a no-op where rye cannot read a folder's owner.
func ownedByCaller(string) error { return nil }

// OwnedByCaller is a no-op where rye cannot read a folder's owner.
func OwnedByCaller(string) error { return nil }

// SafeFolder is a no-op where rye cannot read a folder's owner.
func SafeFolder(string, os.FileInfo) error { return nil }
