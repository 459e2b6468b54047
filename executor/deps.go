package executor

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"

	"github.com/ryekit/rye/chain"
	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/sign"
	"github.com/ryekit/rye/space"
	"github.com/ryekit/rye/verify"
)

// Bounds on what one walk (verify_deps, an anchor's library folder)
// verifies and writes besides the chain, unless the verifier has its own
// (tests make them small).
const (
	maxDeps     = 1000     // files
	maxDepBytes = 64 << 20 // their total size
)

// files is what a run gets besides its chain: the verified files of the
// tool's package (verify_deps), the folder that {anchor_path} names, and
// the library files behind {runtime_lib}. Nothing else of the spaces is
// ever written into the run directory, so these are all a tool can load
// from there.
type runFiles struct {
	deps      []*verifiedFile
	anchorRel string        // the folder (relative to .ai/) that {anchor_path} names; "" = the tool's
	anchor    *chain.Anchor // the anchor, when it applies (env_paths, cwd)
	hasLib    bool          // {runtime_lib} exists: a library folder or items were declared
	libDir    string        // anchor.lib: the folder (relative to .ai/) the library files come from
	libs      []*verifiedFile
	// selected says what the verify_deps walk took, to explain a file the
	// tool then looked for in vain (explainMissing).
	selected selection
}

// selection is what a verify_deps walk selected: the files with one of
// exts below base (below its own folder only, unless recursive), outside
// the excluded folders; by owner's verify_deps ("" when no element
// declares one: only the tool is given).
type selection struct {
	owner     string
	base      string
	exts      []string
	exclude   []string
	recursive bool
}

// collectFiles reads and verifies everything the chain's anchor,
// verify_deps and library declarations select (spec 6.6, 3.4 step 7),
// before anything starts:
//
//   - the anchor (the first element's that declares one) applies when it
//     is enabled and its mode is "always", or "auto" (the default) and one
//     of markers_any is in the tool's folder; {anchor_path} is then the
//     copy of its root (tool_dir or tool_parent);
//   - verify_deps (the first element's) selects the files of a scope:
//     anchor (the anchor's root, else the tool's folder), tool_dir,
//     tool_siblings (not recursive), tool_parent or tool_file (none).
//     When the chain declares an anchor it runs only when the anchor
//     applies, as in the reference; a chain without an anchor always runs
//     it (rye's own multi-file tools);
//   - the library: an anchor's lib folder (every file of the verify_deps
//     extensions, or of the tool's own, below it) or runtime_lib items.
//
// Last, no two of the files given to the run (the tool, its dependencies
// and library files) may carry one legacy signature (noCopies).
func collectFiles(v *verifier, ss *space.Spaces, c *chain.Chain) (*runFiles, error) {
	out, err := collect(v, ss, c)
	if err != nil {
		return out, err
	}
	return out, noCopies(append(append([]*verifiedFile{{Loc: c.Tool().Loc, Item: c.Tool().Item}}, out.deps...), out.libs...))
}

// noCopies refuses two files of a run that carry the same signature in a
// format that does not bind a file's name (v1 and the RYE OS eras: "nothing
// binds the item to its location"): one is a copy of the other under
// another name, and a signed module copied as json.py would be imported
// in place of the standard library's. v2 binds the id, so there such a
// copy does not verify in the first place.
func noCopies(files []*verifiedFile) error {
	seen := map[string]*verifiedFile{}
	for _, f := range files {
		found := sign.Find(f.Item.Bytes, path.Ext(f.Loc.Rel))
		key := sign.CopyKey(found.Line) // "" for v2; the same for a re-encoded line
		if key == "" {
			continue
		}
		first, dup := seen[key]
		if !dup {
			seen[key] = f
			continue
		}
		r := verify.Result{Kind: f.Loc.Kind, ID: f.Loc.ID, Space: f.Loc.Space.Label, Path: f.Loc.Path(), Verdict: verify.Moved, Format: found.Line.Format.String(), Fingerprint: found.Line.Fingerprint,
			Reason: fmt.Sprintf("it carries the same %s signature as %s: a copy under another name, which %s does not bind; a signed file copied under a module's name would be loaded in that module's place; remove the copy, or sign the files again in v2, which binds each file's name: rye sign --format v2 %s %s", found.Line.Format, first.Loc.Path(), found.Line.Format, f.Loc.Kind, f.Loc.ID)}
		return &VerifyError{Role: "dependency", Result: r}
	}
	return nil
}

