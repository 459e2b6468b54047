package lint

import (
	"errors"
	"io/fs"
	"path"
	"strings"

	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/space"
)

// load gathers the files of kinds in space sp that patterns select (all
// when there are none) into an Env: the items, the symbolic links named like items,
// and, without patterns, the oddities of the item folders and every other
// file under .ai/ (for the secrets analyzer). Files are read when Lint
// gets to them, a chunk at a time.
func load(ss *space.Spaces, sp *space.Space, kinds []item.Kind, patterns []string, cwd string) (*Env, error) {
	sel, err := space.Select(sp, kinds, patterns, cwd)
	if err != nil {
		return nil, err
	}
	extractors, err := ss.Extractors()
	if err != nil {
		return nil, err
	}
	e := &Env{Spaces: ss, Extractors: extractors, selection: sel}
	for _, f := range sel.Items {
		e.Files = append(e.Files, diskFile(&file{Name: f.Path(), Space: sp, Rel: f.Rel, Kind: f.Kind, ID: f.ID}))
	}
	for _, l := range sel.Links {
		l := l
		e.Files = append(e.Files, &file{Name: l.Path(), Space: sp, Rel: l.Rel, Kind: l.Kind, ID: l.ID, Oddity: &l})
	}
	if len(patterns) == 0 {
		odd, others, err := loadExtras(sp, kinds)
		if err != nil {
			return nil, err
		}
		e.Files = append(e.Files, odd...)
		e.Others = others
	}
	return e, nil
}

// loadExtras gathers what a whole-space lint looks at besides the
// items: the oddities of the item folders (files that are not items; the
// symbolic links named like items are left to the item selection) and,
// when every kind is linted, every other file under .ai/ (for the secrets
// analyzer). rye check uses it alone, since it already read the items for
// verification.
func loadExtras(sp *space.Space, kinds []item.Kind) (oddities, others []*file, err error) {
	_, odd, err := sp.Walk(kinds)
	if err != nil {
		return nil, nil, err
	}
	for _, o := range odd {
		if o.Symlink && o.ID != "" {
			continue // among the selection's links
		}
		o := o
		f := &file{Name: o.Path(), Space: sp, Rel: o.Rel, Kind: o.Kind, Oddity: &o}
		if !o.Symlink { // a link keeps no content: it is not followed
			diskFile(f)
		}
		oddities = append(oddities, f)
	}
	if kinds == nil || len(kinds) == len(item.Kinds) {
		if others, err = otherFiles(sp); err != nil {
			return nil, nil, err
		}
	}
	return oddities, others, nil
}

// otherFiles lists the regular files under .ai/ outside the item folders.
func otherFiles(sp *space.Space) ([]*file, error) {
	var out []*file
	ryeos := sp.Layout().RyeOS
	err := fs.WalkDir(sp.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == "." && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipDir
			}
			return err
		}
		top, _, _ := strings.Cut(p, "/")
		if _, isItemFolder := item.KindOfFolder(top); isItemFolder || ryeos && isRyeOSFolder(top) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && path.Base(p) != ".gitattributes" {
			out = append(out, diskFile(&file{Name: sp.DisplayPath(p), Space: sp, Rel: p}))
		}
		return nil
	})
	return out, err
}

// diskFile sets f to be read from its space when its chunk is linted.
func diskFile(f *file) *file {
	sp, rel := f.Space, f.Rel
	f.read = func() ([]byte, error) { return sp.ReadFile(rel) }
	return f
}

// isRyeOSFolder reports a folder that holds items in a ryeOS 0.2+ tree.
func isRyeOSFolder(folder string) bool {
	_, ok := item.RyeOSKindOfFolder(folder)
	return ok
}
