package executor

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/ryekit/rye/chain"
)

// A tool runs on a copy of the files rye verified: itself, its package as
// verify_deps selects it, its library. A file of the project that it
// reads from its own folder but that rye did not verify is not in that
// copy, and the tool fails with its language's own error (a Python
// traceback, a Node ENOENT) about a path in a temporary folder. That
// error is true but says nothing of why; explainMissing says it.

// missingPatterns find, in a failed tool's standard error, a file it
// could not open (Python's FileNotFoundError, Node's ENOENT) and a
// Python module it could not import. Compiled on first use.
var missingPatterns = sync.OnceValue(func() [3]*regexp.Regexp {
	return [3]*regexp.Regexp{
		regexp.MustCompile(`No such file or directory: ['"]([^'"\n]+)['"]`),
		regexp.MustCompile(`ENOENT: no such file or directory, [a-z]+ '([^'\n]+)'`),
		regexp.MustCompile(`No module named '([A-Za-z_][A-Za-z0-9_.]*)'`),
	}
})

// explainMissing is the message of a failed run (data: its result, whose
// stderr is read) whose tool looked in vain for a file that its space
// holds but that rye did not give to the run, saying which and why; ""
// when the output names no such file.
func (d *runDir) explainMissing(tool *chain.Element, rf *runFiles, data any) string {
	raw, _ := data.(map[string]any)
	stderr, _ := raw["stderr"].(string)
	if stderr == "" || rf == nil {
		return ""
	}
	pats := missingPatterns()
	var candidates []string // paths below .ai/, '/'-separated
	for _, re := range pats[:2] {
		for _, m := range re.FindAllStringSubmatch(stderr, -1) {
			if p := filepath.Clean(m[1]); d.inside(p) {
				if rel, err := filepath.Rel(filepath.Join(d.root, "ai"), p); err == nil && !strings.HasPrefix(rel, "..") {
					candidates = append(candidates, filepath.ToSlash(rel))
				}
			}
		}
	}
	anchor := rf.anchorRel
	if anchor == "" {
		anchor = path.Dir(tool.Loc.Rel)
	}
	for _, m := range pats[2].FindAllStringSubmatch(stderr, -1) {
		mod := strings.ReplaceAll(m[1], ".", "/")
		candidates = append(candidates, anchor+"/"+mod+".py", anchor+"/"+mod+"/__init__.py")
	}
	sp := tool.Loc.Space
	for i := len(candidates) - 1; i >= 0; i-- { // the last error is the one that stopped it
		rel := candidates[i]
		if _, err := os.Lstat(d.itemPath(rel)); err == nil {
			continue // it was given to the run
		}
		if _, err := sp.Stat(rel); err != nil {
			continue // not a file of the project either: the tool's own business
		}
		return fmt.Sprintf("the tool tried to read %s, which rye did not give to the run: %s. A tool runs on a copy of the files rye verified, and on nothing else; put what it reads in its verified package and sign it%s",
			sp.DisplayPath(rel), rf.selected.why(rel), rf.selected.widen())
	}
	return ""
}

// why says why the walk of verify_deps did not select rel.
func (s selection) why(rel string) string {
	ext := path.Ext(rel)
	switch {
	case s.owner == "":
		return "no element of its chain declares verify_deps, so only the tool itself is copied"
	case !strings.HasPrefix(rel, s.base+"/"):
		return fmt.Sprintf("it is outside %s/, the folder that the verify_deps of %s verifies", s.base, s.owner)
	}
	dir := strings.Split(path.Dir(strings.TrimPrefix(rel, s.base+"/")), "/")
	for _, part := range dir {
		if slices.Contains(s.exclude, part) {
			return fmt.Sprintf("it is in a %s/ folder, which the verify_deps of %s excludes (exclude_dirs)", part, s.owner)
		}
	}
	switch {
	case !s.recursive && path.Dir(rel) != s.base:
		return fmt.Sprintf("the verify_deps of %s does not go into subfolders (recursive: false)", s.owner)
	case !slices.Contains(chain.DepExtensions(), ext):
		return fmt.Sprintf("a %s file cannot carry a signature line, so rye never gives one to a run (keep such data in a .yaml or .json file of the package)", ext)
	case !slices.Contains(s.exts, ext):
		return fmt.Sprintf("the verify_deps of %s copies only %s files (extensions)", s.owner, strings.Join(s.exts, " "))
	}
	return "it was not among the files verify_deps selected"
}

// widen names where verify_deps is declared, for the fix.
func (s selection) widen() string {
	if s.owner == "" {
		return ""
	}
	return ", or widen the verify_deps of " + s.owner
}
