package executor

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"

	"github.com/ryekit/rye/chain"
	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/item/syntax"
	"github.com/ryekit/rye/space"
)

// Bounds on what one execution verifies and writes besides its chain
// (variables so that tests can make them small).
var (
	maxDeps     = 1000     // files under verify_deps
	maxDepBytes = 64 << 20 // their total size
)

// depsSpec is a verify_deps block:
//
//	verify_deps:
//	  scope: tool_dir        # or tool_parent: the folder whose files the tool needs
//	  recursive: true        # descend into sub-folders (default true)
//	  extensions: [.py]      # which files (default: the tool's own extension)
//	  exclude_dirs: [tests]  # folders to skip (default __pycache__, node_modules, .venv)
//	  enabled: false         # turn off a runtime's block for one tool
//
// Every file it selects must verify like a chain element. The files are
// then written next to the verified tool in the run's private directory,
// so that a multi-file tool imports the verified bytes and nothing else;
// {anchor_path} names the copy of the scope folder.
type depsSpec struct {
	scope     string
	recursive bool
	exts      []string
	exclude   []string
	owner     *chain.Element
}

var defaultExcludeDirs = []string{"__pycache__", "node_modules", ".venv"}

// depsSpecOf finds the verify_deps block nearest the tool (the tool's own,
// else the nearest runtime's). nil means the tool runs alone.
func depsSpecOf(c *chain.Chain) (*depsSpec, error) {
	for _, el := range c.Elements {
		n := el.Meta.Get("verify_deps")
		if n.IsNull() {
			continue
		}
		if n.Kind != syntax.MapNode {
			return nil, fmt.Errorf("%s: verify_deps must be a mapping (scope, recursive, extensions, exclude_dirs)", el.ID())
		}
		if e := n.Get("enabled"); e != nil && !e.IsTrue() {
			return nil, nil
		}
		s := &depsSpec{scope: "tool_dir", recursive: true, exclude: defaultExcludeDirs, owner: el}
		if v := n.Get("scope"); v != nil {
			s.scope = v.String()
		}
		if s.scope != "tool_dir" && s.scope != "tool_parent" {
			return nil, fmt.Errorf("%s: verify_deps scope %q: use tool_dir or tool_parent", el.ID(), s.scope)
		}
		if v := n.Get("recursive"); v != nil {
			s.recursive = v.IsTrue()
		}
		for _, x := range n.Get("extensions").ListItems() {
			ext := x.String()
			if !slices.Contains(item.Tool.Extensions(), ext) {
				return nil, fmt.Errorf("%s: verify_deps extension %q is not a tool file extension (%v): only item files carry signatures", el.ID(), ext, item.Tool.Extensions())
			}
			s.exts = append(s.exts, ext)
		}
		if len(s.exts) == 0 {
			s.exts = []string{path.Ext(c.Tool().Loc.Rel)}
		}
		if ex := n.Get("exclude_dirs"); ex != nil {
			s.exclude = nil
			for _, x := range ex.ListItems() {
				s.exclude = append(s.exclude, x.String())
			}
		}
		return s, nil
	}
	return nil, nil
}

// root is the folder (relative to .ai/) that the spec covers for a tool.
func (s *depsSpec) root(tool *chain.Element) (string, error) {
	dir := path.Dir(tool.Loc.Rel)
	if s.scope == "tool_parent" {
		dir = path.Dir(dir)
	}
	if dir == item.Tool.Folder() || !isUnder(dir, item.Tool.Folder()) {
		return "", fmt.Errorf("%s: verify_deps scope %s of %s is the whole tools folder; move the tool into a folder of its own", s.owner.ID(), s.scope, tool.ID())
	}
	return dir, nil
}

func isUnder(rel, folder string) bool {
	return len(rel) > len(folder) && rel[:len(folder)] == folder && rel[len(folder)] == '/'
}

// collect verifies every file the spec selects, in the tool's space, in
// walk order. A symbolic link anywhere under the scope is refused rather
// than skipped, like everywhere else in .ai/.
func (s *depsSpec) collect(v *verifier, tool *chain.Element) ([]*verifiedFile, string, error) {
	root, err := s.root(tool)
	if err != nil {
		return nil, "", err
	}
	sp := tool.Loc.Space
	var files []*verifiedFile
	total := 0
	err = fs.WalkDir(sp.FS(), root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return &space.PathError{Path: sp.DisplayPath(p), Err: space.ErrSymlink}
		}
		if d.IsDir() {
			if p != root && (!s.recursive || slices.Contains(s.exclude, d.Name())) {
				return fs.SkipDir
			}
			return nil
		}
		if p == tool.Loc.Rel || !slices.Contains(s.exts, path.Ext(p)) {
			return nil
		}
		if !d.Type().IsRegular() {
			return &space.PathError{Path: sp.DisplayPath(p), Err: space.ErrNotFile}
		}
		if len(files) == maxDeps {
			return fmt.Errorf("verify_deps of %s selects more than %d files; narrow it with extensions or exclude_dirs", tool.ID(), maxDeps)
		}
		k, id, _, err := space.KindAndID(p)
		if err != nil {
			return fmt.Errorf("%s: %v", sp.DisplayPath(p), err)
		}
		f, err := v.load(&space.Located{Space: sp, Kind: k, ID: id, Rel: p}, "dependency")
		if err != nil {
			return err
		}
		total += len(f.Item.Bytes)
		if total > maxDepBytes {
			return fmt.Errorf("verify_deps of %s selects more than %d bytes; narrow it with extensions or exclude_dirs", tool.ID(), maxDepBytes)
		}
		files = append(files, f)
		return nil
	})
	var ve *VerifyError
	if err != nil && !errors.As(err, &ve) {
		err = fmt.Errorf("verify_deps of %s: %w", tool.ID(), err)
	}
	return files, root, err
}

// collectLibs verifies the library items that an element lists in
// runtime_lib, each resolved like an executor_id: from the element's own
// space downwards.
func collectLibs(v *verifier, ss *space.Spaces, c *chain.Chain) ([]*verifiedFile, error) {
	owner := chain.RuntimeLibOwner(c)
	if owner == nil {
		return nil, nil
	}
	var out []*verifiedFile
	seen := map[string]item.ID{}
	for _, n := range owner.Meta.Get("runtime_lib").ListItems() {
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
