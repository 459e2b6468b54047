package space

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/ryekit/rye/item"
)

// Pattern is one command-line pattern (spec 4.1):
//   - a file path (as pre-commit passes them: it contains ".ai/", starts
//     with "./", "../" or "/", or names an existing file with an item
//     extension), relative to the working directory;
//   - a folder (a path as above, or ".", ".." or a path ending in "/",
//     that names an existing folder): every item below it;
//   - a glob, when it contains * ? or [: '*' and '?' match within one id
//     segment, '**' any number of segments ("my-project/**");
//   - otherwise an id.
type Pattern struct {
	Text string
	rel  string // file path: relative to .ai/
	dir  string // folder: relative to .ai/, "." for all of it
	glob string
	id   item.ID
	// NotItem is set for a path under .ai/ that is not an item file
	// (configuration, trusted keys, lockfiles): pre-commit passes every
	// staged file, and those are skipped, not errors.
	NotItem bool
}

// ParsePatterns reads patterns for space sp, resolving file paths against
// cwd. A path outside the space or an invalid id or glob is an error.
func ParsePatterns(sp *Space, patterns []string, cwd string) ([]Pattern, error) {
	var out []Pattern
	for _, p := range patterns {
		pat := Pattern{Text: p}
		switch {
		case IsFolderPattern(p, cwd):
			dir, err := folderInSpace(sp, p, cwd)
			if err != nil {
				return nil, err
			}
			pat.dir = dir
		case isPathPattern(p, cwd):
			rel, err := relToSpace(sp, p, cwd)
			if err != nil {
				return nil, err
			}
			pat.rel = rel
			pat.NotItem = !sp.IsItemPath(rel)
		case strings.ContainsAny(p, "*?["):
			if !doublestar.ValidatePattern(p) {
				return nil, fmt.Errorf("invalid pattern %q", p)
			}
			pat.glob = p
		default:
			parse := item.ParseID
			if sp.Layout().RyeOS {
				parse = item.ParseRyeOSID // RyeOS's ids are its paths
			}
			id, err := parse(p)
			if err != nil {
				return nil, err
			}
			pat.id = id
		}
		out = append(out, pat)
	}
	return out, nil
}

// IsName reports whether the pattern is an id or a glob (not a path or a
// folder).
func (p Pattern) IsName() bool { return p.glob != "" || p.id != "" }

// IsFolder reports whether the pattern is a folder.
func (p Pattern) IsFolder() bool { return p.dir != "" }

// Match reports whether an item file (kind, id, path relative to .ai/)
// is selected by the pattern.
func (p Pattern) Match(k item.Kind, id item.ID, rel string) bool {
	switch {
	case p.NotItem:
		return false
	case p.dir != "":
		return p.dir == "." || strings.HasPrefix(rel, p.dir+"/")
	case p.rel != "":
		return p.rel == rel
	case p.glob != "":
		ok, _ := doublestar.Match(p.glob, string(id))
		return ok
	}
	return p.id == id
}

// Selection is what patterns picked in a space.
type Selection struct {
	Space *Space // the space selected in
	Items []Found
	// Links are symbolic links named like items that the patterns select:
	// refused (signing fails, verification says unreadable), never ignored.
	Links []Oddity
	// Skipped are patterns naming files under .ai/ that are not items.
	Skipped []string
}

// Select returns the items of kinds in space sp that the patterns select
// (all of them when there are no patterns), in walk order, each once. A
// pattern that matches nothing is an error: a typo must not silently sign
// or verify nothing.
func Select(sp *Space, kinds []item.Kind, patterns []string, cwd string) (*Selection, error) {
	pats, err := ParsePatterns(sp, patterns, cwd)
	if err != nil {
		return nil, err
	}
	sel, matched, err := selectIn(sp, kinds, pats)
	if err != nil {
		return nil, err
	}
	for i, p := range pats {
		if !matched[i] && !p.NotItem {
			return nil, noMatch(sp, kinds, p)
		}
	}
	return sel, nil
}

// SelectAll is Select over several spaces (rye verify --space all): each
// pattern must match in at least one of the spaces, not in each of them.
// A pattern that matches nowhere is the error Select gives for it in the
// first space where it could be read.
func SelectAll(spaces []*Space, kinds []item.Kind, patterns []string, cwd string) ([]*Selection, error) {
	matched := make([]bool, len(patterns))
	why := make([]error, len(patterns))
	var out []*Selection
	for _, sp := range spaces {
		var pats []Pattern
		var index []int // pats[j] is patterns[index[j]]
		for i, text := range patterns {
			ps, err := ParsePatterns(sp, []string{text}, cwd)
			if err != nil {
				if why[i] == nil {
					why[i] = err
				}
				continue
			}
			pats = append(pats, ps[0])
			index = append(index, i)
		}
		if len(patterns) > 0 && len(pats) == 0 {
			continue // none of the patterns can be read in this space
		}
		sel, hits, err := selectIn(sp, kinds, pats)
		if err != nil {
			return nil, err
		}
		for j, hit := range hits {
			i := index[j]
			switch {
			case hit || pats[j].NotItem:
				matched[i] = true
			case why[i] == nil:
				why[i] = noMatch(sp, kinds, pats[j])
			}
		}
		out = append(out, sel)
	}
	for i := range patterns {
		if !matched[i] {
			return nil, why[i]
		}
	}
	return out, nil
}

