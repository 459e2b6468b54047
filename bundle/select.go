package bundle

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/ryekit/rye/item"
)

// Selection is what command-line patterns picked in a space.
type Selection struct {
	Items []Found
	// Skipped are file paths under .ai/ that are not items (configuration,
	// trusted keys, lockfiles): pre-commit passes every staged file, and
	// those are not errors.
	Skipped []string
}

// Select resolves patterns to the items of kinds in space sp (spec 4.1):
//   - a file path (as pre-commit passes them: it contains ".ai/", starts
//     with "./", "../" or "/", or names an existing file with an item
//     extension), relative to cwd;
//   - a glob, when it contains * ? or [: '*' and '?' match within one id
//     segment, '**' any number of segments ("my-project/**");
//   - otherwise an id.
//
// Each item is listed once, in the order found. A pattern that matches
// nothing is an error: a typo must not silently sign or verify nothing.
func Select(sp *Space, kinds []item.Kind, patterns []string, cwd string) (*Selection, error) {
	sel := &Selection{}
	seen := map[string]bool{}
	add := func(f Found) {
		if key := f.Rel; !seen[key] {
			seen[key] = true
			sel.Items = append(sel.Items, f)
		}
	}
	var walked []Found
	walkedOnce := false
	walk := func() ([]Found, error) {
		if !walkedOnce {
			found, _, err := sp.Walk(kinds)
			if err != nil {
				return nil, err
			}
			walked, walkedOnce = found, true
		}
		return walked, nil
	}
	for _, p := range patterns {
		switch {
		case isPathPattern(p, cwd):
			f, ok, err := selectPath(sp, kinds, p, cwd)
			if err != nil {
				return nil, err
			}
			if !ok {
				sel.Skipped = append(sel.Skipped, p)
				continue
			}
			add(f)
		case strings.ContainsAny(p, "*?["):
			if !doublestar.ValidatePattern(p) {
				return nil, fmt.Errorf("invalid pattern %q", p)
			}
			found, err := walk()
			if err != nil {
				return nil, err
			}
			n := 0
			for _, f := range found {
				if ok, _ := doublestar.Match(p, string(f.ID)); ok {
					add(f)
					n++
				}
			}
			if n == 0 {
				return nil, fmt.Errorf("no %s in the %s space matches %q", kindsText(kinds), sp.Name, p)
			}
		default:
			id, err := item.ParseID(p)
			if err != nil {
				return nil, err
			}
			n := 0
			for _, k := range kinds {
				rel, err := sp.Find(k, id)
				if errors.Is(err, ErrNotFound) {
					continue
				}
				if err != nil {
					return nil, err
				}
				add(Found{Space: sp, Kind: k, ID: id, Rel: rel})
				n++
			}
			if n == 0 {
				return nil, fmt.Errorf("no %s %q in the %s space", kindsText(kinds), p, sp.Name)
			}
		}
	}
	return sel, nil
}

func kindsText(kinds []item.Kind) string {
	if len(kinds) == 1 {
		return string(kinds[0])
	}
	return "item"
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

// selectPath maps a file path to an item of sp. ok is false for a file
// under .ai/ that is not an item (skipped, not an error).
func selectPath(sp *Space, kinds []item.Kind, p, cwd string) (Found, bool, error) {
	if sp.Embedded() {
		return Found{}, false, fmt.Errorf("%s: the system space has no files on disk", p)
	}
	abs := p
	if !filepath.IsAbs(p) {
		abs = filepath.Join(cwd, p)
	}
	abs = filepath.Clean(abs)
	rel, err := filepath.Rel(sp.AI(), abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return Found{}, false, fmt.Errorf("%s is not inside %s", p, sp.AI())
	}
	rel = filepath.ToSlash(rel)
	if _, err := sp.Stat(rel); err != nil {
		return Found{}, false, err
	}
	folder, _, _ := strings.Cut(rel, "/")
	if _, isItemFolder := item.KindOfFolder(folder); !isItemFolder {
		return Found{}, false, nil
	}
	for _, part := range strings.Split(rel, "/") {
		if strings.HasPrefix(part, ".") || skipped[part] {
			return Found{}, false, nil // dotfiles, __pycache__, node_modules
		}
	}
	k, id, ext, err := KindAndID(rel)
	if err != nil {
		return Found{}, false, fmt.Errorf("%s: %v", p, err)
	}
	if !k.HasExtension(ext) {
		return Found{}, false, nil
	}
	for _, want := range kinds {
		if want == k {
			return Found{Space: sp, Kind: k, ID: id, Rel: rel}, true, nil
		}
	}
	return Found{}, false, nil
}
