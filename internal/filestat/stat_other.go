//go:build !unix

package filestat

import "io/fs"

func sys(_ fs.FileInfo, st Stat) (Stat, bool) { return st, false }
