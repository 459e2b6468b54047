package executor

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/ryekit/rye/chain"
	"github.com/ryekit/rye/item/syntax"
	"github.com/ryekit/rye/space"
)

// env is an environment being built: names to values, and the order in
// which names were first set (so that Environ is stable).
type env struct {
	vals  map[string]string
	order []string
}

// newEnv starts from KEY=VALUE pairs (the process environment).
func newEnv(kv []string) *env {
	e := &env{vals: map[string]string{}}
	for _, s := range kv {
		if k, v, ok := strings.Cut(s, "="); ok && k != "" {
			e.Set(k, v)
		}
	}
	return e
}

// SecretVars are rye's own secrets: the variables that hold or name the
// user's signing key and its passphrase (docs/keys.md), and the name the
// CI example there gives an SSH private key. No tool ever sees them: a
// tool is code from a project, and the key that signs what the user
// trusts must not be one environment read away from it. The executor
// drops them from the environment every run starts from (withoutSecrets),
// so that neither a runtime's ${NAME} nor a tool's own lookup finds them.
var SecretVars = []string{"RYE_KEY_PASSWORD", "RYE_SIGNING_KEY", "RYE_SSH_KEY"}

// withoutSecrets returns kv (KEY=VALUE pairs) without SecretVars. Names
// are compared without regard to case, as Windows does.
func withoutSecrets(kv []string) []string {
	out := make([]string, 0, len(kv))
	for _, s := range kv {
		k, _, _ := strings.Cut(s, "=")
		if !slices.ContainsFunc(SecretVars, func(v string) bool { return strings.EqualFold(k, v) }) {
			out = append(out, s)
		}
	}
	return out
}

// Set sets a variable.
func (e *env) Set(k, v string) {
	if _, ok := e.vals[k]; !ok {
		e.order = append(e.order, k)
	}
	e.vals[k] = v
}

// Get returns a variable and whether it is set.
func (e *env) Get(k string) (string, bool) {
	v, ok := e.vals[k]
	return v, ok
}

// Environ returns KEY=VALUE pairs in first-set order.
func (e *env) Environ() []string {
	out := make([]string, 0, len(e.order))
	for _, k := range e.order {
		out = append(out, k+"="+e.vals[k])
	}
	return out
}

