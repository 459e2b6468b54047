package space

import (
	"bytes"
	"errors"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/ryekit/rye/item"
)

// Layout says whose rules a project's tree follows: rye's (and the
// February reference's: directives, tools and knowledge), or RyeOS 0.2+'s
// (fifteen kinds, spec 7.1). It decides which files a walk lists as
// items, the default signature format and which lint rules apply.
type Layout struct {
	// RyeOS is set for a RyeOS 0.2+ tree.
	RyeOS bool
	// Why says what showed it, for the reader: ".ai/node/", ".ai/manifest.yaml",
	// "the ryeos signature of .ai/tools/demo/greet.yaml".
	Why string
}

// Note is the line that tells the reader how rye reads the project ("" for
// rye's own layout).
func (l Layout) Note() string {
	if !l.RyeOS {
		return ""
	}
	return "RyeOS 0.2+ project (detected by " + l.Why + "): every kind is verified, and linted with RyeOS's own rules"
}

// probeLimit bounds how many item files Layout reads the first line of
// when the folders say nothing.
const probeLimit = 256

// layoutOnce is a space's layout, found when first asked.
type layoutOnce struct {
	once sync.Once
	l    Layout
}

// Layout is how the space's tree is read. Only a project space on disk can
// be a RyeOS 0.2+ tree (the user space and the system spaces are rye's).
// A project is one when its .ai/ folder holds a folder only RyeOS 0.2+
// has (node/, services/, handlers/, parsers/, protocols/, runtimes/,
// graphs/, clients/, surfaces/, views/) with an item of its kind in it, or
// a bundle manifest (manifest.yaml); otherwise when the first signed file
// of its directives/, tools/ and knowledge/ (in walk order, among the
// first 256 items of rye's layout) carries a ryeos signature. The answer
// is found once per space.
//
// The layout decides which files the gate verifies (rye's layout walks
// shell tools and tools/**/lib/, RyeOS's walks config/ and the other new
// kinds), and a change under review writes the tree it is read from. So
// whatever shows the layout is itself an item that the layout it shows
// verifies: a change cannot flip it with a file the gate then passes over
// (an empty node/ folder, a README in it, a .json decoy with a
// signature-looking line, hundreds of files rye's layout ignores), only
// with an item that must verify, signed by a trusted key.
func (s *Space) Layout() Layout {
	if s.Name != Project || s.Embedded() {
		return Layout{}
	}
	s.layout.once.Do(func() { s.layout.l = DetectLayout(layoutFS{s}) })
	return s.layout.l
}

// layoutFS reads a space's files for DetectLayout through the space, which
// refuses links on the way.
type layoutFS struct{ s *Space }

func (l layoutFS) Open(name string) (fs.File, error) {
	if info, err := fs.Lstat(l.s.fsys, name); err == nil && info.IsDir() {
		return l.s.fsys.Open(name)
	}
	return l.s.open(name)
}

func (l layoutFS) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(l.s.fsys, name) }

func (l layoutFS) Lstat(name string) (fs.FileInfo, error) { return fs.Lstat(l.s.fsys, name) }

func (l layoutFS) ReadLink(name string) (string, error) { return fs.ReadLink(l.s.fsys, name) }

