package space

import (
	"errors"
	"fmt"
	"github.com/ryekit/rye/internal/filestat"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/ryekit/rye/item"
)

// Name is one of the three tiers, in precedence order project > user >
// system. All system roots (the embedded bundle and RYE_SYSTEM_PATH) share
// the name "system".
type Name string

const (
	Project Name = "project"
	User    Name = "user"
	System  Name = "system"
)

// Rank orders the tiers: a higher rank wins resolution, and a chain element
// may only depend on its own tier or a lower one.
func (n Name) Rank() int {
	switch n {
	case Project:
		return 3
	case User:
		return 2
	case System:
		return 1
	}
	return 0
}

// AIDir is the folder that holds a space's items.
const AIDir = ".ai"

// MaxItemSize is the largest item file rye reads (spec 2.6: larger items are
// "unreadable"), which also bounds memory when walking hostile trees.
const MaxItemSize = 1 << 20

// Space is one root with a .ai/ folder.
type Space struct {
	Name Name
	// Root is the directory that contains .ai/ ("" for the embedded bundle).
	Root string
	// Label names the space in messages: "project", "user", "system",
	// or "system:<root>" for a RYE_SYSTEM_PATH root.
	Label string
	// Shown is Root as shown in messages: relative to the working directory
	// for the project (like git), else absolute.
	Shown string
	fsys  fs.FS // rooted at the .ai folder
	dir   aiDir // the .ai folder opened for openat2 (Linux)
	// layout is how the tree is read, found when first asked (Layout).
	layout layoutOnce
	// paths remembers the .ai folder's path on disk and as shown, for the
	// Root and Shown they were made from: a walk asks for them once per
	// file, and each was a filepath.Join.
	paths atomic.Pointer[aiPaths]
}

// aiPaths are a space's .ai folder on disk (ai) and as shown (shownAI),
// made from root and shown.
type aiPaths struct{ root, shown, ai, shownAI string }

// aiPaths returns the space's paths for its current Root and Shown (both
// exported fields, which a caller may set after making the space).
func (s *Space) aiPaths() *aiPaths {
	if p := s.paths.Load(); p != nil && p.root == s.Root && p.shown == s.Shown {
		return p
	}
	shown := s.Shown
	if shown == "" {
		shown = s.Root
	}
	p := &aiPaths{root: s.Root, shown: s.Shown, ai: filepath.Join(s.Root, AIDir), shownAI: filepath.Join(shown, AIDir)}
	s.paths.Store(p)
	return p
}

// Embedded reports whether the space is the bundle compiled into rye.
func (s *Space) Embedded() bool { return s.Root == "" }

// AI is the .ai folder's path on disk ("" for the embedded bundle).
func (s *Space) AI() string {
	if s.Embedded() {
		return ""
	}
	return s.aiPaths().ai
}

// DisplayPath is how a file of this space (rel is relative to .ai/, with
// '/') is shown to users: a path on disk, or "<system>/.ai/..." for the
// embedded bundle.
func (s *Space) DisplayPath(rel string) string {
	if s.Embedded() {
		return "<system>/" + AIDir + "/" + rel
	}
	if fs.ValidPath(rel) && rel != "." {
		// Clean already (what walks give, ten thousand at a time): joined
		// to the .ai folder's path as shown, made once.
		return s.aiPaths().shownAI + string(filepath.Separator) + filepath.FromSlash(rel)
	}
	root := s.Shown
	if root == "" {
		root = s.Root
	}
	return filepath.Join(root, AIDir, filepath.FromSlash(rel))
}

// ShownRootPath is how a file of the space's root folder (rel, '/'-separated,
// relative to the root, not to .ai/) is shown to users.
func (s *Space) ShownRootPath(rel string) string {
	root := s.Shown
	if root == "" {
		root = s.Root
	}
	return filepath.Join(root, filepath.FromSlash(rel))
}

// NewDiskSpace makes a space of a directory that contains (or will contain)
// .ai/.
func NewDiskSpace(name Name, root, label string) *Space {
	if label == "" {
		label = string(name)
	}
	return &Space{Name: name, Root: root, Label: label, fsys: os.DirFS(filepath.Join(root, AIDir))}
}

// Errors of resolution and reading. Callers match them with errors.Is.
var (
	ErrNotFound = errors.New("not found")
	ErrSymlink  = errors.New("is a symbolic link; rye refuses symbolic links inside .ai/")
	ErrTooLarge = fmt.Errorf("is larger than %d bytes", MaxItemSize)
	ErrNotFile  = errors.New("is not a regular file")
)

// PathError is a refused or failed file in a space.
type PathError struct {
	Path string
	Err  error
}

func (e *PathError) Error() string { return e.Path + ": " + e.Err.Error() }
func (e *PathError) Unwrap() error { return e.Err }

// errNotFolder is a path component that should be a folder and is not.
var errNotFolder = errors.New("is not a folder")

