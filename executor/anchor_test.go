package executor

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ryekit/rye/chain"
	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/sign"
)

// anchoredRuntime is a project runtime in the shape of the reference's
// python_script_runtime (spec 6.6), running bash: an anchor with markers,
// a lib folder, env_paths and cwd, and verify_deps with scope anchor.
const anchoredRuntime = `version: "1.0.0"
tool_type: runtime
executor_id: rye/core/primitives/subprocess
category: t/rt
description: anchored shell runtime
anchor:
  enabled: true
  mode: auto
  markers_any: ["pkg.toml"]
  root: tool_dir
  lib: lib
  cwd: "{anchor_path}"
  env_paths:
    MYPATH:
      prepend: ["{anchor_path}", "{runtime_lib}"]
      append: ["{tool_dir}/extra"]
verify_deps:
  enabled: true
  scope: anchor
  extensions: [".sh", ".json"]
  exclude_dirs: ["skipped"]
config:
  command: bash
  args: ["{tool_path}"]
`

// anchoredTool prints what the anchor gave it: MYPATH, its working
// directory, what a helper beside it set, the files of its folder in the
// run and of the library folder.
const anchoredTool = `#!/usr/bin/env bash
# ---
# version: "1.0.0"
# tool_type: shell
# executor_id: t/rt/runtime
# category: t/pkg
# description: anchored tool
# ---
here="$(dirname "$0")"
[ -f "$here/helper.sh" ] && source "$here/helper.sh"
IFS=: read -r first lib rest <<< "$MYPATH"
touch "$PROJECT_MARKER"
printf '{"mypath": "%s", "pwd": "%s", "helper": "%s", "files": "%s", "lib": "%s"}\n' "$MYPATH" "$(pwd)" "$FROM_HELPER" \
  "$(cd "$here" && find . -type f | sort | tr '\n' ' ')" "$( [ -d "$lib" ] && cd "$lib" && find . -type f | sort | tr '\n' ' ')"
`

func libFile(category string) string {
	return "# ---\n# version: \"1.0.0\"\n# tool_type: library\n# category: " + category + "\n# description: lib\n# ---\nexport LIB=1\n"
}