// DetectLayout is the layout (Space.Layout) of the .ai folder fsys holds:
// a project's tree on disk, or the same folder at a git commit, so that a
// run under a trust ref can tell a change that switches how the project
// is read (and so which files the gate verifies) from one that does not.
func DetectLayout(fsys fs.FS) Layout {
	for _, folder := range item.RyeOSOnlyFolders {
		if holdsRyeOSItem(fsys, folder) {
			return Layout{RyeOS: true, Why: AIDir + "/" + folder + "/"}
		}
	}
	if info, err := fs.Lstat(fsys, item.ManifestRel); err == nil && info.Mode().IsRegular() {
		return Layout{RyeOS: true, Why: AIDir + "/" + item.ManifestRel}
	}
	// The first signed item file says which era the tree is in: a ryeos
	// signature on an item of RyeOS's layout, any other on an item of
	// rye's. Only items of rye's layout count toward the bound: rye's
	// layout, the answer when it is reached, verifies each of them.
	read := 0
	errStop := errors.New("stop")
	var found Layout
	for _, k := range item.Kinds {
		err := fs.WalkDir(fsys, k.Folder(), func(p string, d fs.DirEntry, err error) error {
			switch {
			case err != nil:
				return fs.SkipDir
			case d.IsDir() && hiddenName(d.Name()) && p != k.Folder():
				return fs.SkipDir
			case d.IsDir() || !d.Type().IsRegular() || hiddenName(d.Name()):
				return nil
			}
			ext := path.Ext(p)
			ryeItem := isItemPath(p)
			_, _, _, ryeosItem := item.RyeOSItemAt(p)
			if !ryeItem && !ryeosItem {
				return nil
			}
			if ryeItem {
				if read++; read > probeLimit {
					return errStop
				}
			}
			start := head(fsys, p)
			if !item.HasSignatureLine(start, ext) {
				return nil
			}
			if item.RustSigned(start, ext) && bytes.Contains(start, []byte("ryeos:signed:")) {
				if !ryeosItem {
					return nil // RyeOS's layout would not verify it
				}
				found = Layout{RyeOS: true, Why: "the ryeos signature of " + AIDir + "/" + p}
			} else if !ryeItem {
				return nil // rye's layout would not verify it
			}
			return errStop // the first signed item decides
		})
		if errors.Is(err, errStop) {
			return found
		}
	}
	return Layout{}
}

// holdsRyeOSItem reports whether the folder below .ai/ of a kind only
// RyeOS 0.2+ has holds a regular file that is one of that kind's items:
// a folder with nothing but hidden files, links or files of other forms
// (a .keep, a README) shows nothing.
func holdsRyeOSItem(fsys fs.FS, folder string) bool {
	k, ok := item.RyeOSKindOfFolder(folder)
	if info, err := fs.Lstat(fsys, folder); !ok || err != nil || !info.IsDir() {
		return false
	}
	errFound := errors.New("found")
	err := fs.WalkDir(fsys, folder, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			if p == folder {
				return err
			}
			return fs.SkipDir
		case p != folder && hiddenName(d.Name()):
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		case !d.Type().IsRegular():
			return nil
		}
		if kk, _, _, isItem := item.RyeOSItemAt(p); isItem && kk == k {
			return errFound
		}
		return nil
	})
	return errors.Is(err, errFound)
}

// head is the start of a file, enough to hold its signature line (after a
// #! line).
func head(fsys fs.FS, rel string) []byte {
	f, err := fsys.Open(rel)
	if err != nil {
		return nil
	}
	defer f.Close()
	buf := make([]byte, 2048)
	n, _ := f.Read(buf)
	return buf[:n]
}

// kindsFor are the kinds a walk of the space lists for kinds: nil is
// every kind the space holds (rye's three, or the fifteen of a RyeOS 0.2+
// tree and its bundle manifest).
func (s *Space) kindsFor(kinds []item.Kind) []item.Kind {
	if kinds != nil {
		return kinds
	}
	if s.Layout().RyeOS {
		return item.RyeOSKinds
	}
	return item.Kinds
}

// folderOf is the folder below .ai/ that holds kind k's items.
func folderOf(k item.Kind) string {
	if k.Valid() {
		return k.Folder()
	}
	return item.RyeOSFolder(k)
}

// IsItemPath reports whether rel (relative to .ai/) is an item file of the
// space's layout.
func (s *Space) IsItemPath(rel string) bool {
	if s.Layout().RyeOS {
		_, _, _, ok := item.RyeOSItemAt(rel)
		return ok
	}
	return isItemPath(rel)
}

// ItemAt is the kind and id of the item file rel (relative to .ai/) in the
// space's layout, ok false for a file that is not one.
func (s *Space) ItemAt(rel string) (item.Kind, item.ID, bool) {
	if s.Layout().RyeOS {
		k, id, _, ok := item.RyeOSItemAt(rel)
		return k, id, ok
	}
	k, id, ext, err := KindAndID(rel)
	return k, id, err == nil && k.HasExtension(ext)
}

