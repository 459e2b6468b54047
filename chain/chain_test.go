package chain

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/space"
)

// spaces writes files into project, user and system roots (keys are
// "project:tools/a.yaml") and returns the spaces over them.
func spaces(t *testing.T, files map[string]string) *space.Spaces {
	t.Helper()
	dir := t.TempDir()
	roots := map[string]string{}
	for _, name := range []string{"project", "user", "system"} {
		roots[name] = filepath.Join(dir, name)
		os.MkdirAll(filepath.Join(roots[name], ".ai"), 0o755)
	}
	for key, content := range files {
		space, rel, _ := strings.Cut(key, ":")
		p := filepath.Join(roots[space], ".ai", filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return &space.Spaces{
		Project: space.NewDiskSpace(space.Project, roots["project"], ""),
		User:    space.NewDiskSpace(space.User, roots["user"], ""),
		System:  []*space.Space{space.NewDiskSpace(space.System, roots["system"], "system")},
	}
}

const subprocess = `version: "1.0.0"
tool_type: primitive
executor_id: null
config_schema:
  type: object
  properties: {command: {type: string}, args: {type: array}}
  required: [command]
`

const httpClient = `version: "1.0.0"
tool_type: primitive
executor_id: null
config_schema:
  type: object
  properties: {url: {type: string}}
  required: [url]
`

func runtimeYAML(executor, extra string) string {
	return fmt.Sprintf("version: \"1.0.0\"\ntool_type: runtime\nexecutor_id: %s\nconfig:\n  command: python3\n  args: [\"{tool_path}\", \"{params_json}\"]\n%s", executor, extra)
}

func toolYAML(executor, extra string) string {
	return fmt.Sprintf("version: \"1.0.0\"\ntool_type: yaml\nexecutor_id: %s\n%s", executor, extra)
}

const prim = "tools/rye/core/primitives/subprocess.yaml"

func problems(ps []Problem) string {
	var s []string
	for _, p := range ps {
		s = append(s, p.String())
	}
	return strings.Join(s, "\n")
}

func TestGoodChainsInEverySpaceCombination(t *testing.T) {
	for _, c := range []struct{ tool, runtime, primitive string }{
		{"project", "project", "project"}, {"project", "user", "system"}, {"project", "system", "system"},
		{"project", "project", "user"}, {"user", "user", "system"}, {"user", "system", "system"},
		{"system", "system", "system"},
	} {
		ss := spaces(t, map[string]string{
			c.tool + ":tools/my/tool.yaml":       toolYAML("my/runtime", ""),
			c.runtime + ":tools/my/runtime.yaml": runtimeYAML("rye/core/primitives/subprocess", ""),
			c.primitive + ":" + prim:             subprocess,
		})
		ch, err := Build(ss, "my/tool", nil, nil)
		if err != nil {
			t.Errorf("%v: %v", c, err)
			continue
		}
		got := fmt.Sprint(ch.IDs(), ch.Elements[0].Space(), ch.Elements[1].Space(), ch.Elements[2].Space())
		want := fmt.Sprint([]item.ID{"my/tool", "my/runtime", "rye/core/primitives/subprocess"}, c.tool, c.runtime, c.primitive)
		if got != want {
			t.Errorf("chain %s, want %s", got, want)
		}
		if ps := Validate(ch, Options{}); len(ps) != 0 {
			t.Errorf("%v: %s", c, problems(ps))
		}
	}
}

func TestBuildErrors(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"missing executor at depth 1", map[string]string{"project:tools/my/tool.yaml": toolYAML("my/nope", "")},
			`my/tool → ?: executor "my/nope" not found (searched project, user, system)`},
		{"missing executor at depth 2", map[string]string{
			"user:tools/my/tool.yaml":    toolYAML("my/runtime", ""),
			"user:tools/my/runtime.yaml": runtimeYAML("my/nope", "")},
			`my/tool → my/runtime → ?: executor "my/nope" not found (searched user, system)`},
		{"narrowing: system cannot see project", map[string]string{
			"project:tools/my/tool.yaml":        toolYAML("my/runtime", ""),
			"system:tools/my/runtime.yaml":      runtimeYAML("my/projectonly", ""),
			"project:tools/my/projectonly.yaml": runtimeYAML("rye/core/primitives/subprocess", "")},
			`my/tool → my/runtime → ?: executor "my/projectonly" not found (searched system)`},
		{"cycle", map[string]string{
			"project:tools/my/a.yaml": toolYAML("my/b", ""),
			"project:tools/my/b.yaml": runtimeYAML("my/a", "")},
			`my/a → my/b → ?: cycle: my/a is already in the chain`},
		{"tool not found", map[string]string{}, `tool "my/tool" not found`},
		{"bad executor id", map[string]string{"project:tools/my/tool.yaml": toolYAML("'../x'", "")},
			`my/tool → ?: executor_id: invalid item id "../x"`},
		{"unparsable element", map[string]string{
			"project:tools/my/tool.yaml":    toolYAML("my/runtime", ""),
			"project:tools/my/runtime.yaml": "a: [\n"},
			`my/tool → my/runtime → ?: its metadata does not parse`},
	}
	for _, c := range cases {
		ss := spaces(t, c.files)
		_, err := Build(ss, "my/tool", nil, nil)
		if c.name == "cycle" {
			_, err = Build(ss, "my/a", nil, nil)
		}
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: %v\nwant %s", c.name, err, c.want)
		}
	}
	// Depth: 10 elements are fine, 11 are not.
	files := map[string]string{"project:" + prim: subprocess}
	for i := 0; i < 10; i++ {
		next := fmt.Sprintf("my/r%d", i+1)
		if i == 8 {
			next = "rye/core/primitives/subprocess"
		}
		files[fmt.Sprintf("project:tools/my/r%d.yaml", i)] = runtimeYAML(next, "")
	}
	ch, err := Build(spaces(t, files), "my/r0", nil, nil)
	if err != nil || len(ch.Elements) != 10 {
		t.Fatalf("10 elements: %v", err)
	}
	files["project:tools/my/r8.yaml"] = runtimeYAML("my/r9", "")
	files["project:tools/my/r9.yaml"] = runtimeYAML("rye/core/primitives/subprocess", "")
	if _, err := Build(spaces(t, files), "my/r0", nil, nil); err == nil || !strings.Contains(err.Error(), "longer than 10 elements") {
		t.Errorf("11 elements: %v", err)
	}
}