// selectIn selects in one space and says which patterns matched.
// Patterns that each name one item (ids, file paths) look at those files
// only (findExact); the others walk the folders they name (walkFor).
func selectIn(sp *Space, kinds []item.Kind, pats []Pattern) (*Selection, []bool, error) {
	found, odd, exact := sp.findExact(kinds, pats)
	if !exact {
		var err error
		if found, odd, err = sp.walkFor(kinds, pats); err != nil {
			return nil, nil, err
		}
	}
	sel := &Selection{Space: sp}
	matched := make([]bool, len(pats))
	if len(pats) == 0 { // everything: the walk's own lists
		sel.Items = found
		for _, o := range odd {
			if o.Symlink && o.ID != "" {
				sel.Links = append(sel.Links, o)
			}
		}
		return sel, matched, nil
	}
	selects := func(k item.Kind, id item.ID, rel string) bool {
		hit := len(pats) == 0
		for i, p := range pats {
			if p.Match(k, id, rel) {
				matched[i], hit = true, true
			}
		}
		return hit
	}
	for _, f := range found {
		if selects(f.Kind, f.ID, f.Rel) {
			sel.Items = append(sel.Items, f)
		}
	}
	for _, o := range odd {
		if o.Symlink && o.ID != "" && selects(o.Kind, o.ID, o.Rel) {
			sel.Links = append(sel.Links, o)
		}
	}
	for _, p := range pats {
		if p.NotItem {
			sel.Skipped = append(sel.Skipped, p.Text)
		}
	}
	return sel, matched, nil
}

// NotItems is the error of a selection the user made whose patterns name
// files that are not items (the configuration, a trusted key): a gate
// asked about them must not pass having checked nothing. A change's file
// list (a pre-commit hook's, --staged, --changed-since) skips them
// instead: a commit that touches only a trusted key is not blocked.
func (sel *Selection) NotItems() error {
	switch len(sel.Skipped) {
	case 0:
		return nil
	case 1:
		return fmt.Errorf("%s is not an item (a directive, tool or knowledge file): rye checks and signs items; name items, their folder, or nothing for every item", sel.Skipped[0])
	}
	return fmt.Errorf("%s and %d more are not items (directive, tool or knowledge files): rye checks and signs items; name items, their folder, or nothing for every item", sel.Skipped[0], len(sel.Skipped)-1)
}

func noMatch(sp *Space, kinds []item.Kind, p Pattern) error {
	what := "item"
	if len(kinds) == 1 {
		what = string(kinds[0])
	}
	switch {
	case p.dir != "":
		return fmt.Errorf("the folder %s holds no %s", p.Text, what)
	case p.rel != "":
		if _, err := sp.Stat(p.rel); err != nil {
			return err
		}
		return fmt.Errorf("%s is not a %s file", p.Text, what)
	case p.glob != "":
		return fmt.Errorf("no %s in the %s space matches %q", what, sp.Name, p.Text)
	}
	return fmt.Errorf("no %s %q in the %s space", what, p.Text, sp.Name)
}

// IsFolderPattern reports whether a pattern names a folder, whose items it
// selects: ".", "..", or a path (one that ends in "/", or that
// isPathPattern reads as a path, or ".ai") naming an existing folder. A
// bare word that is also a folder's name stays an id: ids come first.
func IsFolderPattern(p, cwd string) bool {
	slash := filepath.ToSlash(p)
	if !(slash == "." || slash == ".." || slash == ".ai" || strings.HasSuffix(slash, "/") || isPathPattern(p, cwd)) {
		return false
	}
	abs := p
	if !filepath.IsAbs(p) {
		abs = filepath.Join(cwd, p)
	}
	info, err := os.Stat(abs)
	return err == nil && info.IsDir()
}

// folderInSpace maps a folder to a folder relative to the space's .ai/:
// "." when the folder is the .ai/ folder or holds it (the space's root,
// or a folder above it).
func folderInSpace(sp *Space, p, cwd string) (string, error) {
	if sp.Embedded() {
		return "", fmt.Errorf("%s: the system space has no files on disk", p)
	}
	abs, err := absPath(p, cwd)
	if err != nil {
		return "", err
	}
	if Within(abs, sp.AI()) {
		return ".", nil
	}
	rel, err := filepath.Rel(sp.AI(), abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%s is not inside %s", p, sp.AI())
	}
	return filepath.ToSlash(rel), nil
}

// isPathPattern decides whether a pattern names a file rather than an id.
func isPathPattern(p, cwd string) bool {
	slash := filepath.ToSlash(p)
	if strings.Contains("/"+slash, "/.ai/") || strings.HasPrefix(slash, "./") || strings.HasPrefix(slash, "../") || filepath.IsAbs(p) {
		return true
	}
	ext := filepath.Ext(p)
	for _, k := range item.Kinds {
		if k.HasExtension(ext) {
			info, err := os.Stat(filepath.Join(cwd, p))
			return err == nil && info.Mode().IsRegular()
		}
	}
	return false
}

// relToSpace maps a file path to a path relative to the space's .ai/.
func relToSpace(sp *Space, p, cwd string) (string, error) {
	if sp.Embedded() {
		return "", fmt.Errorf("%s: the system space has no files on disk", p)
	}
	abs, err := absPath(p, cwd)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(sp.AI(), abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%s is not inside %s", p, sp.AI())
	}
	return filepath.ToSlash(rel), nil
}

// absPath is path p of the command line (relative to cwd) made absolute.
func absPath(p, cwd string) (string, error) {
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	return filepath.Abs(p)
}

// isItemPath reports whether a path relative to .ai/ names an item file:
// inside an item folder, not a dotfile or in a skipped folder, with a file
// form of its kind and a valid id.
func isItemPath(rel string) bool {
	for _, part := range strings.Split(rel, "/") {
		if strings.HasPrefix(part, ".") || skipped[part] {
			return false
		}
	}
	k, _, ext, err := KindAndID(rel)
	return err == nil && k.HasExtension(ext)
}
