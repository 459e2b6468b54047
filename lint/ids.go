package lint

import (
	"fmt"
	"sort"
	"strings"

	"golang.org/x/tools/go/analysis"
)

// ids reports item ids that are invalid, ambiguous or that collide.
var ids = &analysis.Analyzer{
	Name: "ids",
	Doc: `report invalid, ambiguous and colliding item ids, and symbolic links

An id is the file's path below .ai/<kind folder>/ without the extension;
each segment matches [A-Za-z0-9_][A-Za-z0-9._-]*. Two files with the same
id in one space (greet.py and greet.yaml) are ambiguous: which one wins
depends on the extension order. Two ids that differ only by case collide
on macOS and Windows. Symbolic links inside .ai/ are refused by
verification and execution.`,
	URL:      docURL("ids"),
	Requires: []*analysis.Analyzer{input},
	Run:      runIDs,
}

func runIDs(pass *analysis.Pass) (any, error) {
	e, r := env(pass), reporter{pass}
	for _, f := range e.Files {
		switch {
		case f.Oddity != nil && f.Oddity.Symlink:
			r.at(sevError, "symlink", f.start(), 0, "symbolic link: rye refuses symbolic links inside .ai/ (verification and execution fail on it); replace it with the file itself")
		case f.Oddity != nil && isIDProblem(f):
			r.at(sevError, "invalid", f.start(), 0, f.Oddity.Reason)
		}
	}
	for _, f := range e.Files {
		for _, c := range e.collisions()[f] {
			r.at(sevError, c.rule, f.start(), 0, c.msg)
		}
	}
	return nil, nil
}

// collision is an ids finding about one file.
type collision struct{ rule, msg string }

// collisions finds the ambiguous and case-colliding ids among all the
// run's files, once per run (each chunk reports those of its files).
func (e *Env) collisions() map[*file][]collision {
	if e.shared == nil {
		e.shared = &shared{}
	}
	e.shared.idsOnce.Do(func() { e.shared.ids = findCollisions(e.all()) })
	return e.shared.ids
}

func findCollisions(all []*file) map[*file][]collision {
	// Keys are "space\x00kind\x00id" (sorted as strings for stable output).
	byID := map[string][]*file{}
	byFold := map[string][]*file{}
	for _, f := range all {
		// In a ryeOS 0.2+ tree one id may have several files: ryeOS takes
		// the first by its order of file forms, and the ryeos analyzer
		// says which one is never read (advice, not an error).
		if f.IsItem() && !f.Space.Layout().RyeOS {
			k := f.Space.Label + "\x00" + string(f.Kind) + "\x00"
			byID[k+string(f.ID)] = append(byID[k+string(f.ID)], f)
			fold := k + strings.ToLower(string(f.ID))
			byFold[fold] = append(byFold[fold], f)
		}
	}
	out := map[*file][]collision{}
	for _, k := range sortedFileKeys(byID) {
		files := byID[k]
		if len(files) < 2 {
			continue
		}
		for _, f := range files {
			out[f] = append(out[f], collision{"ambiguous", fmt.Sprintf("ambiguous %s %s: %s; resolution takes the first by extension order, so keep one file", f.Kind, f.ID, names(files))})
		}
	}
	for _, k := range sortedFileKeys(byFold) {
		files := byFold[k]
		ids := map[string]bool{}
		for _, f := range files {
			ids[string(f.ID)] = true
		}
		if len(ids) < 2 {
			continue
		}
		for _, f := range files {
			out[f] = append(out[f], collision{"case-collision", fmt.Sprintf("%s ids that differ only by case collide on macOS and Windows: %s", f.Kind, names(files))})
		}
	}
	return out
}

func names(files []*file) string {
	var s []string
	for _, f := range files {
		s = append(s, f.Name)
	}
	return strings.Join(s, ", ")
}

func sortedFileKeys(m map[string][]*file) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