func TestValidate(t *testing.T) {
	base := map[string]string{"system:" + prim: subprocess, "system:tools/rye/core/primitives/http_client.yaml": httpClient}
	with := func(extra map[string]string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	cases := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"middle element not a runtime", with(map[string]string{
			"project:tools/my/tool.yaml":    toolYAML("my/runtime", ""),
			"project:tools/my/runtime.yaml": strings.Replace(runtimeYAML("rye/core/primitives/subprocess", ""), "tool_type: runtime", "tool_type: python", 1)}),
			`my/runtime: my/runtime sits between the tool and the primitive, so its tool_type must be "runtime", found "python"`},
		{"root not a primitive", with(map[string]string{
			"project:tools/my/tool.yaml":    toolYAML("my/runtime", ""),
			"project:tools/my/runtime.yaml": "version: \"1.0.0\"\ntool_type: runtime\nexecutor_id: null\n"}),
			`my/runtime: the chain ends at my/runtime, whose tool_type is "runtime": a chain ends at a primitive`},
		{"unknown primitive", with(map[string]string{
			"project:tools/my/tool.yaml": toolYAML("my/prim", ""),
			"project:tools/my/prim.yaml": "version: \"1.0.0\"\ntool_type: primitive\nexecutor_id: null\n"}),
			`my/prim: unknown primitive my/prim: rye runs rye/core/primitives/subprocess and rye/core/primitives/http_client`},
		{"not executable", with(map[string]string{"project:tools/my/tool.yaml": toolYAML("null", "")}),
			`my/tool: my/tool has no executor_id: it is not executable`},
		{"runtime needs {script}", with(map[string]string{
			"project:tools/my/tool.yaml":    toolYAML("my/runtime", "config_schema: {type: object, properties: {cmd: {type: string}}}\n"),
			"project:tools/my/runtime.yaml": runtimeYAML("rye/core/primitives/subprocess", "  input_data: \"{script}\"\n")}),
			`my/runtime: runtime my/runtime needs {script} but tool my/tool declares no parameter "script" (declared: cmd)`},
		{"primitive missing url", with(map[string]string{
			"project:tools/my/tool.yaml": toolYAML("rye/core/primitives/http_client", "config: {method: GET}\n")}),
			`my/tool: primitive rye/core/primitives/http_client needs config "url", and no element of the chain sets it`},
		{"version below minimum", with(map[string]string{
			"project:tools/my/tool.yaml":    toolYAML("my/runtime", ""),
			"project:tools/my/runtime.yaml": runtimeYAML("rye/core/primitives/subprocess", "child_constraints:\n  \"my/*\": {min_version: \"1.2.0\"}\n")}),
			`my/tool: my/runtime requires my/tool version at least 1.2.0, found 1.0.0`},
		{"version above maximum (pre-release)", with(map[string]string{
			"project:tools/my/tool.yaml":    strings.Replace(toolYAML("my/runtime", ""), "1.0.0", "2.0.0-rc.1", 1),
			"project:tools/my/runtime.yaml": runtimeYAML("rye/core/primitives/subprocess", "child_constraints:\n  my/tool: {max_version: \"1.9.9\"}\n")}),
			`my/tool: my/runtime requires my/tool version at most 1.9.9, found 2.0.0-rc.1`},
		{"bad constraint", with(map[string]string{
			"project:tools/my/tool.yaml":    toolYAML("my/runtime", ""),
			"project:tools/my/runtime.yaml": runtimeYAML("rye/core/primitives/subprocess", "child_constraints:\n  my/tool: {min_version: \"1\"}\n")}),
			`my/runtime: child_constraints my/tool.min_version: "1" is not a semantic version`},
		{"unversioned child", with(map[string]string{
			"project:tools/my/tool.yaml":    strings.Replace(toolYAML("my/runtime", ""), "version: \"1.0.0\"\n", "", 1),
			"project:tools/my/runtime.yaml": runtimeYAML("rye/core/primitives/subprocess", "child_constraints:\n  my/tool: {min_version: \"1.0.0\"}\n")}),
			`my/tool: my/runtime constrains the version of my/tool, whose version "" is not a semantic version`},
		{"inputs not among outputs", with(map[string]string{
			"project:tools/my/tool.yaml":    toolYAML("my/runtime", "outputs: [a]\n"),
			"project:tools/my/runtime.yaml": runtimeYAML("rye/core/primitives/subprocess", "inputs: [a, b]\n")}),
			`my/tool: my/runtime needs input "b", which my/tool does not list in its outputs`},
		{"runtime_lib undeclared", with(map[string]string{
			"project:tools/my/tool.yaml":    toolYAML("my/runtime", ""),
			"project:tools/my/runtime.yaml": runtimeYAML("rye/core/primitives/subprocess", "  input_data: \"{runtime_lib}/loader.py\"\n")}),
			`my/runtime: my/runtime uses {runtime_lib} but no element of the chain declares anchor.lib (a library folder) or runtime_lib (library item ids)`},
	}
	for _, c := range cases {
		ch, err := Build(spaces(t, c.files), "my/tool", nil, nil)
		if err != nil {
			t.Errorf("%s: build: %v", c.name, err)
			continue
		}
		if got := problems(Validate(ch, Options{})); got != c.want && !strings.HasPrefix(got, c.want) {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
	// Satisfied constraints, declared parameters, context names and literal
	// braces give no problems.
	ok := with(map[string]string{
		"project:tools/my/tool.yaml": toolYAML("my/runtime", "version: \"1.5.0\"\nconfig_schema: {type: object, properties: {script: {type: string}}}\n"),
		"project:tools/my/runtime.yaml": runtimeYAML("rye/core/primitives/subprocess",
			"  input_data: \"{script} {{literal}} {} ${HOME} {project_path} {runtime_lib}\"\nruntime_lib: [my/lib]\nchild_constraints:\n  my/tool: {min_version: \"1.5.0-rc.1\", max_version: \"1.5.0\"}\n"),
	})
	ok["project:tools/my/tool.yaml"] = strings.Replace(ok["project:tools/my/tool.yaml"], "version: \"1.0.0\"\n", "", 1)
	ch, err := Build(spaces(t, ok), "my/tool", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ps := Validate(ch, Options{}); len(ps) != 0 {
		t.Errorf("good chain: %s", problems(ps))
	}
}

// The reference's runtime (spec 6.6): an anchor: block, verify_deps with
// scope anchor, {runtime_lib} from anchor.lib, and a tool that declares no
// schema (its parameters are passed on, so the runtime's placeholders may
// come from them). Then every way a block can be wrong.
func TestValidateAnchor(t *testing.T) {
	const anchored = `anchor:
  enabled: true
  mode: auto
  markers_any: ["__init__.py", "pyproject.toml"]
  root: tool_dir
  lib: lib/python
  cwd: "{anchor_path}"
  env_paths:
    PYTHONPATH:
      prepend: ["{anchor_path}", "{runtime_lib}"]
      append: []
verify_deps:
  enabled: true
  scope: anchor
  recursive: true
  extensions: [".py", ".yaml", ".yml", ".json"]
  exclude_dirs: ["__pycache__", ".venv", "node_modules", ".git", "config"]
`
	build := func(t *testing.T, runtimeExtra, tool string) *Chain {
		t.Helper()
		ch, err := Build(spaces(t, map[string]string{
			"system:" + prim:                subprocess,
			"project:tools/my/runtime.yaml": runtimeYAML("rye/core/primitives/subprocess", "  input_data: \"{runtime_lib} {script}\"\n"+runtimeExtra),
			"project:tools/my/tool.yaml":    tool,
		}), "my/tool", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		return ch
	}
	ch := build(t, anchored, toolYAML("my/runtime", ""))
	if ps := Validate(ch, Options{}); len(ps) != 0 {
		t.Errorf("the reference's runtime: %s", problems(ps))
	}
	a, err := AnchorOf(ch)
	if err != nil || !a.Enabled || a.Mode != "auto" || a.Root != "tool_dir" || strings.Join(a.Markers, " ") != "__init__.py pyproject.toml" ||
		a.Cwd != "{anchor_path}" || len(a.EnvPaths) != 1 || a.EnvPaths[0].Var != "PYTHONPATH" || strings.Join(a.EnvPaths[0].Prepend, " ") != "{anchor_path} {runtime_lib}" {
		t.Errorf("anchor %+v %v", a, err)
	}
	d, err := DepsOf(ch)
	if err != nil || d.Scope != "anchor" || !d.Enabled || !d.Recursive || strings.Join(d.Exts, " ") != ".py .yaml .yml .json" || len(d.Exclude) != 5 {
		t.Errorf("deps %+v %v", d, err)
	}
	l, err := LibOf(ch)
	if err != nil || l.Dir != "tools/my/lib/python" || l.Owner.ID() != "my/runtime" {
		t.Errorf("lib %+v %v", l, err)
	}
	// The reference's node_runtime block reads too.
	const node = `anchor:
  enabled: true
  mode: auto
  markers_any: ["package.json"]
  root: tool_dir
  lib: lib/node
  cwd: "{anchor_path}"
  env_paths:
    NODE_PATH:
      prepend: ["{anchor_path}", "{anchor_path}/node_modules"]
verify_deps:
  enabled: true
  scope: anchor
  recursive: true
  extensions: [".js", ".ts", ".mjs", ".cjs", ".json", ".yaml", ".yml"]
  exclude_dirs: ["node_modules", "__pycache__", ".git", "dist", "build"]
`
	if ps := Validate(build(t, node, toolYAML("my/runtime", "")), Options{}); len(ps) != 0 {
		t.Errorf("the reference's node runtime: %s", problems(ps))
	}
	// With a schema, {script} must be declared.
	ch = build(t, anchored, toolYAML("my/runtime", "config_schema: {type: object, properties: {x: {type: string}}}\n"))
	if got := problems(Validate(ch, Options{})); !strings.Contains(got, `needs {script} but tool my/tool declares no parameter "script" (declared: x)`) {
		t.Errorf("with a schema: %s", got)
	}
	cases := []struct{ extra, want string }{
		{"anchor: [a]\n", "my/runtime: my/runtime: anchor: must be a mapping"},
		{"anchor: {enabled: yes please}\n", "anchor: enabled must be true or false"},
		{"anchor: {mode: sometimes}\n", "anchor: mode must be one of auto, always, never"},
		{"anchor: {root: project_path}\n", "anchor: root project_path is not supported"},
		{"anchor: {root: elsewhere}\n", "anchor: root must be one of tool_dir, tool_parent"},
		{"anchor: {markers_any: [a/b]}\n", `anchor: markers_any: "a/b" is not a file name`},
		{"anchor: {lib: ../shared}\n", `anchor: lib "../shared" leaves the runtime's folder tools/my`},
		{"anchor: {lib: /usr/lib}\n", `anchor: lib "/usr/lib" leaves the runtime's folder`},
		{"anchor: {lib: \"\"}\n", `anchor: lib must be a folder below tools/my`},
		{"anchor: {env_path: {}}\n", `anchor: unknown key "env_path"`},
		{"anchor: {env_paths: {\"A-B\": {prepend: [x]}}}\n", `anchor: env_paths: "A-B" is not a variable name`},
		{"anchor: {env_paths: {P: {prepnd: [x]}}}\n", `anchor.env_paths.P: unknown key "prepnd"`},
		{"anchor: {env_paths: {P: {prepend: x}}}\n", `anchor.env_paths.P: prepend must be a list of strings`},
		{"anchor: {lib: lib}\nruntime_lib: [my/x]\n", "runtime_lib: declare the library either as anchor.lib (a folder) or as runtime_lib (item ids), not both"},
		{"verify_deps: {scope: anchors}\n", "verify_deps: scope must be one of anchor, tool_dir, tool_siblings, tool_file, tool_parent"},
		{"verify_deps: {extensions: [.txt]}\n", `verify_deps: extension ".txt" cannot carry a signature line`},
		{"verify_deps: {exclude_dirs: [..]}\n", `verify_deps: exclude_dirs: ".." is not a file name`},
		{"verify_deps: {recursive: 1}\n", "verify_deps: recursive must be true or false"},
	}
	for _, c := range cases {
		extra := c.extra
		if !strings.Contains(extra, "runtime_lib") {
			extra = "runtime_lib: [my/lib]\n" + extra // {runtime_lib} is provided
		}
		ch := build(t, extra, toolYAML("my/runtime", ""))
		if got := problems(Validate(ch, Options{})); !strings.Contains(got, c.want) {
			t.Errorf("%q:\n got %s\nwant %s", c.extra, got, c.want)
		}
	}
	// A null block is no block, as the reference read it.
	ch = build(t, "runtime_lib: [my/lib]\nanchor: null\nverify_deps:\n", toolYAML("my/runtime", ""))
	if a, _ := AnchorOf(ch); a != nil || len(Validate(ch, Options{})) != 0 {
		t.Errorf("null blocks: %+v %s", a, problems(Validate(ch, Options{})))
	}
	if d, _ := DepsOf(ch); d != nil {
		t.Errorf("null verify_deps: %+v", d)
	}
	// The tool's own block wins over the runtime's, and {runtime_lib} comes
	// from the first element with a library.
	ch = build(t, anchored, toolYAML("my/runtime", "anchor: {enabled: false}\nverify_deps: {enabled: false}\n"))
	if a, _ := AnchorOf(ch); a.Enabled || a.Owner.ID() != "my/tool" {
		t.Errorf("nearest anchor: %+v", a)
	}
	if d, _ := DepsOf(ch); d.Enabled || d.Owner.ID() != "my/tool" {
		t.Errorf("nearest verify_deps: %+v", d)
	}
	if l, _ := LibOf(ch); l.Owner.ID() != "my/runtime" {
		t.Errorf("lib: %+v", l)
	}
}

func TestSpaceViolationInAHandWrittenChain(t *testing.T) {
	ss := spaces(t, map[string]string{
		"user:tools/my/tool.yaml":       toolYAML("my/runtime", ""),
		"project:tools/my/runtime.yaml": runtimeYAML("rye/core/primitives/subprocess", ""),
		"system:" + prim:                subprocess,
	})
	var els []*Element
	for _, loc := range []struct {
		sp *space.Space
		id item.ID
	}{{ss.User, "my/tool"}, {ss.Project, "my/runtime"}, {ss.System[0], "rye/core/primitives/subprocess"}} {
		l, err := ss.Resolve(item.Tool, loc.id, []*space.Space{loc.sp})
		if err != nil {
			t.Fatal(err)
		}
		el, err := readElement(l, func(l *space.Located) (*item.Item, error) { return l.Load() })
		if err != nil {
			t.Fatal(err)
		}
		els = append(els, el)
	}
	got := problems(Validate(&Chain{Elements: els}, Options{}))
	if got != "my/tool: my/tool (user space) depends on my/runtime in the project space: an item may only depend on its own space or a lower one (project > user > system)" {
		t.Errorf("got %s", got)
	}
}

func TestPlaceholders(t *testing.T) {
	cases := map[string]string{
		"{a} and {b_2}":       "a@0 b_2@8",
		"{{a}} {}{ 1} {-x}":   "",
		"${HOME}/{tool_path}": "tool_path@8",
		"{\"a\": 1} {x":       "",
		"${UNTERMINATED {a}":  "",
		"{a}}{b}":             "a@0 b@4",
		"{{{a}}}":             "a@2",
	}
	for in, want := range cases {
		var got []string
		for _, p := range Placeholders(in) {
			got = append(got, fmt.Sprintf("%s@%d", p.Name, p.Off))
		}
		if strings.Join(got, " ") != want {
			t.Errorf("%q: %v, want %s", in, got, want)
		}
	}
}
