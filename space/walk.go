package space

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ryekit/rye/internal/par"
	"github.com/ryekit/rye/item"
)

// Found is an item file found by walking a space.
type Found struct {
	Space *Space
	Kind  item.Kind
	ID    item.ID
	Rel   string // relative to .ai/
}

// Info returns the file's size and modification time without following
// links (one lstat, done only when asked: caches need it, verification does
// not). A walk keeps no directory entry per file: a tree of a hundred
// thousand items would hold them all.
func (f Found) Info() (fs.FileInfo, error) {
	if f.Space.Embedded() {
		return fs.Stat(f.Space.fsys, f.Rel)
	}
	return os.Lstat(filepath.Join(f.Space.AI(), filepath.FromSlash(f.Rel)))
}

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
	// Support is set for a file of a RyeOS 0.2+ tree that RyeOS passes
	// over too (a support file below tools/**/lib/, another extension):
	// not a problem, read for secrets only.
	Support bool
}

// Path is the file as shown to users.
func (o Oddity) Path() string { return o.Space.DisplayPath(o.Rel) }

// skipped are names that are never items and are passed over silently
// (spec 1.1), besides dotfiles.
var skipped = map[string]bool{"__pycache__": true, "node_modules": true}

// hiddenName reports a file or folder name that walks pass over: dotfiles
// and the folders of spec 1.1 that never hold items.
func hiddenName(name string) bool { return strings.HasPrefix(name, ".") || skipped[name] }

// Hidden reports a '/'-separated path (relative to .ai/) that a walk never
// reaches because one of its parts is hidden: what is read from git (the
// index, a commit) is filtered with it so that it selects what a walk of
// the working tree would.
func Hidden(rel string) bool {
	for part := range strings.SplitSeq(rel, "/") {
		if hiddenName(part) {
			return true
		}
	}
	return false
}

// Walk lists the items of the given kinds in the space, in lexical order,
// and the files in item folders that are not items. A kind whose folder is
// missing has no items. nil is every kind of the space's layout (the
// fifteen of a RyeOS 0.2+ tree and its bundle manifest, spec 7.1), whose
// rules then say what an item is.
func (s *Space) Walk(kinds []item.Kind) ([]Found, []Oddity, error) {
	w := walker{ryeos: s.Layout().RyeOS}
	for _, k := range s.kindsFor(kinds) {
		if k == item.BundleManifest {
			w.walkManifest(s)
			continue
		}
		if err := w.walk(s, k, "", true); err != nil {
			return nil, nil, err
		}
	}
	return w.found, w.odd, nil
}

// WalkEach is Walk for a caller that looks at each item once (rye verify
// over a whole tree): it hands the items to fn as they are found, at most
// size at a time, in Walk's order, and returns the symbolic links named
// like items (Selection.Links) when the walk is done. It holds neither
// the whole list of items nor the files that are not items, so a walk of
// a hundred thousand items needs the memory of size of them. A slice
// given to fn is fn's to keep; an error from fn ends the walk. It walks
// one folder at a time: a caller that overlaps the walk with its own work
// gets the parallelism Walk's folders had.
func (s *Space) WalkEach(kinds []item.Kind, size int, fn func(found []Found) error) (links []Oddity, err error) {
	w := walker{ryeos: s.Layout().RyeOS, emit: fn, size: max(size, 1)}
	for _, k := range s.kindsFor(kinds) {
		if k == item.BundleManifest {
			w.walkManifest(s)
		} else if err := w.walkFrom(s, k, folderOf(k), true); err != nil {
			return nil, err
		}
		if err := w.flush(0); err != nil {
			return nil, err
		}
	}
	if err := w.flush(1); err != nil {
		return nil, err
	}
	if len(w.odd) == 0 {
		return nil, nil
	}
	return w.odd, nil
}

// walker gathers what walks find.
type walker struct {
	found []Found
	odd   []Oddity
	ryeos bool // the space is a RyeOS 0.2+ tree (visitRyeOS)
	// emit, when set, takes the items found whenever size of them are
	// gathered (WalkEach), and only links named like items are kept of
	// the oddities.
	emit func([]Found) error
	size int
}

// flush hands the items found to emit once at least atLeast of them are
// gathered (0: the size), and keeps of the oddities only the links named
// like items; it does nothing for a walk without emit.
func (w *walker) flush(atLeast int) error {
	if w.emit == nil {
		return nil
	}
	if atLeast == 0 {
		atLeast = w.size
	}
	if len(w.odd) >= w.size || atLeast == 1 {
		links := w.odd[:0]
		for _, o := range w.odd {
			if o.Symlink && o.ID != "" {
				links = append(links, o)
			}
		}
		clear(w.odd[len(links):])
		w.odd = links
	}
	if len(w.found) < atLeast {
		return nil
	}
	found := w.found
	w.found = make([]Found, 0, w.size)
	return w.emit(found)
}

