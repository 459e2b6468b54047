package chain

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/item/syntax"
)

// This file reads the blocks with which a chain says which files, besides
// its elements, a run needs: the RYE OS runtimes' anchor: block,
// verify_deps, and the library folder or items behind {runtime_lib} (spec
// 6.6, spec 3.4 step 7). Validate reports every problem in them; the
// executor uses what they say (AnchorOf, DepsOf, LibOf) only after that.

// Anchor is an anchor: block (spec 6.6): whether a tool's folder is the
// root of a package whose verified files the run gets, and how the
// environment finds them.
type Anchor struct {
	Owner   *Element
	Enabled bool     // enabled (default false)
	Mode    string   // mode: "auto" (default), "always" or "never"
	Markers []string // markers_any: file names, one of which in the tool's folder makes an "auto" anchor apply
	Root    string   // root: "tool_dir" (default) or "tool_parent"
	// EnvPaths edit path-list variables (PYTHONPATH, NODE_PATH) when the
	// anchor applies, in the order written.
	EnvPaths []EnvPath
	Cwd      string // cwd: the working directory when the anchor applies ("": unchanged)
}

// EnvPath is one variable of env_paths: entries put in front (in their
// order) and at the end. Entries are {word} templates of the anchor
// context.
type EnvPath struct {
	Var             string
	Prepend, Append []string
}

// deps is a verify_deps block: the files of the tool's package that must
// verify before it runs (and that are all the run gets of it).
type deps struct {
	Owner     *Element
	Enabled   bool     // enabled (default true: a block is declared to be used; false turns a runtime's block off for one tool)
	Scope     string   // "anchor" (default), "tool_dir", "tool_siblings", "tool_file" or "tool_parent"
	Recursive bool     // recursive (default true; tool_siblings never recurses)
	Exts      []string // extensions (none: the tool's own)
	Exclude   []string // exclude_dirs
}

// DefaultExcludeDirs are the folders verify_deps skips unless exclude_dirs
// says otherwise (the reference's defaults).
var DefaultExcludeDirs = []string{"__pycache__", ".venv", "node_modules", ".git"}

// Lib is what {runtime_lib} names: the library folder of an anchor (Dir,
// relative to .ai/ in Owner's space), or rye's runtime_lib list of library
// item ids (IDs).
type Lib struct {
	Owner *Element
	Dir   string
	IDs   []*syntax.Node
}

var (
	anchorModes = []string{"auto", "always", "never"}
	anchorRoots = []string{"tool_dir", "tool_parent"}
	depsScopes  = []string{"anchor", "tool_dir", "tool_siblings", "tool_file", "tool_parent"}
	anchorKeys  = []string{"enabled", "mode", "markers_any", "root", "lib", "env_paths", "cwd"}
	depsKeys    = []string{"enabled", "scope", "recursive", "extensions", "exclude_dirs"}
)

// DepExtensions are the extensions a verify_deps file may have: those that
// carry a signature line. Besides the tool forms these are .json (a "#"
// line, as RYE OS signed the data files of its packages) and .mjs, .cjs
// ("//"), which the reference's runtimes list.
func DepExtensions() []string {
	return append(slices.Clone(item.Tool.Extensions()), ".json", ".mjs", ".cjs")
}

// AnchorOf returns the anchor of a chain: the block of the first element
// (the tool first, then its runtimes) that declares one, or nil.
func AnchorOf(c *Chain) (*Anchor, error) {
	for _, el := range c.Elements {
		if !el.Meta.Get("anchor").IsNull() {
			a, ps := parseAnchor(el)
			return a, firstProblem(ps)
		}
	}
	return nil, nil
}

// DepsOf returns the verify_deps block of the first element that declares
// one, or nil.
func DepsOf(c *Chain) (*deps, error) {
	for _, el := range c.Elements {
		if !el.Meta.Get("verify_deps").IsNull() {
			d, ps := parseDeps(el)
			return d, firstProblem(ps)
		}
	}
	return nil, nil
}

// LibOf returns what {runtime_lib} names: the first element that declares
// an anchor with lib or a runtime_lib list, or nil when none does.
func LibOf(c *Chain) (*Lib, error) {
	for _, el := range c.Elements {
		l, ps := parseLib(el)
		if len(ps) > 0 {
			return nil, firstProblem(ps)
		}
		if l != nil {
			return l, nil
		}
	}
	return nil, nil
}

