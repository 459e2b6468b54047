package verify

import (
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"
	"time"
)

// MemTrustSource is a trust tier held in memory: files maps file names
// ("<fingerprint>.toml") to their bytes. A release bundle's shipped key,
// once named with --trust, joins the trust store this way, with the same
// checks as a file on disk.
func MemTrustSource(label, shown string, files map[string][]byte) TrustSource {
	return TrustSource{Label: label, Files: memFS(files), Shown: shown}
}

// memFS is a read-only file system of files held in memory: the trusted
// keys of a git commit, the items of the git index. Paths use '/'.
type memFS map[string][]byte

func (m memFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	if data, ok := m[name]; ok {
		return &memFile{name: path.Base(name), Reader: strings.NewReader(string(data)), size: int64(len(data))}, nil
	}
	entries, err := m.ReadDir(name)
	if err != nil {
		return nil, err
	}
	return &memDir{name: path.Base(name), entries: entries}, nil
}

func (m memFS) ReadFile(name string) ([]byte, error) {
	data, ok := m[name]
	if !ok {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrNotExist}
	}
	return append([]byte(nil), data...), nil
}

// ReadDir lists the files and folders directly in dir.
func (m memFS) ReadDir(dir string) ([]fs.DirEntry, error) {
	prefix := dir + "/"
	if dir == "." {
		prefix = ""
	}
	seen := map[string]fs.DirEntry{}
	for p, data := range m {
		if !strings.HasPrefix(p, prefix) {
			continue
		}
		rest := p[len(prefix):]
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			seen[rest[:i]] = memEntry{name: rest[:i], dir: true}
		} else {
			seen[rest] = memEntry{name: rest, size: int64(len(data))}
		}
	}
	if len(seen) == 0 && dir != "." {
		return nil, &fs.PathError{Op: "readdir", Path: dir, Err: fs.ErrNotExist}
	}
	out := make([]fs.DirEntry, 0, len(seen))
	for _, e := range seen {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out, nil
}

type memEntry struct {
	name string
	dir  bool
	size int64
}

func (e memEntry) Name() string { return e.name }
func (e memEntry) IsDir() bool  { return e.dir }
func (e memEntry) Type() fs.FileMode {
	if e.dir {
		return fs.ModeDir
	}
	return 0
}
func (e memEntry) Info() (fs.FileInfo, error) { return e, nil }
func (e memEntry) Size() int64                { return e.size }
func (e memEntry) Mode() fs.FileMode {
	if e.dir {
		return fs.ModeDir | 0o555
	}
	return 0o444
}
func (e memEntry) ModTime() time.Time { return time.Time{} }
func (e memEntry) Sys() any           { return nil }

type memFile struct {
	name string
	*strings.Reader
	size int64
}

func (f *memFile) Stat() (fs.FileInfo, error) { return memEntry{name: f.name, size: f.size}, nil }
func (f *memFile) Close() error               { return nil }

type memDir struct {
	name    string
	entries []fs.DirEntry
	read    int
}

func (d *memDir) Stat() (fs.FileInfo, error) { return memEntry{name: d.name, dir: true}, nil }
func (d *memDir) Close() error               { return nil }
func (d *memDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.name, Err: fs.ErrInvalid}
}
func (d *memDir) ReadDir(n int) ([]fs.DirEntry, error) {
	rest := d.entries[d.read:]
	if n <= 0 {
		d.read = len(d.entries)
		return rest, nil
	}
	if len(rest) == 0 {
		return nil, io.EOF
	}
	if n > len(rest) {
		n = len(rest)
	}
	d.read += n
	return rest[:n], nil
}