// MkdirNoSymlinks makes the missing folders of rel (slash-separated,
// relative to base) one by one, outermost first, and refuses a component
// that is a symbolic link or not a folder, so that a link planted inside
// .ai/ cannot make rye write elsewhere. It returns the folders it made
// (outermost first), also when it fails part way, so that a caller can
// remove them again.
func MkdirNoSymlinks(base, rel string) (made []string, err error) {
	dir := base
	for _, part := range strings.Split(rel, "/") {
		dir = filepath.Join(dir, part)
		info, err := os.Lstat(dir)
		if errors.Is(err, fs.ErrNotExist) {
			if err := os.Mkdir(dir, 0o755); err != nil {
				return made, err // a link put there since fails here too
			}
			made = append(made, dir)
			continue
		}
		if err != nil {
			return made, err
		}
		if err := refuseOnDisk(dir, info, true); err != nil {
			return made, err
		}
	}
	return made, nil
}

// CheckNoSymlinks refuses the file rel (slash-separated, relative to root)
// when a component of it that exists is a symbolic link, a folder on the
// way is not a folder, or the file exists and is not a regular file. A
// missing component ends the check: nothing exists below it.
func CheckNoSymlinks(root, rel string) error {
	parts := strings.Split(rel, "/")
	p := root
	for i, part := range parts {
		p = filepath.Join(p, part)
		info, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := refuseOnDisk(p, info, i < len(parts)-1); err != nil {
			return err
		}
	}
	return nil
}

// refuseOnDisk says why the existing path p (described by info, from
// Lstat) cannot be walked through or written: a symbolic link, or not a
// folder (folder) or not a regular file (!folder).
func refuseOnDisk(p string, info fs.FileInfo, folder bool) error {
	switch {
	case info.Mode()&fs.ModeSymlink != 0:
		return &PathError{Path: p, Err: ErrSymlink}
	case folder && !info.IsDir():
		return &PathError{Path: p, Err: errNotFolder}
	case !folder && !info.Mode().IsRegular():
		return &PathError{Path: p, Err: ErrNotFile}
	}
	return nil
}

// Rel is the path of an item file relative to .ai/.
func Rel(k item.Kind, id item.ID, ext string) string {
	return k.Folder() + "/" + string(id) + ext
}

// lstatChain checks every component of rel (relative to .ai/) without
// following symbolic links, so that neither the file nor a folder above it
// can be a link that leads elsewhere.
func (s *Space) lstatChain(rel string) (fs.FileInfo, error) {
	parts := strings.Split(rel, "/")
	var info fs.FileInfo
	for i := range parts {
		var err error
		info, err = fs.Lstat(s.fsys, strings.Join(parts[:i+1], "/"))
		if err != nil {
			return nil, err
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			return nil, &PathError{Path: s.DisplayPath(strings.Join(parts[:i+1], "/")), Err: ErrSymlink}
		}
	}
	return info, nil
}

// StatData returns the stat data of the file rel (clean, '/'-separated,
// relative to .ai/) of a space on disk, not following a link at its end,
// and whether it is a regular file; complete is as for filestat.Of. It
// builds no fs.FileInfo, and on Linux resolves only the path below .ai/
// (fstatat on the folder the space reads its files through): a warm
// verify does this for every file.
func (s *Space) StatData(rel string) (st filestat.Stat, regular, complete bool, err error) {
	if s.Embedded() {
		return filestat.Stat{}, false, false, &PathError{Path: rel, Err: errors.New("the system space has no files on disk")}
	}
	if st, regular, ok, err := s.statData(rel); ok {
		return st, regular, err == nil, err
	}
	return filestat.Lstat(s.AI() + string(filepath.Separator) + filepath.FromSlash(rel))
}

// Stat returns the file info of rel if it is a regular file and no component
// of its path is a symbolic link.
func (s *Space) Stat(rel string) (fs.FileInfo, error) {
	if !fs.ValidPath(rel) {
		return nil, &PathError{Path: rel, Err: errors.New("leaves its space")}
	}
	info, err := s.lstatChain(rel)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, &PathError{Path: s.DisplayPath(rel), Err: ErrNotFile}
	}
	return info, nil
}

// ReadFile reads a file of the space (rel relative to .ai/), refusing
// symbolic links and files over MaxItemSize.
func (s *Space) ReadFile(rel string) ([]byte, error) {
	if !fs.ValidPath(rel) {
		return nil, &PathError{Path: rel, Err: errors.New("leaves its space")}
	}
	f, err := s.open(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, &PathError{Path: s.DisplayPath(rel), Err: err}
	}
	if !info.Mode().IsRegular() {
		return nil, &PathError{Path: s.DisplayPath(rel), Err: ErrNotFile}
	}
	if info.Size() > MaxItemSize {
		return nil, &PathError{Path: s.DisplayPath(rel), Err: ErrTooLarge}
	}
	data, err := ReadAtMost(f, info.Size())
	if err != nil {
		return nil, &PathError{Path: s.DisplayPath(rel), Err: err}
	}
	return data, nil
}