// collect is collectFiles without the check for copies.
func collect(v *verifier, ss *space.Spaces, c *chain.Chain) (*runFiles, error) {
	out := &runFiles{}
	tool := c.Tool()
	toolDir := path.Dir(tool.Loc.Rel)
	a, err := chain.AnchorOf(c)
	if err != nil {
		return nil, err
	}
	applies := false
	if a != nil {
		if applies, err = anchorApplies(a, tool); err != nil {
			return nil, err
		}
	}
	if applies {
		out.anchor = a
		out.anchorRel = toolDir
		if a.Root == "tool_parent" {
			out.anchorRel = path.Dir(toolDir)
		}
		if err := wholeTools(out.anchorRel, a.Owner, "anchor root "+a.Root, tool); err != nil {
			return nil, err
		}
	}
	d, err := chain.DepsOf(c)
	if err != nil {
		return nil, err
	}
	exts, exclude := []string{path.Ext(tool.Loc.Rel)}, chain.DefaultExcludeDirs
	if d != nil {
		if len(d.Exts) > 0 {
			exts = d.Exts
		}
		exclude = d.Exclude
	}
	if d != nil && d.Enabled && (a == nil || applies) {
		base := toolDir
		switch d.Scope {
		case "anchor":
			if applies {
				base = out.anchorRel
			}
		case "tool_parent":
			base = path.Dir(toolDir)
		case "tool_file":
			base = ""
		}
		if base != "" {
			if err := wholeTools(base, d.Owner, "verify_deps scope "+d.Scope, tool); err != nil {
				return nil, err
			}
			out.selected = selection{owner: string(d.Owner.ID()), base: base, exts: exts, exclude: exclude, recursive: d.Recursive}
			w := &walk{v: v, sp: tool.Loc.Space, exts: exts, exclude: exclude, recursive: d.Recursive, skip: tool.Loc.Rel, role: "dependency", what: "verify_deps of " + string(tool.ID())}
			if out.deps, err = w.run(base); err != nil {
				return nil, err
			}
			if a == nil {
				out.anchorRel = base // rye's own: {anchor_path} is the scope's copy
			}
		}
	}
	l, err := chain.LibOf(c)
	if err != nil || l == nil {
		return out, err
	}
	out.hasLib = true
	if l.Dir != "" {
		out.libDir = l.Dir
		w := &walk{v: v, sp: l.Owner.Loc.Space, exts: exts, exclude: exclude, recursive: true, role: "library", what: "the library folder of " + string(l.Owner.ID()), missingOK: true}
		out.libs, err = w.run(l.Dir)
		return out, err
	}
	out.libs, err = collectLibItems(v, ss, l)
	return out, err
}

// anchorApplies decides whether an anchor applies to a tool (the
// reference's _anchor_applies): enabled, and mode "always", or "auto" with
// one of markers_any in the tool's folder (the folder in its space, where
// the tool was found).
func anchorApplies(a *chain.Anchor, tool *chain.Element) (bool, error) {
	if !a.Enabled || a.Mode == "never" {
		return false, nil
	}
	if a.Mode == "always" {
		return true, nil
	}
	entries, err := fs.ReadDir(tool.Loc.Space.FS(), path.Dir(tool.Loc.Rel))
	if err != nil {
		return false, fmt.Errorf("anchor of %s: %v", tool.ID(), err)
	}
	for _, e := range entries {
		if slices.Contains(a.Markers, e.Name()) {
			return true, nil
		}
	}
	return false, nil
}