// anchoredProject writes the runtime, its lib folder, the tool package
// (with its marker) and returns an executor whose environment has a
// MYPATH of the caller's own.
func anchoredProject(t *testing.T) (*fixture, *Executor) {
	needBash(t)
	f := newFixture(t)
	f.write("project", "tools/t/rt/runtime.yaml", anchoredRuntime, f.key)
	f.write("project", "tools/t/rt/lib/a.sh", libFile("t/rt/lib"), f.key)
	f.write("project", "tools/t/rt/lib/sub/b.sh", libFile("t/rt/lib/sub"), f.key)
	f.write("project", "tools/t/rt/lib/notes.txt", "not selected\n", nil)
	f.write("project", "tools/t/pkg/tool.sh", anchoredTool, f.key)
	f.write("project", "tools/t/pkg/helper.sh", strings.Replace(helperFile("t/pkg"), "export H=1", "export FROM_HELPER=yes", 1), f.key)
	f.write("project", "tools/t/pkg/deep/more.sh", helperFile("t/pkg/deep"), f.key)
	f.write("project", "tools/t/pkg/skipped/junk.sh", "unsigned and excluded\n", nil)
	f.write("project", "tools/t/pkg/pkg.toml", "[project]\nname = \"pkg\"\n", nil) // the marker: not selected
	// A data file of the package, signed v1 by the reference: a "#" line.
	data, err := sign.Sign(f.key, sign.V1, item.Tool, "t/pkg/data", ".json", []byte("{\"k\": 1}\n"), time.Date(2026, 2, 11, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.project, ".ai/tools/t/pkg/data.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	x := f.executor()
	x.Environ = append(x.Environ, "MYPATH=/caller/own", "PROJECT_MARKER="+filepath.Join(f.project, "ran.marker"))
	return f, x
}

// The anchor applies (its marker is in the tool's folder): every file of
// the package and of the library folder verified, and exactly those in the
// run; MYPATH gets the copies in front and at the end, the caller's entry
// kept; the working directory is the copy of the package.
func TestAnchorApplies(t *testing.T) {
	f, x := anchoredProject(t)
	p, err := x.Prepare("t/pkg/tool", prepareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var runRoot string
	x.beforeStart = func(*plan) {
		entries, _ := os.ReadDir(x.TempDir)
		runRoot = filepath.Join(x.TempDir, entries[0].Name())
	}
	r := x.Run(t.Context(), p, runOptions{})
	if !r.Succeeded() || !f.marker() {
		t.Fatalf("run: %+v", r)
	}
	d := r.Data.(map[string]any)
	anchor := filepath.Join(runRoot, "ai", "tools", "t", "pkg")
	lib := filepath.Join(runRoot, "lib")
	sep := string(os.PathListSeparator)
	if want := anchor + sep + lib + sep + "/caller/own" + sep + filepath.Join(anchor, "extra"); d["mypath"] != want {
		t.Errorf("MYPATH %q, want %q", d["mypath"], want)
	}
	if d["pwd"] != anchor || d["helper"] != "yes" {
		t.Errorf("pwd %q helper %q", d["pwd"], d["helper"])
	}
	if d["files"] != "./data.json ./deep/more.sh ./helper.sh ./tool.sh " {
		t.Errorf("package files in the run: %q", d["files"])
	}
	if d["lib"] != "./a.sh ./sub/b.sh " {
		t.Errorf("library files in the run: %q", d["lib"])
	}
}

// Without its marker the anchor does not apply: verify_deps does not run
// (as in the reference), so nothing of the package but the tool is in the
// run, and MYPATH and the working directory are left alone.
func TestAnchorDoesNotApply(t *testing.T) {
	f, x := anchoredProject(t)
	os.Remove(filepath.Join(f.project, ".ai/tools/t/pkg/pkg.toml"))
	f.write("project", "tools/t/pkg/unsigned.sh", "exit 1\n", nil)
	r, err := f.execute(x, "t/pkg/tool", nil)
	if err != nil || !r.Succeeded() {
		t.Fatalf("run: %v %+v", err, r)
	}
	d := r.Data.(map[string]any)
	if d["mypath"] != "/caller/own" || d["pwd"] != f.project || d["helper"] != "" || d["files"] != "./tool.sh " {
		t.Errorf("got %v", d)
	}
}

// Anything selected that does not verify stops the run before it starts.
func TestAnchorRefusals(t *testing.T) {
	t.Run("a dependency edited after signing", func(t *testing.T) {
		f, x := anchoredProject(t)
		p := filepath.Join(f.project, ".ai/tools/t/pkg/deep/more.sh")
		data, _ := os.ReadFile(p)
		os.WriteFile(p, []byte(strings.Replace(string(data), "export H=1", "export H=2", 1)), 0o644)
		_, err := f.execute(x, "t/pkg/tool", nil)
		var ve *VerifyError
		if !errors.As(err, &ve) || ve.Role != "dependency" || ve.Result.ID != "t/pkg/deep/more" || ve.Result.Verdict != "modified" || f.marker() {
			t.Errorf("got %v", err)
		}
	})
	t.Run("an unsigned data file", func(t *testing.T) {
		f, x := anchoredProject(t)
		os.WriteFile(filepath.Join(f.project, ".ai/tools/t/pkg/data.json"), []byte("{\"k\": 2}\n"), 0o644)
		_, err := f.execute(x, "t/pkg/tool", nil)
		var ve *VerifyError
		if !errors.As(err, &ve) || ve.Result.ID != "t/pkg/data" || ve.Result.Verdict != "unsigned" || f.marker() {
			t.Errorf("got %v", err)
		}
	})
	t.Run("an unsigned library file", func(t *testing.T) {
		f, x := anchoredProject(t)
		f.write("project", "tools/t/rt/lib/sub/c.sh", "exit 1\n", nil)
		_, err := f.execute(x, "t/pkg/tool", nil)
		var ve *VerifyError
		if !errors.As(err, &ve) || ve.Role != "library" || ve.Result.ID != "t/rt/lib/sub/c" || f.marker() {
			t.Errorf("got %v", err)
		}
	})
	t.Run("env_paths outside the run", func(t *testing.T) {
		f, x := anchoredProject(t)
		f.write("project", "tools/t/rt/runtime.yaml", strings.Replace(anchoredRuntime, `append: ["{tool_dir}/extra"]`, `append: ["{project_path}/lib"]`, 1), f.key)
		r, err := f.execute(x, "t/pkg/tool", nil)
		if err != nil || r.Succeeded() || !strings.Contains(r.Error, `anchor env_paths MYPATH: "`+filepath.Join(f.project, "lib")+`" (from "{project_path}/lib") is not a folder that rye verified and wrote for this run`) || f.marker() {
			t.Errorf("got %v %+v", err, r)
		}
	})
	// An entry is one folder: a path-list separator would smuggle in a
	// second, unchecked one (the project, whose unsigned module_loader.py
	// would shadow the verified library). However written, and wherever a
	// chain sets a load path (env_config.env, config.env), only the run's
	// folders and the caller's own entries pass.
	for name, edit := range map[string][2]string{
		"env_paths with a separator":       {`prepend: ["{anchor_path}", "{runtime_lib}"]`, `prepend: ["{anchor_path}:{project_path}", "{runtime_lib}"]`},
		"env_paths with a Windows one":     {`append: ["{tool_dir}/extra"]`, `append: ["{tool_dir}/extra;{project_path}"]`},
		"env_paths climbing out":           {`append: ["{tool_dir}/extra"]`, `append: ["{tool_dir}/../../../../../.."]`},
		"env_paths naming the user space":  {`append: ["{tool_dir}/extra"]`, `append: ["{user_space}"]`},
		"config.env PYTHONPATH":            {"config:\n", "config:\n  env: {PYTHONPATH: \"{project_path}\"}\n"},
		"config.env NODE_PATH in a list":   {"config:\n", "config:\n  env: {NODE_PATH: \"{anchor_path}:{project_path}/node_modules\"}\n"},
		"env_config.env PYTHONPATH":        {"config:\n", "env_config:\n  env: {PYTHONPATH: \"${PYTHONPATH}:/elsewhere\"}\nconfig:\n"},
		"env_config.env through a default": {"config:\n", "env_config:\n  env: {RUBYLIB: \"${RUBYLIB:-/elsewhere}\"}\nconfig:\n"},
	} {
		t.Run(name, func(t *testing.T) {
			f, x := anchoredProject(t)
			if !strings.Contains(anchoredRuntime, edit[0]) {
				t.Fatalf("no %q in the runtime", edit[0])
			}
			f.write("project", "tools/t/rt/runtime.yaml", strings.Replace(anchoredRuntime, edit[0], edit[1], 1), f.key)
			os.WriteFile(filepath.Join(f.project, "module_loader.py"), []byte("unsigned\n"), 0o644)
			r, err := f.execute(x, "t/pkg/tool", nil)
			msg := r.Error
			var ci *chainInvalidError
			if errors.As(err, &ci) {
				msg = ci.Error()
			}
			if r.Succeeded() || f.marker() || !(strings.Contains(msg, "holds a path-list separator") || strings.Contains(msg, "is not a folder that rye verified and wr")) {
				t.Errorf("got %v %+v", err, r)
			}
		})
	}
	t.Run("an unknown word in env_paths", func(t *testing.T) {
		f, x := anchoredProject(t)
		f.write("project", "tools/t/rt/runtime.yaml", strings.Replace(anchoredRuntime, `append: ["{tool_dir}/extra"]`, `append: ["{nowhere}"]`, 1), f.key)
		r, _ := f.execute(x, "t/pkg/tool", nil)
		if r.Succeeded() || !strings.Contains(r.Error, `"{nowhere}" (from "{nowhere}") is not a folder`) || f.marker() {
			t.Errorf("got %+v", r)
		}
	})
	t.Run("cwd outside the run", func(t *testing.T) {
		f, x := anchoredProject(t)
		f.write("project", "tools/t/rt/runtime.yaml", strings.Replace(anchoredRuntime, `cwd: "{anchor_path}"`, `cwd: "{user_space}"`, 1), f.key)
		r, _ := f.execute(x, "t/pkg/tool", nil)
		if r.Succeeded() || !strings.Contains(r.Error, "anchor cwd") || f.marker() {
			t.Errorf("got %+v", r)
		}
	})
	t.Run("a dependency swapped after verification", func(t *testing.T) {
		f, x := anchoredProject(t)
		p := filepath.Join(f.project, ".ai/tools/t/pkg/helper.sh")
		x.beforeStart = func(*plan) { os.WriteFile(p, []byte("export FROM_HELPER=swapped\n"), 0o644) }
		r, err := f.execute(x, "t/pkg/tool", nil)
		if err != nil || !r.Succeeded() || r.Data.(map[string]any)["helper"] != "yes" {
			t.Errorf("got %v %+v", err, r)
		}
	})
}

// mode always applies without a marker; root tool_parent anchors the
// package one folder up; never and enabled: false do not apply.
func TestAnchorModes(t *testing.T) {
	cases := []struct{ edit, files, pwdSuffix string }{
		{"mode: always\n  markers_any: []", "./data.json ./deep/more.sh ./helper.sh ./tool.sh ", "pkg"},
		{"mode: never", "./tool.sh ", ""},
		{"mode: auto\n  root: tool_parent\n  markers_any: [\"pkg.toml\"]", "./data.json ./deep/more.sh ./helper.sh ./tool.sh ", "t"},
	}
	for _, c := range cases {
		f, x := anchoredProject(t)
		rt := strings.Replace(anchoredRuntime, "mode: auto\n  markers_any: [\"pkg.toml\"]", c.edit, 1)
		rt = strings.Replace(rt, "  root: tool_dir\n", "", 1)
		f.write("project", "tools/t/rt/runtime.yaml", rt, f.key)
		if c.edit == "mode: always\n  markers_any: []" {
			os.Remove(filepath.Join(f.project, ".ai/tools/t/pkg/pkg.toml"))
		}
		r, err := f.execute(x, "t/pkg/tool", nil)
		if err != nil || !r.Succeeded() {
			t.Fatalf("%q: %v %+v", c.edit, err, r)
		}
		d := r.Data.(map[string]any)
		pwd, _ := d["pwd"].(string)
		if d["files"] != c.files || (c.pwdSuffix == "" && pwd != f.project) || (c.pwdSuffix != "" && !strings.HasSuffix(pwd, string(filepath.Separator)+c.pwdSuffix)) {
			t.Errorf("%q: %v", c.edit, d)
		}
	}
}

// checkLoadPaths, the last word on the environment: each entry of a
// load-path variable is the caller's own, in the run directory, or the
// project's node_modules the user allowed; a separator inside a template
// value (applyAnchorEnv) is refused too.
func TestLoadPathsOfTheFinalEnvironment(t *testing.T) {
	rd := &runDir{root: "/cache/rye/run/rye-run-1"}
	caller := newEnv([]string{"PYTHONPATH=/mine:/also/mine", "LD_LIBRARY_PATH=/opt/lib"})
	for env, want := range map[string]string{
		"PYTHONPATH=/cache/rye/run/rye-run-1/ai/t:/mine":      "",
		"PYTHONPATH=/cache/rye/run/rye-run-1/ai/../../../x":   `PYTHONPATH holds "/cache/rye/run/rye-run-1/ai/../../../x"`,
		"PYTHONPATH=/project":                                 `PYTHONPATH holds "/project", which is neither a folder that rye verified and wrote for this run nor from your own environment`,
		"NODE_PATH=/project/node_modules":                     `NODE_PATH holds "/project/node_modules"`,
		"LD_LIBRARY_PATH=/opt/lib:/cache/rye/run/rye-run-1/x": "",
		"PERL5LIB=lib":    `PERL5LIB holds "lib"`,
		"OTHER=/anything": "",
	} {
		err := checkLoadPaths([]string{env}, caller, rd, "")
		if (want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v", env, err)
		}
	}
	if err := checkLoadPaths([]string{"NODE_PATH=/project/node_modules"}, caller, rd, "/project/node_modules"); err != nil {
		t.Errorf("the node_modules the user allowed: %v", err)
	}
	// An empty entry is the working directory (the project) to Python and
	// the loaders: refused by the check, and dropped from what a chain
	// builds unless the caller's own value has one.
	sep := string(os.PathListSeparator)
	tail := "PYTHONPATH=/cache/rye/run/rye-run-1/ai/t" + sep
	if err := checkLoadPaths([]string{tail}, caller, rd, ""); err == nil {
		t.Error("an empty load-path entry passed the check")
	}
	if err := checkLoadPaths([]string{tail}, newEnv(nil), rd, ""); err == nil {
		t.Error("an empty load-path entry passed the check when the caller has none")
	}
	for _, c := range []struct {
		caller []string
		env    string
		want   []string
	}{
		{nil, tail, []string{"PYTHONPATH=/cache/rye/run/rye-run-1/ai/t"}},
		{nil, "NODE_PATH=" + sep + sep, nil},
		{nil, "OTHER=a" + sep, []string{"OTHER=a" + sep}},
		{[]string{"PYTHONPATH=/mine" + sep}, tail + "/mine" + sep, []string{tail + "/mine" + sep}},
	} {
		got := dropEmptyLoadPathEntries([]string{c.env}, newEnv(c.caller))
		if !slices.Equal(got, c.want) {
			t.Errorf("%v %q: %q, want %q", c.caller, c.env, got, c.want)
		}
		if err := checkLoadPaths(got, newEnv(c.caller), rd, ""); err != nil && c.env != "OTHER=a"+sep {
			t.Errorf("%q after dropping: %v", got, err)
		}
	}
	owner := chainOf(t, "description: x\n").Elements[0]
	a := &chain.Anchor{Owner: owner, EnvPaths: []chain.EnvPath{{Var: "PYTHONPATH", Prepend: []string{"{anchor_path}"}}}}
	ctx := map[string]string{"anchor_path": "/cache/rye/run/rye-run-1/ai/t" + string(os.PathListSeparator) + "/project"}
	if err := applyAnchorEnv(a, newEnv(nil), ctx, rd); err == nil || !strings.Contains(err.Error(), "holds the path-list separator") {
		t.Errorf("a separator in a context value: %v", err)
	}
}