// visitRyeOS classifies one entry of a walk of kind k's folder in a RyeOS
// 0.2+ tree (spec 7.1): an item; a symbolic link (refused, as everywhere);
// a file RyeOS does not read as an item (a support file below tools/**/lib/,
// another extension, such as the key material of config/keys/, and rye's
// own config/rye.yaml), which is an oddity that lint reads for secrets
// only; a folder to go into.
func (w *walker) visitRyeOS(s *Space, k item.Kind, p string, d fs.DirEntry, from string, deep bool) error {
	root := folderOf(k)
	name := d.Name()
	if p != root && hiddenName(name) {
		if d.IsDir() {
			return fs.SkipDir
		}
		return nil
	}
	kk, id, _, isItem := item.RyeOSItemAt(p)
	isItem = isItem && kk == k
	if d.Type()&fs.ModeSymlink != 0 {
		o := Oddity{Space: s, Kind: k, Rel: p, Reason: "symbolic link: rye refuses symbolic links inside .ai/", Symlink: true}
		if isItem {
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
	switch {
	case !d.Type().IsRegular():
		w.odd = append(w.odd, Oddity{Space: s, Kind: k, Rel: p, Reason: "not a regular file"})
	case isItem:
		w.found = append(w.found, Found{Space: s, Kind: k, ID: id, Rel: p})
	default:
		reason, support := notRyeOSItem(k, p)
		w.odd = append(w.odd, Oddity{Space: s, Kind: k, Rel: p, Support: support, Reason: reason})
	}
	return nil
}

// notRyeOSItem says why a file of kind k's folder is not one of its items,
// and whether RyeOS passes over it too (support: not a problem), which is
// so for all but a path that RyeOS would read and rye refuses as an id.
func notRyeOSItem(k item.Kind, rel string) (reason string, support bool) {
	rest := strings.TrimPrefix(rel, folderOf(k)+"/")
	parts := strings.Split(rest, "/")
	switch {
	case slices.ContainsFunc(parts[:len(parts)-1], func(p string) bool { return item.RyeOSExcluded(k, p) }):
		return "a support file of RyeOS tools (below lib/ or __pycache__/), not an item", true
	case k == item.Config && rest == "rye.yaml":
		return "rye's own configuration file, not a RyeOS config item", true
	case k == item.Config && strings.HasPrefix(rest, "keys/") && !item.RyeOSHasExtension(k, path.Ext(rest)):
		return "key material of RyeOS (config/keys/), not a config item", true
	}
	ext := path.Ext(rel)
	if _, err := item.ParseRyeOSID(strings.TrimSuffix(rest, ext)); err != nil && item.RyeOSHasExtension(k, ext) {
		return err.Error(), false
	}
	return "not a " + string(k) + " file form in RyeOS 0.2+ (it reads " + strings.Join(item.RyeOSExtensions(k), " ") + "): RyeOS passes over it", true
}

// walkManifest lists the bundle manifest, .ai/manifest.yaml, when there
// is one.
func (w *walker) walkManifest(s *Space) {
	info, err := fs.Lstat(s.fsys, item.ManifestRel)
	switch {
	case err != nil:
	case info.Mode()&fs.ModeSymlink != 0:
		w.odd = append(w.odd, Oddity{Space: s, Kind: item.BundleManifest, Rel: item.ManifestRel, Reason: "symbolic link: rye refuses symbolic links inside .ai/", Symlink: true, ID: "manifest"})
	case info.Mode().IsRegular():
		w.found = append(w.found, Found{Space: s, Kind: item.BundleManifest, ID: "manifest", Rel: item.ManifestRel})
	default:
		w.odd = append(w.odd, Oddity{Space: s, Kind: item.BundleManifest, Rel: item.ManifestRel, Reason: "not a regular file"})
	}
}
