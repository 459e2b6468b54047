package gitrepo

import (
	"errors"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"
)

// TreeFS is the folder prefix of the commit ref names as a read-only
// file system: what a reader of a project's tree on disk (space's layout
// detection) reads, read from the commit instead, so that a run under a
// trust ref can ask the ref the question it asks the working tree. Files
// are read when opened, at most limit bytes (a larger one is an error
// wrapping ErrTooLarge); a symbolic link is reported as one by Lstat and
// never followed (opening it is an error).
func (r *Repo) TreeFS(ref, prefix string, limit int64) (fs.FS, error) {
	files, err := r.Tree(ref, prefix, 0)
	if err != nil {
		return nil, err
	}
	t := &treeFS{r: r, limit: limit, files: files, dirs: map[string][]string{".": nil}}
	for p := range files {
		for dir, name := path.Split(p); ; dir, name = path.Split(strings.TrimSuffix(dir, "/")) {
			d := strings.TrimSuffix(dir, "/")
			if d == "" {
				d = "."
			}
			_, known := t.dirs[d]
			t.dirs[d] = append(t.dirs[d], name)
			if known || d == "." {
				break
			}
		}
	}
	for d, names := range t.dirs {
		slices.Sort(names)
		t.dirs[d] = slices.Compact(names)
	}
	return t, nil
}

type treeFS struct {
	r     *Repo
	limit int64
	files map[string]File
	dirs  map[string][]string // folder → the names in it, sorted
}

func (t *treeFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	info, err := t.Lstat(name)
	if err != nil {
		return nil, err
	}
	switch {
	case info.IsDir():
		return &treeDir{info: info, fsys: t, name: name}, nil
	case info.Mode()&fs.ModeSymlink != 0:
		return nil, &fs.PathError{Op: "open", Path: name, Err: errors.New("a symbolic link in the commit: not followed")}
	}
	data, err := t.r.Blob(t.files[name], t.limit)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return &treeFile{info: info, data: data}, nil
}

func (t *treeFS) ReadDir(name string) ([]fs.DirEntry, error) {
	names, ok := t.dirs[name]
	if !ok {
		if _, isFile := t.files[name]; isFile {
			return nil, &fs.PathError{Op: "readdir", Path: name, Err: errors.New("not a folder")}
		}
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	out := make([]fs.DirEntry, 0, len(names))
	for _, n := range names {
		info, err := t.Lstat(path.Join(name, n))
		if err != nil {
			return nil, err
		}
		out = append(out, fs.FileInfoToDirEntry(info))
	}
	return out, nil
}

func (t *treeFS) Lstat(name string) (fs.FileInfo, error) {
	if f, ok := t.files[name]; ok {
		mode := fs.FileMode(0o644)
		if f.Symlink {
			mode = fs.ModeSymlink | 0o777
		}
		return treeInfo{name: path.Base(name), mode: mode}, nil
	}
	if _, ok := t.dirs[name]; ok {
		return treeInfo{name: path.Base(name), mode: fs.ModeDir | 0o755}, nil
	}
	return nil, &fs.PathError{Op: "lstat", Path: name, Err: fs.ErrNotExist}
}

func (t *treeFS) ReadLink(name string) (string, error) {
	if f, ok := t.files[name]; ok && f.Symlink {
		data, err := t.r.Blob(f, 4096)
		return string(data), err
	}
	return "", &fs.PathError{Op: "readlink", Path: name, Err: fs.ErrInvalid}
}

// treeInfo describes a file or folder of a commit: no size, no time (a
// commit records neither for folders; readers of TreeFS do not need them).
type treeInfo struct {
	name string
	mode fs.FileMode
}

func (i treeInfo) Name() string       { return i.name }
func (i treeInfo) Size() int64        { return 0 }
func (i treeInfo) Mode() fs.FileMode  { return i.mode }
func (i treeInfo) ModTime() time.Time { return time.Time{} }
func (i treeInfo) IsDir() bool        { return i.mode.IsDir() }
func (i treeInfo) Sys() any           { return nil }

type treeFile struct {
	info fs.FileInfo
	data []byte
	off  int
}

func (f *treeFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *treeFile) Close() error               { return nil }
func (f *treeFile) Read(b []byte) (int, error) {
	if f.off >= len(f.data) {
		return 0, io.EOF
	}
	n := copy(b, f.data[f.off:])
	f.off += n
	return n, nil
}

type treeDir struct {
	info fs.FileInfo
	fsys *treeFS
	name string
	read bool
}

func (d *treeDir) Stat() (fs.FileInfo, error) { return d.info, nil }
func (d *treeDir) Close() error               { return nil }
func (d *treeDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.name, Err: errors.New("is a folder")}
}

// ReadDir lists the whole folder at the first call (n is not honoured
// beyond that: fs.ReadDir and fs.WalkDir ask for everything).
func (d *treeDir) ReadDir(n int) ([]fs.DirEntry, error) {
	if d.read {
		if n > 0 {
			return nil, io.EOF
		}
		return nil, nil
	}
	d.read = true
	return d.fsys.ReadDir(d.name)
}
