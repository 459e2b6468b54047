package chain

import (
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/space"
)

// FuzzBlocks reads an element's anchor:, verify_deps and runtime_lib
// declarations from any YAML: it never panics; AnchorOf, DepsOf and LibOf
// fail exactly when validation reports a problem; and what they accept
// keeps its promises: a library folder stays below the element's own,
// markers and excluded folders are single names, modes, roots and scopes
// are known, and every extension can carry a signature line.
func FuzzBlocks(f *testing.F) {
	f.Add([]byte("anchor:\n  enabled: true\n  mode: auto\n  markers_any: [\"__init__.py\"]\n  root: tool_dir\n  lib: lib/python\n  env_paths:\n    PYTHONPATH:\n      prepend: [\"{anchor_path}\", \"{runtime_lib}\"]\nverify_deps:\n  enabled: true\n  scope: anchor\n  extensions: [\".py\", \".json\"]\n  exclude_dirs: [\"__pycache__\"]\n"))
	f.Add([]byte("anchor: {lib: ../x}\nruntime_lib: [a/b]\n"))
	f.Add([]byte("verify_deps: {scope: tool_siblings, recursive: true}\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		md, err := item.ReadMetadata(item.Tool, "r.yaml", src)
		if err != nil {
			return
		}
		el := &Element{Loc: &space.Located{Kind: item.Tool, ID: "my/r", Rel: "tools/my/r.yaml"}, Meta: md}
		c := &Chain{Elements: []*Element{el}}
		ps := checkBlocks(c)
		a, aerr := AnchorOf(c)
		d, derr := DepsOf(c)
		l, lerr := LibOf(c)
		if (len(ps) == 0) != (aerr == nil && derr == nil && lerr == nil) {
			t.Fatalf("problems %v, but errors %v %v %v", ps, aerr, derr, lerr)
		}
		if len(ps) > 0 {
			return
		}
		if a != nil {
			if !slices.Contains(anchorModes, a.Mode) || !slices.Contains(anchorRoots, a.Root) {
				t.Fatalf("anchor %+v", a)
			}
			for _, m := range a.Markers {
				if m == "" || m == "." || m == ".." || strings.ContainsAny(m, `/\`) {
					t.Fatalf("marker %q", m)
				}
			}
		}
		if d != nil {
			if !slices.Contains(depsScopes, d.Scope) {
				t.Fatalf("scope %q", d.Scope)
			}
			for _, x := range d.Exts {
				if _, _, ok := item.Envelope(x); !ok {
					t.Fatalf("extension %q cannot carry a signature line", x)
				}
			}
			for _, x := range d.Exclude {
				if x == "" || x == "." || x == ".." || strings.ContainsAny(x, `/\`) {
					t.Fatalf("excluded %q", x)
				}
			}
		}
		if l != nil && l.Dir != "" && (!strings.HasPrefix(l.Dir, "tools/my/") || path.Clean(l.Dir) != l.Dir || slices.Contains(strings.Split(l.Dir, "/"), "..")) {
			t.Fatalf("library folder %q leaves tools/my", l.Dir)
		}
	})
}