// envVarRE matches ${NAME} and ${NAME:-default}.
var envVarRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}`) })

// Expand replaces ${NAME} and ${NAME:-default} with values from the
// environment; a missing variable without a default becomes "", as in a
// shell. Nothing else is interpreted.
func (e *env) Expand(s string) string {
	if !strings.Contains(s, "${") {
		return s
	}
	return envVarRE().ReplaceAllStringFunc(s, func(m string) string {
		sub := envVarRE().FindStringSubmatch(m)
		if v, ok := e.vals[sub[1]]; ok && (v != "" || !strings.Contains(m, ":-")) {
			return v
		}
		return sub[2]
	})
}

// envOptions say where the project is and how to find programs.
type envOptions struct {
	ProjectPath string
	// LookPath finds a program on PATH (exec.LookPath in the binary).
	LookPath func(string) (string, error)
	// Exists reports whether a file exists (os.Stat in the binary).
	Exists func(string) bool
	// ProjectInterpreters lets venv_python and node_modules take an
	// interpreter from the project's .venv/ or node_modules/: the user's
	// own execute.project_interpreters, never the project's. Off, the
	// fallback is used.
	ProjectInterpreters bool
	// Tracked reports whether git tracks a path (or anything below it): a
	// tracked interpreter is one a change under review could have added,
	// and is refused even when project interpreters are allowed. nil means
	// nothing is tracked (no repository).
	Tracked func(path string) (bool, error)
	// WorkTree says why the project is not in a git work tree (nil when it
	// is). Outside one, "untracked" tells nothing about who put a folder
	// there, so a project interpreter is refused. A nil WorkTree is a
	// caller that vouches for the project (tests); New always sets it.
	WorkTree func() error
}

// resolveEnv builds the environment of a run (spec 3.5): the process
// environment, then the env_config of the primitive, then of each runtime,
// then of the tool, each later one overriding the earlier ones (the tool is
// the most specific and wins; the reference had this backwards). Within one
// env_config: dotenv (the project's .env), then the interpreter, then env
// in order, each value expanded against what is built so far.
//
// The project's .env is not verified (it is not an item), so it may not
// set what chooses the program that runs or what that program loads before
// the tool's own code: PATH, the chain's interpreter variables, loader and
// shell start-up variables (protectedVar).
func resolveEnv(c *chain.Chain, base *env, o envOptions) (*env, error) {
	env := base
	interpreters := map[string]bool{}
	for _, el := range c.Elements {
		if v := el.Meta.Get("env_config").Get("interpreter").Get("var").String(); v != "" {
			interpreters[v] = true
		}
	}
	for i := len(c.Elements) - 1; i >= 0; i-- {
		el := c.Elements[i]
		cfg := el.Meta.Get("env_config")
		if cfg.IsNull() {
			continue
		}
		if cfg.Kind != syntax.MapNode {
			return nil, fmt.Errorf("%s: env_config must be a mapping", el.ID())
		}
		if cfg.Get("dotenv").IsTrue() {
			if err := loadDotenv(env, filepath.Join(o.ProjectPath, ".env"), interpreters, o.Tracked); err != nil {
				return nil, fmt.Errorf("%s: %v", el.ID(), err)
			}
		}
		if in := cfg.Get("interpreter"); !in.IsNull() {
			if err := resolveInterpreter(env, in, o); err != nil {
				return nil, fmt.Errorf("%s: interpreter: %v", el.ID(), err)
			}
		}
		for _, f := range cfg.Get("env").MapFields() {
			env.Set(f.Key, env.Expand(text(f.Value.Plain())))
		}
	}
	return env, nil
}

// protectedVars are variables a project's .env may not set, besides the
// chain's interpreter variables and every LD_*, DYLD_*, RYE_*, GIT_* and
// BASH_FUNC_* name: each chooses the program that runs, code that a shell,
// a dynamic loader or an interpreter runs before the tool's own, where
// they look for it, or whom the tool's network traffic trusts. This list
// is defence in depth: the .env that rye loads is one git does not track,
// the user's own.
var protectedVars = map[string]bool{
	"PATH": true, "BASH_ENV": true, "ENV": true, "SHELLOPTS": true, "BASHOPTS": true, "PS4": true,
	"PROMPT_COMMAND": true, "IFS": true, "CDPATH": true, "GCONV_PATH": true, "HOSTALIASES": true,
	"NODE_OPTIONS": true, "NODE_PATH": true, "NODE_REPL_EXTERNAL_MODULE": true,
	"PYTHONPATH": true, "PYTHONHOME": true, "PYTHONSTARTUP": true, "PYTHONINSPECT": true,
	"PYTHONUSERBASE": true, "PYTHONEXECUTABLE": true, "PYTHONSAFEPATH": true, "PYTHONPLATLIBDIR": true,
	"PERL5OPT": true, "PERL5LIB": true, "PERLLIB": true, "RUBYOPT": true, "RUBYLIB": true,
	"JAVA_TOOL_OPTIONS": true, "_JAVA_OPTIONS": true, "JDK_JAVA_OPTIONS": true, "CLASSPATH": true,
	"GIT_EXEC_PATH": true, "GIT_SSH_COMMAND": true, "GIT_CONFIG_GLOBAL": true, "EDITOR": true, "VISUAL": true,
	"HOME": true, "ZDOTDIR": true, "XDG_CONFIG_HOME": true, "XDG_DATA_HOME": true, "PYTHONPYCACHEPREFIX": true,
	"NODE_TLS_REJECT_UNAUTHORIZED": true, "SSL_CERT_FILE": true, "SSL_CERT_DIR": true, "REQUESTS_CA_BUNDLE": true,
	"CURL_CA_BUNDLE": true, "HTTP_PROXY": true, "HTTPS_PROXY": true, "ALL_PROXY": true, "NO_PROXY": true,
	"NODE_EXTRA_CA_CERTS": true, "PYTHONBREAKPOINT": true, "PYTHONWARNINGS": true,
}

// protectedVar reports whether the project's .env may not set name.
func protectedVar(name string, interpreters map[string]bool) bool {
	upper := strings.ToUpper(name) // Windows names are case-insensitive
	return protectedVars[upper] || chain.IsLoadPathVar(upper) || interpreters[name] || strings.HasPrefix(upper, "LD_") ||
		strings.HasPrefix(upper, "DYLD_") || strings.HasPrefix(upper, "RYE_") || strings.HasPrefix(upper, "GIT_") ||
		strings.HasPrefix(upper, "BASH_FUNC_") || strings.Contains(name, "%") || strings.ContainsAny(name, "()")
}

// resolveInterpreter sets the interpreter's variable to the program found,
// or to its fallback. A variable the caller already set (RYE_PYTHON=...
// rye execute ...) is kept: it is the user's explicit choice.
func resolveInterpreter(env *env, in *syntax.Node, o envOptions) error {
	name := in.Get("var").String()
	if name == "" {
		return fmt.Errorf("no var: say which variable receives the interpreter's path")
	}
	if v, ok := env.Get(name); ok && v != "" {
		return nil
	}
	var candidates []string
	switch t := in.Get("type").String(); t {
	case "venv_python":
		venv := in.Get("venv_path").String()
		if venv == "" {
			venv = ".venv"
		}
		root := filepath.Join(o.ProjectPath, venv)
		if runtime.GOOS == "windows" {
			candidates = []string{filepath.Join(root, "Scripts", "python.exe")}
		} else {
			candidates = []string{filepath.Join(root, "bin", "python"), filepath.Join(root, "bin", "python3")}
		}
		if err := projectInterpreter(root, o); err != nil || !o.ProjectInterpreters {
			candidates = nil
			if err != nil {
				return err
			}
		}
	case "node_modules":
		node := "node"
		if runtime.GOOS == "windows" {
			node = "node.exe"
		}
		bin := filepath.Join(o.ProjectPath, "node_modules", ".bin")
		candidates = []string{filepath.Join(bin, node)}
		if err := projectInterpreter(bin, o); err != nil || !o.ProjectInterpreters {
			candidates = nil
			if err != nil {
				return err
			}
		}
	case "system_binary":
		if bin := in.Get("binary").String(); bin != "" && o.LookPath != nil {
			if p, err := o.LookPath(bin); err == nil {
				candidates = []string{p}
			}
		}
	default:
		return fmt.Errorf("unknown type %q (venv_python, node_modules or system_binary)", t)
	}
	for _, c := range candidates {
		if o.Exists != nil && o.Exists(c) {
			env.Set(name, c)
			return nil
		}
	}
	env.Set(name, in.Get("fallback").String())
	return nil
}

// projectNodeModules is {node_modules}, the project's package folder that a
// node runtime puts on NODE_PATH: the folder when the user allows project
// environments, it exists and git does not track it (its packages run as
// code of the tool), else "" (node then finds no project packages).
func projectNodeModules(o envOptions) (string, error) {
	dir := filepath.Join(o.ProjectPath, "node_modules")
	if !o.ProjectInterpreters || o.Exists == nil || !o.Exists(dir) {
		return "", nil
	}
	if err := projectInterpreter(dir, o); err != nil {
		return "", fmt.Errorf("node_modules: %v", err)
	}
	return dir, nil
}

// projectInterpreter refuses a project interpreter folder that git tracks,
// when project interpreters are allowed: committed interpreters are exactly
// what a change under review could bring. The folder must also stay inside
// the project (a venv_path of ../x or /usr is not the project's).
//
// Outside a git work tree nothing says who put the folder there, so it is
// refused too (with how to proceed), and so is a folder another user owns:
// both only when the folder exists, since otherwise the fallback runs.
func projectInterpreter(dir string, o envOptions) error {
	if !o.ProjectInterpreters {
		return nil
	}
	if !space.Within(o.ProjectPath, dir) {
		return fmt.Errorf("%s is outside the project", dir)
	}
	rel, _ := filepath.Rel(o.ProjectPath, dir)
	if _, err := os.Lstat(dir); err != nil {
		return nil // nothing there: the fallback runs
	}
	if err := space.OwnedByCaller(dir); err != nil {
		return fmt.Errorf("%v: rye does not run an interpreter from a folder another user controls", err)
	}
	if o.WorkTree != nil {
		if err := o.WorkTree(); err != nil {
			return fmt.Errorf("%s: execute.project_interpreters uses a project's interpreter only inside a git work tree, where git can say that no change under review added it, and %v (put the project under git, or turn execute.project_interpreters off in your configuration to run the runtime's fallback)", dir, err)
		}
	}
	if o.Tracked == nil {
		return nil
	}
	tracked, err := o.Tracked(dir)
	if err != nil {
		return fmt.Errorf("is %s tracked by git? %v", dir, err)
	}
	if tracked {
		return fmt.Errorf("%s is tracked by git: a change under review could have added it, so rye does not run an interpreter from it (remove it from git: git rm -r --cached %s)", dir, rel)
	}
	return nil
}

// loadDotenv applies the project's .env file. A missing file is fine.
// It must be a regular file (not a link) of at most 1 MiB: a FIFO or a
// device there must not hang rye or fill its memory. A .env that git
// tracks is refused: its values would come from the change under review.
func loadDotenv(env *env, path string, interpreters map[string]bool, tracked func(string) (bool, error)) error {
	info, err := os.Lstat(path) // before opening: opening a FIFO blocks
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if tracked != nil {
		yes, err := tracked(path)
		if err != nil {
			return fmt.Errorf("is %s tracked by git? %v", path, err)
		}
		if yes {
			return fmt.Errorf("%s is tracked by git: a change under review could have written it, so rye does not load it (keep your .env out of git: git rm --cached .env, and list it in .gitignore)", path)
		}
	}
	if !info.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, 1<<20+1))
	if err != nil {
		return err
	}
	if len(data) > 1<<20 {
		return fmt.Errorf("%s is larger than 1 MiB", path)
	}
	pairs, err := parseDotenv(data)
	if err != nil {
		return fmt.Errorf("%s:%v", path, err)
	}
	for _, kv := range pairs {
		if protectedVar(kv.name, interpreters) {
			return fmt.Errorf("%s:%d: %s may not be set by the project's .env: it chooses the program that runs or code loaded before the tool (set it in your own environment instead)", path, kv.line, kv.name)
		}
	}
	for _, kv := range pairs {
		env.Set(kv.name, kv.value)
	}
	return nil
}

// dotenvPair is one KEY=VALUE line of a .env file.
type dotenvPair struct {
	name, value string
	line        int
}

// parseDotenv reads KEY=VALUE lines: # comments and blank lines skipped,
// an optional "export ", surrounding quotes removed. Anything else is an
// error naming the line ("3: expected KEY=VALUE"): a .env that is half
// understood must not half apply.
func parseDotenv(data []byte) ([]dotenvPair, error) {
	var out []dotenvPair
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		line = strings.TrimPrefix(line, "export ")
		k, v, ok := strings.Cut(line, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" || strings.ContainsAny(k, " \t") {
			return nil, fmt.Errorf("%d: expected KEY=VALUE", n)
		}
		v = strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
			v = v[1 : len(v)-1]
		}
		out = append(out, dotenvPair{name: k, value: v, line: n})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%v", err)
	}
	return out, nil
}