// ReadAtMost reads r to its end into one buffer of the size the file's
// stat gave (one more byte, to see EOF), growing it only for a file that
// grew since (a negative size is not known); more than MaxItemSize bytes is ErrTooLarge. Reading into
// the exact size, where io.ReadAll grows from 512 bytes and copies, halves
// the memory a whole-tree run allocates (a 2 KiB item cost 4.5 KiB).
func ReadAtMost(r io.Reader, size int64) ([]byte, error) {
	switch {
	case size < 0: // not known
		size = 512
	case size > MaxItemSize:
		size = MaxItemSize
	}
	data := make([]byte, 0, size+1)
	for {
		n, err := r.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if len(data) > MaxItemSize {
			return nil, ErrTooLarge
		}
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return nil, err
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
	}
}

// errLinkOnPath is a path below .ai/ that openNoLinks refused for a
// symbolic link on it (which one, lstatChain then says).
var errLinkOnPath = errors.New("a symbolic link on the path")

// open opens rel below .ai/ without following a symbolic link anywhere on
// the path: in one openat2 call on Linux, else by checking each component
// first (Stat), as the embedded bundle and other systems do.
func (s *Space) open(rel string) (fs.File, error) {
	if !s.Embedded() {
		f, ok, err := s.openNoLinks(rel)
		if ok {
			if errors.Is(err, errLinkOnPath) {
				if _, lerr := s.lstatChain(rel); lerr != nil {
					return nil, lerr // names the link
				}
				return nil, &PathError{Path: s.DisplayPath(rel), Err: ErrSymlink}
			}
			if err != nil {
				return nil, err
			}
			return f, nil
		}
	}
	if _, err := s.Stat(rel); err != nil {
		return nil, err
	}
	return s.fsys.Open(rel)
}

// ReadRegularFile reads a file rye finds in a tree it does not control (a
// destination folder, a record a change could have written): it must be a
// regular file (a FIFO would block, a device never end) of at most
// MaxItemSize bytes (ErrTooLarge otherwise). Links are not followed.
func ReadRegularFile(p string) ([]byte, error) {
	info, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if info.Mode()&fs.ModeSymlink != 0 {
		return nil, &PathError{Path: p, Err: ErrSymlink}
	}
	if !info.Mode().IsRegular() {
		return nil, &PathError{Path: p, Err: errNotRegular}
	}
	if info.Size() > MaxItemSize {
		return nil, &PathError{Path: p, Err: ErrTooLarge}
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := ReadAtMost(f, info.Size())
	if err != nil {
		return nil, &PathError{Path: p, Err: err}
	}
	return data, nil
}

// errNotRegular is a path that is a folder, a FIFO, a device or a socket.
var errNotRegular = errors.New("is not a regular file")

// Find returns the file of (kind, id) in this space: the first extension of
// the kind, in the fixed order of spec 1.3, that is a regular file. A
// symbolic link stops the search with an error rather than being skipped, so
// that a link cannot be used to make a different file win.
func (s *Space) Find(k item.Kind, id item.ID) (rel string, err error) {
	// The folders above the file are the same for every extension: check
	// them once, then each candidate file.
	base := Rel(k, id, "")
	if dir := path.Dir(base); dir != "." {
		info, err := s.lstatChain(dir)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) || (err == nil && !info.IsDir()) {
			return "", ErrNotFound
		}
		if err != nil {
			return "", err
		}
	}
	for _, ext := range k.Extensions() {
		rel := base + ext
		info, err := fs.Lstat(s.fsys, rel)
		switch {
		case err == nil && info.Mode()&fs.ModeSymlink != 0:
			return "", &PathError{Path: s.DisplayPath(rel), Err: ErrSymlink}
		case err == nil && info.Mode().IsRegular():
			return rel, nil
		case err == nil:
			return "", &PathError{Path: s.DisplayPath(rel), Err: ErrNotFile}
		case !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
			return "", err
		}
	}
	return "", ErrNotFound
}

// Load reads the item at rel (relative to .ai/) into an item.Item.
func (s *Space) Load(k item.Kind, id item.ID, rel string) (*item.Item, error) {
	data, err := s.ReadFile(rel)
	if err != nil {
		return nil, err
	}
	return &item.Item{Kind: k, ID: id, Space: string(s.Name), Path: s.DisplayPath(rel), Bytes: data}, nil
}

// KindAndID splits a path relative to .ai/ ("tools/rye/x.py") into kind, id
// and extension.
func KindAndID(rel string) (item.Kind, item.ID, string, error) {
	folder, rest, ok := strings.Cut(rel, "/")
	k, known := item.KindOfFolder(folder)
	if !ok || !known {
		return "", "", "", fmt.Errorf("%s is not inside .ai/directives, .ai/tools or .ai/knowledge", rel)
	}
	ext := path.Ext(rest)
	id, err := item.ParseID(strings.TrimSuffix(rest, ext))
	if err != nil {
		return "", "", "", err
	}
	return k, id, ext, nil
}

// FS returns the space's .ai folder as a read-only file system (for readers
// that need a whole folder, such as the trust store).
func (s *Space) FS() fs.FS { return s.fsys }