// wholeTools refuses a folder that is the whole tools folder (or outside
// it): every tool of the space would become part of the run.
func wholeTools(dir string, owner *chain.Element, what string, tool *chain.Element) error {
	if dir == item.Tool.Folder() || !isUnder(dir, item.Tool.Folder()) {
		return fmt.Errorf("%s: %s of %s is the whole tools folder; move the tool into a folder of its own", owner.ID(), what, tool.ID())
	}
	return nil
}

func isUnder(rel, folder string) bool {
	return len(rel) > len(folder) && rel[:len(folder)] == folder && rel[len(folder)] == '/'
}

// walk verifies the files of one folder of a space that a run gets.
type walk struct {
	v         *verifier
	sp        *space.Space
	exts      []string // the extensions selected
	exclude   []string // folder names skipped
	recursive bool
	skip      string // a file not to select (the tool itself)
	role      string // what a file that does not verify is ("dependency", "library")
	what      string // for messages
	missingOK bool   // a folder that does not exist gives no files
}

// run verifies every selected file under root, in walk order. A symbolic
// link anywhere under root is refused rather than skipped, like everywhere
// else in .ai/; a file that does not verify stops the walk.
func (w *walk) run(root string) ([]*verifiedFile, error) {
	var out []*verifiedFile
	total := 0
	err := fs.WalkDir(w.sp.FS(), root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root && w.missingOK && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return &space.PathError{Path: w.sp.DisplayPath(p), Err: space.ErrSymlink}
		}
		if d.IsDir() {
			if p != root && (!w.recursive || slices.Contains(w.exclude, d.Name())) {
				return fs.SkipDir
			}
			return nil
		}
		if p == w.skip || !slices.Contains(w.exts, path.Ext(p)) {
			return nil
		}
		if !d.Type().IsRegular() {
			return &space.PathError{Path: w.sp.DisplayPath(p), Err: space.ErrNotFile}
		}
		if files, _ := w.v.depLimits(); len(out) == files {
			return fmt.Errorf("it selects more than %d files; narrow it with extensions or exclude_dirs", files)
		}
		k, id, _, err := space.KindAndID(p)
		if err != nil {
			return fmt.Errorf("%s: %v", w.sp.DisplayPath(p), err)
		}
		f, err := w.v.load(&space.Located{Space: w.sp, Kind: k, ID: id, Rel: p}, w.role)
		if err != nil {
			return err
		}
		total += len(f.Item.Bytes)
		if _, bytes := w.v.depLimits(); total > bytes {
			return fmt.Errorf("it selects more than %d bytes; narrow it with extensions or exclude_dirs", bytes)
		}
		out = append(out, f)
		return nil
	})
	var ve *VerifyError
	if err != nil && !errors.As(err, &ve) {
		err = fmt.Errorf("%s: %w", w.what, err)
	}
	return out, err
}

// collectLibItems verifies the library items of a runtime_lib list, each
// resolved like an executor_id: from the element's own space downwards.
func collectLibItems(v *verifier, ss *space.Spaces, l *chain.Lib) ([]*verifiedFile, error) {
	owner := l.Owner
	var out []*verifiedFile
	seen := map[string]item.ID{}
	for _, n := range l.IDs {
		id, err := item.ParseID(n.String())
		if err != nil {
			return nil, fmt.Errorf("%s: runtime_lib: %v", owner.ID(), err)
		}
		loc, err := ss.Resolve(item.Tool, id, ss.From(owner.Loc.Space))
		if err != nil {
			return nil, fmt.Errorf("%s: runtime_lib: %v", owner.ID(), err)
		}
		base := path.Base(loc.Rel)
		if other, dup := seen[base]; dup {
			return nil, fmt.Errorf("%s: runtime_lib lists %s and %s, which share the file name %s", owner.ID(), other, id, base)
		}
		seen[base] = id
		f, err := v.load(loc, "library")
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}