// walk lists kind k's folder from its subfolder dir ("" for the folder
// itself): everything below when deep, else dir's own files. A caller that
// starts below the folder has checked that the folders on the way are
// neither links nor hidden (start). A deep walk lists the folders below
// dir in parallel (directory reads are system calls that wait), and
// merges what they find in the order of one walk.
func (w *walker) walk(s *Space, k item.Kind, dir string, deep bool) error {
	root := folderOf(k)
	from := root
	if dir != "" {
		from = root + "/" + dir
	}
	if !deep {
		return w.walkFrom(s, k, from, false)
	}
	entries, err := fs.ReadDir(s.fsys, from)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	parts := make([]walker, len(entries))
	errs := make([]error, len(entries))
	par.For(len(entries), par.IO(), func(i int) {
		parts[i].ryeos = w.ryeos
		e := entries[i]
		p := from + "/" + e.Name()
		if e.IsDir() && e.Type()&fs.ModeSymlink == 0 && !hiddenName(e.Name()) {
			errs[i] = parts[i].walkFrom(s, k, p, true)
			return
		}
		errs[i] = parts[i].visit(s, k, p, e, p, true)
	})
	nf, no := 0, 0
	for i := range parts {
		nf, no = nf+len(parts[i].found), no+len(parts[i].odd)
	}
	w.found, w.odd = slices.Grow(w.found, nf), slices.Grow(w.odd, no)
	for i := range parts {
		if errs[i] != nil && !errors.Is(errs[i], fs.SkipDir) {
			return errs[i]
		}
		w.found = append(w.found, parts[i].found...)
		w.odd = append(w.odd, parts[i].odd...)
	}
	return nil
}

// walkFrom walks the folder from (a path below the space's .ai folder,
// inside kind k's folder).
func (w *walker) walkFrom(s *Space, k item.Kind, from string, deep bool) error {
	return fs.WalkDir(s.fsys, from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == from && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipDir
			}
			return err
		}
		if err := w.visit(s, k, p, d, from, deep); err != nil {
			return err
		}
		return w.flush(0)
	})
}

// visit classifies one entry of a walk of kind k's folder: an item, a file
// that is not one (an oddity), a link, a hidden name; for a folder, whether
// the walk goes into it.
func (w *walker) visit(s *Space, k item.Kind, p string, d fs.DirEntry, from string, deep bool) error {
	if w.ryeos {
		return w.visitRyeOS(s, k, p, d, from, deep)
	}
	root := k.Folder()
	name := d.Name()
	if p != root && hiddenName(name) {
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
		w.odd = append(w.odd, o)
		return nil
	}
	if d.IsDir() {
		if p != from && !deep {
			return fs.SkipDir
		}
		return nil
	}
	if !d.Type().IsRegular() {
		w.odd = append(w.odd, Oddity{Space: s, Kind: k, Rel: p, Reason: "not a regular file"})
		return nil
	}
	ext := path.Ext(name)
	if !k.HasExtension(ext) {
		w.odd = append(w.odd, Oddity{Space: s, Kind: k, Rel: p, Reason: unknownExtReason(k, ext)})
		return nil
	}
	id, err := item.ParseID(strings.TrimSuffix(p[len(root)+1:], ext))
	if err != nil {
		w.odd = append(w.odd, Oddity{Space: s, Kind: k, Rel: p, Reason: err.Error()})
		return nil
	}
	w.found = append(w.found, Found{Space: s, Kind: k, ID: id, Rel: p})
	return nil
}

// start reports how a walk of kind k's folder can start at its subfolder
// dir: ok when every folder from the kind's folder down to dir is a real,
// visible folder (a walk of the whole folder reaches dir's files);
// absent when one of them is missing or hidden (the walk finds nothing
// there); neither when one is a link or not a folder, where only a walk of
// the whole kind folder says what it is.
func (s *Space) start(k item.Kind, dir string) (ok, absent bool) {
	at := folderOf(k)
	for part := range strings.SplitSeq(dir, "/") {
		if hiddenName(part) {
			return false, true
		}
		entries, err := fs.ReadDir(s.fsys, at)
		if errors.Is(err, fs.ErrNotExist) {
			return false, true
		}
		if err != nil {
			return false, false
		}
		i, found := slices.BinarySearchFunc(entries, part, func(e fs.DirEntry, name string) int { return strings.Compare(e.Name(), name) })
		if !found {
			return false, true
		}
		if !entries[i].IsDir() || entries[i].Type()&fs.ModeSymlink != 0 {
			return false, false
		}
		at += "/" + part
	}
	return true, false
}

