package executor

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ryekit/rye/chain"
	"github.com/ryekit/rye/space"
)

// depsChain builds and reads the chain of t/hello (a signed shell tool
// with the given verify_deps block) over the fixture's spaces.
func depsChain(t *testing.T, f *fixture, block string) *chain.Chain {
	t.Helper()
	tool := strings.Replace(shellTool("t/sub", shellRuntimeID, ""), "#     count: {type: integer}\n", "#     count: {type: integer}\n"+block, 1)
	f.write("project", "tools/t/sub/hello.sh", tool, f.key)
	c, err := chain.Build(f.ss, "t/sub/hello", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func helperFile(category string) string {
	return "#!/usr/bin/env bash\n# ---\n# version: \"1.0.0\"\n# tool_type: library\n# executor_id: null\n# category: " + category + "\n# description: helper\n# ---\nexport H=1\n"
}

// collectOf verifies what the chain of t/sub/hello (with the given
// verify_deps block) selects, and returns the selected files and the
// folder {anchor_path} names.
func collectOf(t *testing.T, f *fixture, block string) ([]string, string, error) {
	t.Helper()
	return collectWith(t, f, block, &verifier{trust: f.executor().Trust})
}

// collectWith is collectOf with the verifier v.
func collectWith(t *testing.T, f *fixture, block string, v *verifier) ([]string, string, error) {
	t.Helper()
	c := depsChain(t, f, block)
	rf, err := collectFiles(v, f.ss, c)
	if err != nil {
		return nil, "", err
	}
	var rels []string
	for _, fl := range rf.deps {
		rels = append(rels, fl.Loc.Rel)
	}
	return rels, rf.anchorRel, nil
}

// Every rule of a verify_deps block, and each refusal.
func TestVerifyDepsRules(t *testing.T) {
	layout := func(f *fixture) {
		f.write("project", "tools/t/sub/a.sh", helperFile("t/sub"), f.key)
		f.write("project", "tools/t/sub/deep/b.sh", helperFile("t/sub/deep"), f.key)
		f.write("project", "tools/t/sub/tests/c.sh", helperFile("t/sub/tests"), f.key)
		f.write("project", "tools/t/sub/d.py", "__version__ = \"1.0.0\"\n", nil) // another extension: not selected
		f.write("project", "tools/t/top.sh", helperFile("t"), f.key)
	}
	cases := []struct {
		name, block string
		want        string // selected files, or the error
		root        string
	}{
		{"the tool's folder, recursive by default", "# verify_deps: {}\n", "tools/t/sub/a.sh tools/t/sub/deep/b.sh tools/t/sub/tests/c.sh", "tools/t/sub"},
		{"tool_dir", "# verify_deps: {scope: tool_dir}\n", "tools/t/sub/a.sh tools/t/sub/deep/b.sh tools/t/sub/tests/c.sh", "tools/t/sub"},
		{"not recursive", "# verify_deps: {recursive: false}\n", "tools/t/sub/a.sh", "tools/t/sub"},
		{"tool_siblings never recurses", "# verify_deps: {scope: tool_siblings, recursive: true}\n", "tools/t/sub/a.sh", "tools/t/sub"},
		{"tool_file: the tool alone", "# verify_deps: {scope: tool_file}\n", "", ""},
		{"exclude_dirs", "# verify_deps: {exclude_dirs: [tests]}\n", "tools/t/sub/a.sh tools/t/sub/deep/b.sh", "tools/t/sub"},
		{"tool_parent", "# verify_deps: {scope: tool_parent, exclude_dirs: [deep, tests]}\n", "tools/t/sub/a.sh tools/t/top.sh", "tools/t"},
		{"disabled", "# verify_deps: {enabled: false}\n", "", ""},
		{"bad scope", "# verify_deps: {scope: everywhere}\n", `verify_deps: scope must be one of anchor, tool_dir, tool_siblings, tool_file, tool_parent`, ""},
		{"an extension that cannot be signed", "# verify_deps: {extensions: [.txt]}\n", `verify_deps: extension ".txt" cannot carry a signature line`, ""},
		{"an unknown key", "# verify_deps: {scopes: tool_dir}\n", `verify_deps: unknown key "scopes"`, ""},
		{"not a mapping", "# verify_deps: [a]\n", "verify_deps: must be a mapping", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			layout(f)
			got, root, err := collectOf(t, f, c.block)
			if err != nil {
				if c.want == "" || !strings.Contains(err.Error(), c.want) {
					t.Errorf("error %v, want %q", err, c.want)
				}
				return
			}
			if strings.Join(got, " ") != c.want || root != c.root {
				t.Errorf("selected %v under %q, want %q under %q", got, root, c.want, c.root)
			}
		})
	}
}

func TestVerifyDepsRefusals(t *testing.T) {
	t.Run("the whole tools folder", func(t *testing.T) {
		f := newFixture(t)
		tool := strings.Replace(shellTool("t", shellRuntimeID, ""), "#     count: {type: integer}\n", "#     count: {type: integer}\n# verify_deps: {scope: tool_parent}\n", 1)
		f.write("project", "tools/t/hello.sh", tool, f.key)
		c, err := chain.Build(f.ss, "t/hello", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := collectFiles(&verifier{trust: f.executor().Trust}, f.ss, c); err == nil || !strings.Contains(err.Error(), "whole tools folder") {
			t.Errorf("got %v", err)
		}
	})
	// A link is refused wherever it points: to a signed helper the walk
	// would otherwise select, or to a folder (without a selected
	// extension, which the walk would otherwise pass over in silence).
	for _, link := range []struct{ name, target string }{
		{"link.sh", "a.sh"},
		{"vendor", "../elsewhere"},
	} {
		t.Run("a symbolic link under the scope: "+link.name+" to "+link.target, func(t *testing.T) {
			f := newFixture(t)
			f.write("project", "tools/t/sub/a.sh", helperFile("t/sub"), f.key)
			f.write("project", "tools/t/elsewhere/b.sh", helperFile("t/sub/vendor"), f.key)
			if err := os.Symlink(link.target, filepath.Join(f.project, ".ai/tools/t/sub", link.name)); err != nil {
				t.Fatal(err)
			}
			_, _, err := collectOf(t, f, "# verify_deps: {}\n")
			if !errors.Is(err, space.ErrSymlink) || !strings.Contains(err.Error(), "tools/t/sub/"+link.name) {
				t.Errorf("got %v", err)
			}
		})
	}
	t.Run("limits", func(t *testing.T) {
		f := newFixture(t)
		f.write("project", "tools/t/sub/a.sh", helperFile("t/sub"), f.key)
		f.write("project", "tools/t/sub/b.sh", helperFile("t/sub"), f.key)
		v := &verifier{trust: f.executor().Trust, maxDeps: 1}
		if _, _, err := collectWith(t, f, "# verify_deps: {}\n", v); err == nil || !strings.Contains(err.Error(), "more than 1 files") {
			t.Errorf("file limit: %v", err)
		}
		v.maxDeps, v.maxDepBytes = 10, 100
		if _, _, err := collectWith(t, f, "# verify_deps: {}\n", v); err == nil || !strings.Contains(err.Error(), "more than 100 bytes") {
			t.Errorf("size limit: %v", err)
		}
	})
}

// Two runtime_lib items with the same file name would overwrite each
// other in {runtime_lib}: refused.
func TestRuntimeLibNameClash(t *testing.T) {
	f := newFixture(t)
	f.write("project", "tools/t/a/loader.py", "__version__ = \"1.0.0\"\n__tool_type__ = \"library\"\n__executor_id__ = None\n__category__ = \"t/a\"\n__tool_description__ = \"l\"\n", f.key)
	f.write("project", "tools/t/b/loader.py", "__version__ = \"1.0.0\"\n__tool_type__ = \"library\"\n__executor_id__ = None\n__category__ = \"t/b\"\n__tool_description__ = \"l\"\n", f.key)
	f.write("project", "tools/t/runtime.yaml", "version: \"1.0.0\"\ntool_type: runtime\nexecutor_id: rye/core/primitives/subprocess\ncategory: t\ndescription: r\nruntime_lib: [t/a/loader, t/b/loader]\nconfig:\n  command: python3\n  args: [\"{runtime_lib}/loader.py\", \"{tool_path}\"]\n", f.key)
	f.write("project", "tools/t/hello.sh", shellTool("t", "t/runtime", ""), f.key)
	_, err := f.executor().Prepare("t/hello", prepareOptions{})
	if err == nil || !strings.Contains(err.Error(), "share the file name loader.py") {
		t.Errorf("got %v", err)
	}
}

// A dependency that does not verify ends the reported chain with its verdict.
func TestFailingDependencyIsReported(t *testing.T) {
	f := newFixture(t)
	depsChain(t, f, "# verify_deps: {}\n")
	f.write("project", "tools/t/sub/a.sh", helperFile("t/sub"), nil)
	p, err := f.executor().Prepare("t/sub/hello", prepareOptions{})
	var ve *VerifyError
	if !errors.As(err, &ve) || ve.Role != "dependency" {
		t.Fatalf("got %v", err)
	}
	if last := p.Links[len(p.Links)-1]; last.ItemID != "t/sub/a" || last.Verdict != "unsigned" {
		t.Errorf("links %+v", p.Links)
	}
}