func firstProblem(ps []Problem) error {
	if len(ps) == 0 {
		return nil
	}
	return fmt.Errorf("%s", ps[0])
}

// checkBlocks reports the problems of every anchor, verify_deps and
// runtime_lib declaration of the chain, whichever element supplies them.
func checkBlocks(c *Chain) []Problem {
	var ps []Problem
	for _, el := range c.Elements {
		if !el.Meta.Get("anchor").IsNull() {
			_, p := parseAnchor(el)
			ps = append(ps, p...)
		}
		if !el.Meta.Get("verify_deps").IsNull() {
			_, p := parseDeps(el)
			ps = append(ps, p...)
		}
		_, p := parseLib(el)
		ps = append(ps, p...)
	}
	return ps
}

// blockReader reads one block, collecting problems that name the element,
// the value and the fix.
type blockReader struct {
	el    *Element
	block string
	ps    []Problem
}

func (b *blockReader) add(n *syntax.Node, format string, args ...any) {
	if n == nil {
		n = b.el.Meta.Get(b.block)
	}
	b.ps = append(b.ps, Problem{Element: b.el, Node: n, Msg: fmt.Sprintf("%s: %s: ", b.el.ID(), b.block) + fmt.Sprintf(format, args...)})
}

// mapping checks that the block is a mapping with only the given keys.
func (b *blockReader) mapping(n *syntax.Node, keys []string) bool {
	if n.Kind != syntax.MapNode {
		b.add(n, "must be a mapping (%s)", strings.Join(keys, ", "))
		return false
	}
	for _, f := range n.Fields {
		if !slices.Contains(keys, f.Key) {
			b.add(f.Value, "unknown key %q (known: %s): a misspelt key must not silently not apply", f.Key, strings.Join(keys, ", "))
		}
	}
	return true
}

func (b *blockReader) boolean(n *syntax.Node, key string, def bool) bool {
	v := n.Get(key)
	if v == nil {
		return def
	}
	if v.Kind != syntax.BoolNode {
		b.add(v, "%s must be true or false", key)
		return def
	}
	return v.Bool
}

func (b *blockReader) oneOf(n *syntax.Node, key, def string, values []string) string {
	v := n.Get(key)
	if v == nil {
		return def
	}
	if v.Kind != syntax.StringNode || !slices.Contains(values, v.Str) {
		b.add(v, "%s must be one of %s", key, strings.Join(values, ", "))
		return def
	}
	return v.Str
}

func (b *blockReader) strings(n *syntax.Node, key string) []string {
	v := n.Get(key)
	if v == nil {
		return nil
	}
	if v.Kind != syntax.ListNode {
		b.add(v, "%s must be a list of strings", key)
		return nil
	}
	var out []string
	for _, it := range v.Items {
		if it.Kind != syntax.StringNode {
			b.add(it, "%s must be a list of strings", key)
			continue
		}
		out = append(out, it.Str)
	}
	return out
}

