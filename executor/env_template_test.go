package executor

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ryekit/rye/chain"
	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/item/syntax"
	"github.com/ryekit/rye/params"
	"github.com/ryekit/rye/space"
)

func yamlNode(t *testing.T, src string) *syntax.Node {
	t.Helper()
	md, err := item.ReadMetadata(item.Tool, "x.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return md.Fields
}

// chainOf builds an in-memory chain (tool first) from YAML metadata.
func chainOf(t *testing.T, yamls ...string) *chain.Chain {
	t.Helper()
	c := &chain.Chain{}
	for i, y := range yamls {
		md, err := item.ReadMetadata(item.Tool, "x.yaml", []byte(y))
		if err != nil {
			t.Fatal(err)
		}
		id := item.MustID(fmt.Sprintf("test/element_%d", i))
		c.Elements = append(c.Elements, &chain.Element{Loc: &space.Located{ID: id}, Meta: md})
	}
	return c
}

func TestResolveEnvPrecedenceAndExpansion(t *testing.T) {
	project := t.TempDir()
	os.MkdirAll(filepath.Join(project, ".venv", "bin"), 0o755)
	os.WriteFile(filepath.Join(project, ".venv", "bin", "python3"), nil, 0o755)
	os.WriteFile(filepath.Join(project, ".env"), []byte("# a comment\nFROM_DOTENV=dot\nexport QUOTED=\"q v\"\n\nLEVEL=dotenv\n"), 0o644)
	tool := "env_config:\n  env:\n    TOOL_ONLY: \"${LEVEL}-${MISSING:-fallback}-${HOME_SET}\"\n    LEVEL: tool\n    AFTER: \"${LEVEL}\"\n    NUMBER: 42\n    FLAG: true\n"
	runtimeYAML := "env_config:\n  dotenv: true\n  interpreter: {type: venv_python, var: RYE_PYTHON, fallback: python3}\n  env:\n    LEVEL: runtime\n    PY: \"${RYE_PYTHON}\"\n    EMPTY_DEFAULT: \"${EMPTY:-was empty}\"\n"
	prim := "env_config:\n  env:\n    LEVEL: primitive\n    PRIM_ONLY: \"p\"\n"
	c := chainOf(t, tool, runtimeYAML, prim)
	base := newEnv([]string{"HOME_SET=h", "LEVEL=process", "EMPTY="})
	env, err := resolveEnv(c, base, envOptions{ProjectPath: project, ProjectInterpreters: true, Exists: func(p string) bool { _, err := os.Stat(p); return err == nil }})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"LEVEL":         "tool", // the tool wins over runtime, primitive, .env and the process
		"PRIM_ONLY":     "p",
		"FROM_DOTENV":   "dot",
		"QUOTED":        "q v",
		"RYE_PYTHON":    filepath.Join(project, ".venv", "bin", "python3"), // bin/python is absent
		"PY":            filepath.Join(project, ".venv", "bin", "python3"),
		"TOOL_ONLY":     "runtime-fallback-h", // expanded against what was built before it
		"AFTER":         "tool",               // ... in order, so a later value sees an earlier one
		"EMPTY_DEFAULT": "was empty",
		"NUMBER":        "42",
		"FLAG":          "true",
		"HOME_SET":      "h",
	}
	for k, v := range want {
		if got, _ := env.Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
}

func TestInterpreters(t *testing.T) {
	project := t.TempDir()
	exists := func(p string) bool { _, err := os.Stat(p); return err == nil }
	look := func(name string) (string, error) {
		if name == "bash" {
			return "/usr/bin/bash", nil
		}
		return "", errors.New("not found")
	}
	cases := []struct {
		cfg, want string
		base      []string
	}{
		{"{type: venv_python, var: P, fallback: python3}", "python3", nil},
		{"{type: venv_python, venv_path: env, var: P, fallback: python3}", "python3", nil},
		{"{type: node_modules, var: P, fallback: node}", "node", nil},
		{"{type: system_binary, binary: bash, var: P, fallback: sh}", "/usr/bin/bash", nil},
		{"{type: system_binary, binary: zsh, var: P, fallback: sh}", "sh", nil},
		{"{type: venv_python, var: P, fallback: python3}", "/opt/py", []string{"P=/opt/py"}}, // the user's choice is kept
	}
	for _, c := range cases {
		ch := chainOf(t, "env_config:\n  interpreter: "+c.cfg+"\n")
		env, err := resolveEnv(ch, newEnv(c.base), envOptions{ProjectPath: project, LookPath: look, ProjectInterpreters: true, Exists: func(p string) bool {
			return exists(p) || p == "/usr/bin/bash"
		}})
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := env.Get("P"); got != c.want {
			t.Errorf("%s: %q, want %q", c.cfg, got, c.want)
		}
	}
	os.MkdirAll(filepath.Join(project, "node_modules", ".bin"), 0o755)
	os.WriteFile(filepath.Join(project, "node_modules", ".bin", "node"), nil, 0o755)
	env, _ := resolveEnv(chainOf(t, "env_config:\n  interpreter: {type: node_modules, var: N, fallback: node}\n"), newEnv(nil), envOptions{ProjectPath: project, Exists: exists, ProjectInterpreters: true})
	if got, _ := env.Get("N"); got != filepath.Join(project, "node_modules", ".bin", "node") {
		t.Errorf("node_modules: %q", got)
	}
	for _, bad := range []string{"env_config:\n  interpreter: {type: conda, var: P}\n", "env_config:\n  interpreter: {type: venv_python}\n", "env_config: [a]\n"} {
		if _, err := resolveEnv(chainOf(t, bad), newEnv(nil), envOptions{ProjectPath: project}); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	os.WriteFile(filepath.Join(project, ".env"), []byte("NOT A PAIR\n"), 0o644)
	if _, err := resolveEnv(chainOf(t, "env_config: {dotenv: true}\n"), newEnv(nil), envOptions{ProjectPath: project}); err == nil || !strings.Contains(err.Error(), ".env:1: expected KEY=VALUE") {
		t.Errorf("bad .env: %v", err)
	}
}

func TestRender(t *testing.T) {
	env := newEnv([]string{"RYE_PYTHON=/usr/bin/python3", "EMPTY="})
	ctx := map[string]any{"tool_path": "/t/tool.py", "project_path": "/p", "params_json": `{"n":1}`}
	params := map[string]any{"count": int64(3), "names": []any{"a", "b"}, "flag": true}
	cfg := yamlNode(t, `command: "${RYE_PYTHON}"
args: ["{tool_path}", "--n={count}", "{names}", "{{literal}}", "{}", "{\"a\": 1}", "${UNSET:-dflt}", "${UNSET}x", "{greeting} {count}"]
timeout: 300
greeting: "hello from {project_path}"
typed: "{count}"
list: "{names}"
nested: {inner: "{flag}", deeper: ["{tool_path}"]}
`)
	out, err := render(cfg, env, ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"command":  "/usr/bin/python3",
		"args":     []any{"/t/tool.py", "--n=3", []any{"a", "b"}, "{literal}", "{}", `{"a": 1}`, "dflt", "x", "hello from /p 3"},
		"timeout":  int64(300),
		"greeting": "hello from /p",
		"typed":    int64(3),
		"list":     []any{"a", "b"},
		"nested":   map[string]any{"inner": true, "deeper": []any{"/t/tool.py"}},
	}
	if !reflect.DeepEqual(out, want) {
		t.Errorf("got  %#v\nwant %#v", out, want)
	}
	// Context first, then config, then parameters.
	out, err = render(yamlNode(t, "a: \"{tool_path}\"\nb: \"{count}\"\ncount: from-config\n"), env, ctx, map[string]any{"tool_path": "param", "count": "param"})
	if err != nil || out["a"] != "/t/tool.py" || out["b"] != "from-config" {
		t.Errorf("precedence: %v %v", out, err)
	}
	_, err = render(yamlNode(t, "args: [\"{nope}\"]\n"), env, ctx, params)
	var te *templateError
	if !errors.As(err, &te) || te.Name != "nope" || te.Field != "args" || !strings.Contains(err.Error(), "known: args, count, flag, names, params_json, project_path, tool_path") {
		t.Errorf("unresolved: %v", err)
	}
	// Structured values inside a string are JSON as everywhere else: no
	// HTML escaping.
	out, err = render(yamlNode(t, "a: \"x{tags}\"\n"), env, nil, map[string]any{"tags": []any{"<a>&"}})
	if err != nil || out["a"] != `x["<a>&"]` {
		t.Errorf("structured value in a string: %q %v", out["a"], err)
	}
	if _, err := render(yamlNode(t, "a: \"{b}\"\nb: \"{a}\"\n"), env, nil, nil); err == nil || !strings.Contains(err.Error(), "refers to itself") {
		t.Errorf("cycle: %v", err)
	}
}

func TestInterpolateInputs(t *testing.T) {
	inputs := map[string]any{"name": "Ada", "count": int64(2), "flag": false}
	cases := map[string]string{
		"Hello {input:name}":                 "Hello Ada",
		"{input:missing}":                    "{input:missing}",
		"[{input:missing?}]":                 "[]",
		"{input:missing:World}":              "World",
		"{input:missing|World}":              "World",
		"{input:name:World}":                 "Ada",
		"{input:count} {input:flag}":         "2 false",
		"{input:name?} and {input:nope|x y}": "Ada and x y",
		"{input:}":                           "{input:}",
		"no placeholders":                    "no placeholders",
	}
	for in, want := range cases {
		if got := interpolate(in, inputs); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
	got := interpolateAll([]any{map[string]any{"item_id": "a/{input:name}", "params": map[string]any{"n": "{input:count}"}}}, inputs)
	if !reflect.DeepEqual(got, []any{map[string]any{"item_id": "a/Ada", "params": map[string]any{"n": "2"}}}) {
		t.Errorf("actions: %#v", got)
	}
}

func TestDirectiveInputs(t *testing.T) {
	md, err := item.ReadMetadata(item.Directive, "d.md", []byte("```xml\n<directive name=\"d\" version=\"1.0.0\"><inputs>\n<input name=\"who\" type=\"string\" required=\"true\"/>\n<input name=\"style\" type=\"string\" default=\"plain\"/>\n<input name=\"opt\" type=\"string\"/>\n</inputs></directive>\n```\n"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := directiveInputs(md, map[string]any{"who": "Ada"})
	if err != nil || !reflect.DeepEqual(got, map[string]any{"who": "Ada", "style": "plain"}) {
		t.Errorf("defaults: %v %v", got, err)
	}
	_, err = directiveInputs(md, map[string]any{"style": "x"})
	var ie *InputError
	if !errors.As(err, &ie) || ie.Msg != "missing required input who: the directive declares who, style, opt" {
		t.Errorf("missing: %v", err)
	}
	if _, err := directiveInputs(md, map[string]any{"who": "a", "colour": "red"}); err == nil || err.Error() != "unknown input colour: the directive declares who, style, opt" {
		t.Errorf("unknown: %v", err)
	}
}

func TestVenvPrefersPython(t *testing.T) {
	project := t.TempDir()
	bin := filepath.Join(project, ".venv", "bin")
	os.MkdirAll(bin, 0o755)
	for _, n := range []string{"python", "python3"} {
		os.WriteFile(filepath.Join(bin, n), nil, 0o755)
	}
	exists := func(p string) bool { _, err := os.Stat(p); return err == nil }
	env, err := resolveEnv(chainOf(t, "env_config:\n  interpreter: {type: venv_python, var: P, fallback: python3}\n"), newEnv(nil), envOptions{ProjectPath: project, Exists: exists, ProjectInterpreters: true})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := env.Get("P"); got != filepath.Join(bin, "python") {
		t.Errorf("P = %q, want bin/python before bin/python3", got)
	}
}

// The merged config takes the primitive's keys first, then each runtime's,
// then the tool's: the nearer element wins, key by key.
func TestMergedConfigPrecedence(t *testing.T) {
	c := chainOf(t,
		"config:\n  timeout: 5\n  extra: tool\n",
		"config:\n  command: bash\n  args: [\"{tool_path}\"]\n  timeout: 60\n",
		"config:\n  command: none\n  timeout: 300\n  cwd: /prim\n",
	)
	got := chain.MergedConfig(c).Plain()
	want := map[string]any{"command": "bash", "args": []any{"{tool_path}"}, "timeout": int64(5), "extra": "tool", "cwd": "/prim"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("merged %#v\nwant %#v", got, want)
	}
}

func TestInputSchema(t *testing.T) {
	md, err := item.ReadMetadata(item.Directive, "d.md", []byte("```xml\n<directive name=\"d\" version=\"1.0.0\"><inputs>\n<input name=\"who\" type=\"string\" required=\"true\">Who</input>\n<input name=\"n\" type=\"integer\"/>\n<input name=\"odd\" type=\"weird\"/>\n</inputs></directive>\n```\n"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := params.Parse(InputSchema(md), []string{"Ada", "--n", "3", "--odd", "[1]"}, "", nil)
	if err == nil {
		t.Fatalf("a positional without a primary was accepted: %v", got)
	}
	got, err = params.Parse(InputSchema(md), []string{"--who", "Ada", "--n", "3", "--odd", "x"}, "", nil)
	if err != nil || !reflect.DeepEqual(got, map[string]any{"who": "Ada", "n": int64(3), "odd": "x"}) {
		t.Errorf("%#v %v", got, err)
	}
	if _, err := params.Parse(InputSchema(md), []string{"--n", "three"}, "", nil); err == nil {
		t.Error("an integer input took text")
	}
}

func TestThreadArgs(t *testing.T) {
	md, err := item.ReadMetadata(item.Directive, "d.md", []byte("```xml\n<directive name=\"d\" version=\"1.0.0\"><inputs>\n<input name=\"who\" type=\"string\"/>\n<input name=\"model\" type=\"string\"/>\n</inputs></directive>\n```\n"))
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := params.Parse(threadSchema(md), []string{"--who", "Ada", "--model", "m1", "--max-turns", "3", "--async"}, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	inputs, runner, err := splitThreadArgs(md, "t/d", parsed)
	if err != nil {
		t.Fatal(err)
	}
	// The directive declares "model": it is an input, not the thread's.
	if !reflect.DeepEqual(inputs, map[string]any{"who": "Ada", "model": "m1"}) {
		t.Errorf("inputs %#v", inputs)
	}
	want := map[string]any{"directive_id": "t/d", "inputs": inputs, "max_turns": int64(3), "async": true}
	if !reflect.DeepEqual(runner, want) {
		t.Errorf("runner %#v", runner)
	}
	if _, err := params.Parse(threadSchema(md), []string{"--colour", "red"}, "", nil); err == nil || !strings.Contains(err.Error(), "--max_spend") {
		t.Errorf("unknown flag: %v", err)
	}
	// --params cannot smuggle in another directive for the runner.
	parsed, err = params.Parse(threadSchema(md), []string{"--who", "Ada"}, `{"directive_id": "evil/other"}`, nil)
	if err == nil {
		_, runner, err = splitThreadArgs(md, "t/d", parsed)
	}
	var pe *params.Error
	if !errors.As(err, &pe) || runner["directive_id"] == "evil/other" {
		t.Errorf("smuggled directive_id: %v %v", err, runner)
	}
}

func TestParseDotenv(t *testing.T) {
	pairs, err := parseDotenv([]byte("# comment\nA=1\nexport B = \"two words\"\nC='q'\nD=\nE=a=b\n"))
	want := []dotenvPair{{"A", "1", 2}, {"B", "two words", 3}, {"C", "q", 4}, {"D", "", 5}, {"E", "a=b", 6}}
	if err != nil || !reflect.DeepEqual(pairs, want) {
		t.Errorf("%+v %v", pairs, err)
	}
	for _, bad := range []string{"NOPE\n", "=x\n", "A B=1\n"} {
		if _, err := parseDotenv([]byte("OK=1\n" + bad)); err == nil || !strings.HasPrefix(err.Error(), "2: ") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func TestDotenvMustBeARegularFile(t *testing.T) {
	project := t.TempDir()
	if err := os.Mkdir(filepath.Join(project, ".env"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := resolveEnv(chainOf(t, "env_config: {dotenv: true}\n"), newEnv(nil), envOptions{ProjectPath: project})
	if err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a folder named .env: %v", err)
	}
}

// What the project's files may choose of what runs: a project interpreter
// only when the user allows it and git does not track it; a .env never
// sets PATH, the chain's interpreter variables, or loader and start-up
// variables.
func TestProjectFilesCannotChooseWhatRuns(t *testing.T) {
	project := t.TempDir()
	os.MkdirAll(filepath.Join(project, ".venv", "bin"), 0o755)
	os.WriteFile(filepath.Join(project, ".venv", "bin", "python"), nil, 0o755)
	exists := func(p string) bool { _, err := os.Stat(p); return err == nil }
	venv := chainOf(t, "env_config:\n  interpreter: {type: venv_python, var: RYE_PY, fallback: python3}\n")
	get := func(o envOptions) (string, error) {
		o.ProjectPath, o.Exists = project, exists
		env, err := resolveEnv(venv, newEnv(nil), o)
		if err != nil {
			return "", err
		}
		v, _ := env.Get("RYE_PY")
		return v, nil
	}
	if got, err := get(envOptions{}); err != nil || got != "python3" {
		t.Errorf("not allowed by the user: %q %v, want the fallback", got, err)
	}
	untracked := func(string) (bool, error) { return false, nil }
	if got, err := get(envOptions{ProjectInterpreters: true, Tracked: untracked}); err != nil || got != filepath.Join(project, ".venv", "bin", "python") {
		t.Errorf("allowed and untracked: %q %v", got, err)
	}
	var asked string
	tracked := func(p string) (bool, error) { asked = p; return true, nil }
	if got, err := get(envOptions{ProjectInterpreters: true, Tracked: tracked}); err == nil || !strings.Contains(err.Error(), "tracked by git") || asked != filepath.Join(project, ".venv") {
		t.Errorf("allowed but tracked: %q %v (asked about %q)", got, err, asked)
	}
	outside := chainOf(t, "env_config:\n  interpreter: {type: venv_python, venv_path: ../elsewhere, var: RYE_PY, fallback: python3}\n")
	if _, err := resolveEnv(outside, newEnv(nil), envOptions{ProjectPath: project, Exists: exists, ProjectInterpreters: true}); err == nil || !strings.Contains(err.Error(), "outside the project") {
		t.Errorf("venv_path outside the project: %v", err)
	}

	dotenv := chainOf(t, "env_config:\n  dotenv: true\n  interpreter: {type: system_binary, binary: nope, var: MY_INTERP, fallback: python3}\n")
	for _, line := range []string{"PATH=/tmp/evil", "MY_INTERP=/tmp/evil", "LD_PRELOAD=/tmp/evil.so", "NODE_OPTIONS=--require /tmp/x", "BASH_ENV=/tmp/x", "PYTHONPATH=/tmp/x", "RYE_PYTHON=/tmp/evil", "dyld_insert_libraries=/x", "NODE_EXTRA_CA_CERTS=/tmp/ca.pem", "PYTHONBREAKPOINT=evil.run", "PYTHONWARNINGS=ignore::evil.W"} {
		os.WriteFile(filepath.Join(project, ".env"), []byte("OK=1\n"+line+"\n"), 0o644)
		name, _, _ := strings.Cut(line, "=")
		_, err := resolveEnv(dotenv, newEnv(nil), envOptions{ProjectPath: project})
		if err == nil || !strings.Contains(err.Error(), ".env:2: "+name+" may not be set by the project's .env") {
			t.Errorf("%s: %v", line, err)
		}
	}
	os.WriteFile(filepath.Join(project, ".env"), []byte("API_URL=https://example.com\n"), 0o644)
	if env, err := resolveEnv(dotenv, newEnv(nil), envOptions{ProjectPath: project}); err != nil {
		t.Errorf("an ordinary variable: %v", err)
	} else if v, _ := env.Get("API_URL"); v != "https://example.com" {
		t.Errorf("API_URL = %q", v)
	}
}

// Allowed by the user, a project interpreter is still refused outside a
// git work tree (nothing there says who put it in the project) and when
// another user owns its folder; when the folder does not exist, the
// fallback runs as always.
func TestProjectInterpreterNeedsAWorkTreeAndTheUsersFolder(t *testing.T) {
	project := t.TempDir()
	exists := func(p string) bool { _, err := os.Stat(p); return err == nil }
	venv := chainOf(t, "env_config:\n  interpreter: {type: venv_python, var: RYE_PY, fallback: python3}\n")
	noRepo := func() error { return errors.New(project + " is not in a git repository") }
	get := func(o envOptions) (string, error) {
		o.ProjectPath, o.Exists, o.ProjectInterpreters = project, exists, true
		env, err := resolveEnv(venv, newEnv(nil), o)
		if err != nil {
			return "", err
		}
		v, _ := env.Get("RYE_PY")
		return v, nil
	}
	if got, err := get(envOptions{WorkTree: noRepo}); err != nil || got != "python3" {
		t.Errorf("no .venv, no repository: %q %v, want the fallback", got, err)
	}
	os.MkdirAll(filepath.Join(project, ".venv", "bin"), 0o755)
	os.WriteFile(filepath.Join(project, ".venv", "bin", "python"), nil, 0o755)
	if got, err := get(envOptions{WorkTree: noRepo}); err == nil || !strings.Contains(err.Error(), filepath.Join(project, ".venv")+": execute.project_interpreters uses a project's interpreter only inside a git work tree, where git can say that no change under review added it, and "+project+" is not in a git repository (put the project under git, or turn execute.project_interpreters off") {
		t.Errorf("outside a work tree: %q %v", got, err)
	}
	inRepo := func() error { return nil }
	if got, err := get(envOptions{WorkTree: inRepo}); err != nil || got != filepath.Join(project, ".venv", "bin", "python") {
		t.Errorf("in a work tree: %q %v", got, err)
	}
	if os.Getuid() == 0 {
		os.Lchown(filepath.Join(project, ".venv"), 65534, 65534)
		if got, err := get(envOptions{WorkTree: inRepo}); err == nil || !strings.Contains(err.Error(), "belongs to another user (uid 65534): rye does not run an interpreter from a folder another user controls") {
			t.Errorf("another user's .venv: %q %v", got, err)
		}
	}
}
