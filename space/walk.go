package space

import (
	"errors"
	"io/fs"
	"path"
	"strings"

	"github.com/ryekit/rye/item"
)

// Found is an item file found by walking a space.
type Found struct {
	Space *Space
	Kind  item.Kind
	ID    item.ID
	Rel   string // relative to .ai/
	entry fs.DirEntry
}

// Info returns the file's size and modification time without following
// links (one lstat, done only when asked: caches need it, verification does
// not).
func (f Found) Info() (fs.FileInfo, error) { return f.entry.Info() }

// Path is the file as shown to users.
func (f Found) Path() string { return f.Space.DisplayPath(f.Rel) }

// Load reads the item.
func (f Found) Load() (*item.Item, error) { return f.Space.Load(f.Kind, f.ID, f.Rel) }

// Oddity is a file in an item folder that is not an item: lint reports it.
type Oddity struct {
	Space  *Space
	Kind   item.Kind
	Rel    string
	Reason string
	// Symlink is true for a symbolic link (an error, not a warning).
	Symlink bool
	// ID is the item id the path would have, when it is a valid item path
	// (a symbolic link named like an item is refused, not ignored).
	ID item.ID
}

// Path is the file as shown to users.
func (o Oddity) Path() string { return o.Space.DisplayPath(o.Rel) }

// skipped are names that are never items and are passed over silently
// (spec 1.1), besides dotfiles.
var skipped = map[string]bool{"__pycache__": true, "node_modules": true}

// HiddenName reports a file or folder name that walks pass over: dotfiles
// and the folders of spec 1.1 that never hold items.
func HiddenName(name string) bool { return strings.HasPrefix(name, ".") || skipped[name] }

// Hidden reports a '/'-separated path (relative to .ai/) that a walk never
// reaches because one of its parts is hidden: what is read from git (the
// index, a commit) is filtered with it so that it selects what a walk of
// the working tree would.
func Hidden(rel string) bool {
	for part := range strings.SplitSeq(rel, "/") {
		if HiddenName(part) {
			return true
		}
	}
	return false
}

// Walk lists the items of the given kinds in the space, in lexical order,
// and the files in item folders that are not items. A kind whose folder is
// missing has no items.
func (s *Space) Walk(kinds []item.Kind) ([]Found, []Oddity, error) {
	var found []Found
	var odd []Oddity
	for _, k := range kinds {
		root := k.Folder()
		err := fs.WalkDir(s.fsys, root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if p == root && errors.Is(err, fs.ErrNotExist) {
					return fs.SkipDir
				}
				return err
			}
			name := d.Name()
			if p != root && HiddenName(name) {
				if d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if d.Type()&fs.ModeSymlink != 0 {
				o := Oddity{Space: s, Kind: k, Rel: p, Reason: "symbolic link: rye refuses symbolic links inside .ai/", Symlink: true}
				if kk, id, ext, err := KindAndID(p); err == nil && kk.HasExtension(ext) {
					o.ID = id
				}
				odd = append(odd, o)
				return nil
			}
			if d.IsDir() {
				return nil
			}
			if !d.Type().IsRegular() {
				odd = append(odd, Oddity{Space: s, Kind: k, Rel: p, Reason: "not a regular file"})
				return nil
			}
			ext := path.Ext(name)
			if !k.HasExtension(ext) {
				odd = append(odd, Oddity{Space: s, Kind: k, Rel: p, Reason: unknownExtReason(k, ext)})
				return nil
			}
			id, err := item.ParseID(strings.TrimSuffix(p[len(root)+1:], ext))
			if err != nil {
				odd = append(odd, Oddity{Space: s, Kind: k, Rel: p, Reason: err.Error()})
				return nil
			}
			found = append(found, Found{Space: s, Kind: k, ID: id, Rel: p, entry: d})
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
	}
	return found, odd, nil
}

func unknownExtReason(k item.Kind, ext string) string {
	if ext == ".json" {
		return "JSON cannot carry an embedded signature line (it has no comments): convert it to YAML (.yaml)"
	}
	if ext == "" {
		return "a file without an extension is not a " + string(k) + " (expected one of " + strings.Join(k.Extensions(), " ") + ")"
	}
	return ext + " is not a " + string(k) + " file form (expected one of " + strings.Join(k.Extensions(), " ") + ")"
}
