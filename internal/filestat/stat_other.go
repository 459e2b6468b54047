//go:build !unix

package filestat

import (
	"io/fs"
	"os"
)

func sys(_ fs.FileInfo, st Stat) (Stat, bool) { return st, false }

func lstat(path string) (st Stat, regular, complete bool, err error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return Stat{}, false, false, err
	}
	st, complete = Of(fi)
	return st, fi.Mode().IsRegular(), complete, nil
}