// walkFor lists what patterns can select among kinds (Walk's result, or
// part of it): a whole kind folder for a glob that starts there or when
// there are no patterns, else only the folders the patterns name (a file
// path's folder, an id's folder, a glob's fixed leading folders and the
// folder that holds them). One item
// named on the command line in a tree of a hundred thousand is found
// without walking them all.
func (s *Space) walkFor(kinds []item.Kind, pats []Pattern) ([]Found, []Oddity, error) {
	if len(pats) == 0 {
		return s.Walk(kinds)
	}
	w := walker{ryeos: s.Layout().RyeOS}
	// Each kind in the order of a whole walk: by path, folder by folder.
	byPath := func(a, b string) int { return slices.Compare(strings.Split(a, "/"), strings.Split(b, "/")) }
	for _, k := range s.kindsFor(kinds) {
		if k == item.BundleManifest {
			w.walkManifest(s) // one file: a pattern selects it or not
			continue
		}
		nf, no := len(w.found), len(w.odd)
		type target struct {
			dir  string
			deep bool
		}
		var targets []target
		whole := false
		for _, p := range pats {
			switch {
			case p.NotItem:
			case p.dir == "." || p.dir == k.Folder():
				whole = true
			case p.dir != "":
				if rest, ok := strings.CutPrefix(p.dir, k.Folder()+"/"); ok {
					targets = append(targets, target{dir: rest, deep: true})
				}
			case p.rel != "":
				if rest, ok := strings.CutPrefix(p.rel, folderOf(k)+"/"); ok {
					targets = append(targets, target{dir: dirOf(rest)})
				}
			case p.glob != "":
				fixed := []string{}
				segs := strings.Split(p.glob, "/")
				for _, seg := range segs[:len(segs)-1] {
					if strings.ContainsAny(seg, "*?[\\{") {
						break
					}
					fixed = append(fixed, seg)
				}
				if len(fixed) == 0 {
					whole = true
					break
				}
				// "D/**" also matches the id D itself (doublestar lets **
				// match nothing, and the separator before it too): the
				// folder that holds D's files is listed as well, or an
				// item named like the folder would escape the selection.
				d := strings.Join(fixed, "/")
				targets = append(targets, target{dir: d, deep: true}, target{dir: dirOf(d)})
			default:
				targets = append(targets, target{dir: dirOf(string(p.id))})
			}
		}
		// A folder on the way that is missing or hidden holds nothing; one
		// that is a link (or a file) is what only a whole walk reports.
		var live []target
		for _, t := range targets {
			if whole || t.dir == "" {
				live = append(live, t)
				continue
			}
			ok, absent := s.start(k, t.dir)
			switch {
			case absent:
			case ok:
				live = append(live, t)
			default:
				whole = true
			}
		}
		targets = live
		if whole {
			targets = []target{{deep: true}}
		}
		// Deep targets first, so that a folder a deep walk covers is not
		// listed again.
		slices.SortFunc(targets, func(a, b target) int {
			if a.deep != b.deep {
				if a.deep {
					return -1
				}
				return 1
			}
			return strings.Compare(a.dir, b.dir)
		})
		var done []target
		covered := func(t target) bool {
			for _, d := range done {
				if d.dir == t.dir && (d.deep || !t.deep) || d.deep && (d.dir == "" || strings.HasPrefix(t.dir, d.dir+"/")) {
					return true
				}
			}
			return false
		}
		for _, t := range targets {
			if covered(t) {
				continue
			}
			if err := w.walk(s, k, t.dir, t.deep); err != nil {
				return nil, nil, err
			}
			done = append(done, t)
		}
		slices.SortStableFunc(w.found[nf:], func(a, b Found) int { return byPath(a.Rel, b.Rel) })
		slices.SortStableFunc(w.odd[no:], func(a, b Oddity) int { return byPath(a.Rel, b.Rel) })
	}
	return w.found, w.odd, nil
}

// dirOf is a '/'-separated path's folder ("" for none).
func dirOf(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
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

// IDs lists the ids of the given kinds found in the spaces in, that start
// with prefix and that skip (nil: none) does not leave out, without
// duplicates, in order (shell completion). A space that cannot be walked
// adds nothing.
func IDs(in []*Space, kinds []item.Kind, prefix string, skip func(item.Kind, item.ID) bool) []string {
	seen := map[string]bool{}
	var out []string
	for _, sp := range in {
		found, _, err := sp.Walk(kinds)
		if err != nil {
			continue
		}
		for _, f := range found {
			id := string(f.ID)
			if strings.HasPrefix(id, prefix) && !seen[id] && (skip == nil || !skip(f.Kind, f.ID)) {
				seen[id] = true
				out = append(out, id)
			}
		}
	}
	return out
}
