package atomicfile

import "io/fs"

// Create starts a file that replaces path only when committed: its bytes
// go to a temporary file beside path as they are written, and Commit
// flushes it and renames it over path. A writer that fails part-way calls
// Abort, and path keeps its old bytes: a report streamed to a file while
// a run goes on never leaves half a document in place of the last one. An
// existing file keeps its permission bits; a new one gets perm.
func Create(path string, perm fs.FileMode) (*File, error) {
	f, err := create(path, perm)
	if err != nil {
		return nil, named(path, err)
	}
	return f, nil
}

// Commit flushes the file and renames it over its target. After a failed
// Commit the target is unchanged and the temporary file is removed.
func (f *File) Commit() error {
	if err := f.commit(); err != nil {
		f.Abort()
		return named(f.path, err)
	}
	return nil
}