// fileName checks a name that must be one folder entry (a marker, an
// excluded folder).
func (b *blockReader) fileNames(n *syntax.Node, key string) []string {
	names := b.strings(n, key)
	for i, s := range names {
		if s == "" || s == "." || s == ".." || strings.ContainsAny(s, `/\`) {
			b.add(n.Get(key).Items[i], "%s: %q is not a file name (one folder entry, without / or ..)", key, s)
		}
	}
	return names
}

func parseAnchor(el *Element) (*Anchor, []Problem) {
	b := &blockReader{el: el, block: "anchor"}
	n := el.Meta.Get("anchor")
	a := &Anchor{Owner: el, Mode: "auto", Root: "tool_dir"}
	if !b.mapping(n, anchorKeys) {
		return a, b.ps
	}
	a.Enabled = b.boolean(n, "enabled", false)
	a.Mode = b.oneOf(n, "mode", "auto", anchorModes)
	a.Markers = b.fileNames(n, "markers_any")
	if r := n.Get("root"); r != nil && r.String() == "project_path" {
		b.add(r, "root project_path is not supported: rye runs only files it verified, and the project is not a folder of signed items; use tool_dir or tool_parent")
	} else {
		a.Root = b.oneOf(n, "root", "tool_dir", anchorRoots)
	}
	if v := n.Get("cwd"); v != nil {
		if v.Kind != syntax.StringNode {
			b.add(v, "cwd must be a string")
		}
		a.Cwd = v.String()
	}
	if ep := n.Get("env_paths"); ep != nil {
		if ep.Kind != syntax.MapNode {
			b.add(ep, "env_paths must be a mapping of variable names to {prepend: [...], append: [...]}")
		}
		for _, f := range ep.MapFields() {
			if !isVarName(f.Key) {
				b.add(f.Value, "env_paths: %q is not a variable name", f.Key)
				continue
			}
			sub := &blockReader{el: el, block: "anchor.env_paths." + f.Key}
			if sub.mapping(f.Value, []string{"prepend", "append"}) {
				a.EnvPaths = append(a.EnvPaths, EnvPath{Var: f.Key, Prepend: sub.strings(f.Value, "prepend"), Append: sub.strings(f.Value, "append")})
				// Each entry is one folder: one with a list separator in
				// it would add a second, unchecked one.
				for _, key := range []string{"prepend", "append"} {
					for _, it := range f.Value.Get(key).ListItems() {
						if it.Kind == syntax.StringNode && strings.ContainsAny(it.Str, ":;") {
							sub.add(it, "%s: %q holds a path-list separator (: or ;): each entry is one folder, and may only be {%s} or a folder below it", key, it.Str, strings.Join(runWords, "}, {"))
						}
					}
				}
			}
			b.ps = append(b.ps, sub.ps...)
		}
	}
	return a, b.ps
}

func isVarName(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isIdent(s[i], i == 0) {
			return false
		}
	}
	return s != ""
}

func parseDeps(el *Element) (*deps, []Problem) {
	b := &blockReader{el: el, block: "verify_deps"}
	n := el.Meta.Get("verify_deps")
	d := &deps{Owner: el, Enabled: true, Scope: "anchor", Recursive: true, Exclude: DefaultExcludeDirs}
	if !b.mapping(n, depsKeys) {
		return d, b.ps
	}
	d.Enabled = b.boolean(n, "enabled", true)
	d.Scope = b.oneOf(n, "scope", "anchor", depsScopes)
	d.Recursive = b.boolean(n, "recursive", true) && d.Scope != "tool_siblings"
	d.Exts = b.strings(n, "extensions")
	for i, ext := range d.Exts {
		if !slices.Contains(DepExtensions(), ext) {
			b.add(n.Get("extensions").Items[i], "extension %q cannot carry a signature line (known: %s): only signed files are verified and given to the run", ext, strings.Join(DepExtensions(), " "))
		}
	}
	if n.Get("exclude_dirs") != nil {
		d.Exclude = b.fileNames(n, "exclude_dirs")
	}
	return d, b.ps
}

// parseLib reads an element's library declaration: anchor.lib (a folder
// below the element's own) or runtime_lib (library item ids). An element
// that declares both is a problem: {runtime_lib} names one folder.
func parseLib(el *Element) (*Lib, []Problem) {
	b := &blockReader{el: el, block: "anchor"}
	var l *Lib
	if lib := el.Meta.Get("anchor").Get("lib"); lib != nil {
		dir := path.Dir(el.Loc.Rel)
		switch clean := path.Clean(lib.String()); {
		case lib.Kind != syntax.StringNode || lib.Str == "":
			b.add(lib, "lib must be a folder below %s", dir)
		case path.IsAbs(clean) || clean == "." || clean == ".." || strings.HasPrefix(clean, "../") || strings.Contains(lib.Str, `\`):
			b.add(lib, "lib %q leaves the runtime's folder %s: name a folder below it (lib: lib/python)", lib.Str, dir)
		default:
			l = &Lib{Owner: el, Dir: path.Join(dir, clean)}
		}
	}
	if ids := el.Meta.Get("runtime_lib"); !ids.IsNull() {
		if l != nil {
			b.block = "runtime_lib"
			b.add(ids, "declare the library either as anchor.lib (a folder) or as runtime_lib (item ids), not both: {runtime_lib} names one folder")
			return nil, b.ps
		}
		if items := ids.ListItems(); len(items) > 0 {
			l = &Lib{Owner: el, IDs: items}
		}
	}
	return l, b.ps
}
