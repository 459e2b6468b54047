// Package filestat reads the stat data that change when a file's content
// does, the way git's index compares them: size, modification and change
// times, inode and device. A cache that reuses what it learnt from a file
// keys it on all of them, since size and modification time alone can be
// set back by anyone who can write the file (touch -d), and the change
// time cannot be set back without changing the clock.
package filestat

import (
	"io/fs"
	"time"
)

// Stat is a file's stat data.
type Stat struct {
	Size, Mtime, Ctime int64 // times in nanoseconds
	Ino, Dev           uint64
}

// Of returns fi's stat data (fi from lstat or stat). Complete is false
// where the change time and inode are not known (outside unix): Stat
// then holds only the size and modification time.
func Of(fi fs.FileInfo) (st Stat, complete bool) {
	st = Stat{Size: fi.Size(), Mtime: fi.ModTime().UnixNano()}
	return sys(fi, st)
}

// Lstat returns the stat data of the file at path, not following a link,
// without building an fs.FileInfo (a warm run does this for every file of
// a tree; on unix it allocates nothing but the path's C string). regular
// reports a regular file; complete is as for Of.
func Lstat(path string) (st Stat, regular, complete bool, err error) { return lstat(path) }

// Racy reports whether the file changed within margin of at (the time its
// content was read): a later change in the same clock tick could leave
// its stat data as they are, so what was read must not be reused on
// their word (git's racy-timestamp rule, with a margin for file systems
// whose timestamps lag the clock).
func (s Stat) Racy(at time.Time, margin time.Duration) bool {
	limit := at.Add(-margin).UnixNano()
	return s.Mtime >= limit || s.Ctime >= limit
}
