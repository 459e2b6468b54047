package executor

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ryekit/rye/confine"
)

// The test binary is also the confinement helper when started as
// rye-confine.
func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == confine.HelperName {
		confine.HelperMain()
	}
	os.Exit(m.Run())
}

// testHelper is the test binary as rye-confine.
func testHelper() (confine.Helper, error) {
	exe, err := os.Executable()
	return confine.Helper{Path: exe, Args: []string{confine.HelperName}}, err
}

// needConfinement skips only where the kernel has no Landlock at all,
// saying so; a kernel with Landlock that cannot enforce fails the test
// (a skipped enforcement test must never read as a pass).
func needConfinement(t *testing.T, needs confine.Needs) {
	t.Helper()
	needBash(t)
	k := confine.Probe()
	if err := confine.Check(k, needs); err != nil {
		if k.LandlockABI == 0 && os.Getenv("RYE_REQUIRE_CONFINEMENT") == "" {
			t.Skipf("SKIPPED, NOT PASSED: this kernel cannot confine (%v)", err)
		}
		t.Fatalf("this kernel has Landlock but cannot run the enforcement test: %v", err)
	}
}

// confinedTool is a shell tool with a sandbox block that uses bash
// builtins only (no subprocess): it reads a declared file, writes to
// {run_dir}, and tries what its block forbids, printing the outcomes.
func confinedTool(block string) string {
	return `#!/usr/bin/env bash
# ---
# version: "1.0.0"
# tool_type: shell
# executor_id: rye/core/runtimes/shell_runtime
# category: box
# description: a confined tool
# config_schema:
#   type: object
#   properties:
#     secret: {type: string}
#     port: {type: integer}
# sandbox:
` + block + `# ---
try() { if eval "$1" 2>/dev/null; then R=ok; else R=refused; fi; }
read -r data < "$RYE_PROJECT/data/in.txt" || data=unreadable
try 'echo result > "$RYE_RUN_DIR/out.txt"'; out=$R
try 'read -r s < "$RYE_PARAM_SECRET"'; secret=$R
try 'echo x > "$RYE_PROJECT/written.txt"'; project=$R
try ': 3<>/dev/tcp/127.0.0.1/$RYE_PARAM_PORT'; net=$R
printf '{"data": "%s", "out": "%s", "secret": "%s", "project_write": "%s", "net": "%s"}\n' "$data" "$out" "$secret" "$project" "$net"
`
}

func confinedFixture(t *testing.T, block string) (*fixture, *Executor, string) {
	t.Helper()
	f := newFixture(t)
	f.write("project", "tools/box/t.sh", confinedTool(block), f.key)
	os.MkdirAll(filepath.Join(f.project, "data"), 0o755)
	os.WriteFile(filepath.Join(f.project, "data", "in.txt"), []byte("hello\n"), 0o644)
	home := t.TempDir()
	secret := filepath.Join(home, ".ssh", "id_ed25519")
	os.MkdirAll(filepath.Dir(secret), 0o700)
	os.WriteFile(secret, []byte("PRIVATE\n"), 0o600)
	x := f.executor()
	x.Home = home
	x.Helper = testHelper
	x.Environ = append(x.Environ, "RYE_PROJECT="+f.project)
	return f, x, secret
}

func listen(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	return l.Addr().(*net.TCPAddr).Port
}

func runBox(t *testing.T, x *Executor, params map[string]any) (*Result, error) {
	t.Helper()
	return x.Execute(context.Background(), &Request{Kind: "tool", ID: "box/t", Params: params})
}

func TestConfinedToolRuns(t *testing.T) {
	needConfinement(t, confine.Needs{Ports: true})
	port := listen(t)
	other := listen(t)
	_, x, secret := confinedFixture(t, `#   filesystem:
#     read: ["{project}/data"]
#     write: ["{run_dir}"]
#   network: [":`+fmt.Sprint(port)+`"]
#   subprocess: false
`)
	r, err := runBox(t, x, map[string]any{"secret": secret, "port": port})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Succeeded() {
		t.Fatalf("result: %+v", r)
	}
	data := r.Data.(map[string]any)
	want := map[string]any{"data": "hello", "out": "ok", "secret": "refused", "project_write": "refused", "net": "ok"}
	for k, v := range want {
		if data[k] != v {
			t.Errorf("%s = %v, want %v (data %v)", k, data[k], v, data)
		}
	}
	if r.Confinement == nil || r.Confinement.Verdict != "enforced" || r.Confinement.LandlockABI < 4 {
		t.Errorf("confinement: %+v", r.Confinement)
	}
	// A port that is not listed is refused by the kernel.
	r, err = runBox(t, x, map[string]any{"secret": secret, "port": other})
	if err != nil || r.Data.(map[string]any)["net"] != "refused" {
		t.Errorf("unlisted port: %v %+v", err, r.Data)
	}
}

// Without a block the tool runs as before, and the result says so.
func TestUnconfinedToolSaysNone(t *testing.T) {
	needBash(t)
	f := newFixture(t)
	f.write("project", "tools/p/t.sh", shellTool("p", shellRuntimeID, ""), f.key)
	x := f.executor()
	r, err := x.Execute(context.Background(), &Request{Kind: "tool", ID: "p/t"})
	if err != nil || !r.Succeeded() || r.Confinement == nil || r.Confinement.Verdict != "none" {
		t.Fatalf("%v %+v", err, r)
	}
	b, _ := r.Confinement.MarshalJSON()
	if string(b) != `"none"` {
		t.Errorf("JSON: %s", b)
	}
}

// An injected lower Landlock ABI (a field of the Executor) makes a port
// declaration unenforceable: refused before anything runs, dry run
// included, naming what was needed and found.
func TestUnenforceableInjectedABI(t *testing.T) {
	_, x, _ := confinedFixture(t, "#   network: [\":443\"]\n")
	x.Kernel = func() confine.Kernel {
		return confine.Kernel{OS: "linux", Arch: "amd64", LandlockABI: 3, Seccomp: true}
	}
	ran := false
	x.beforeStart = func(*plan) { ran = true }
	for _, dry := range []bool{false, true} {
		r, err := x.Execute(context.Background(), &Request{Kind: "tool", ID: "box/t", DryRun: dry})
		var ue *confine.UnenforceableError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), "Landlock ABI 4") || !strings.Contains(err.Error(), "Landlock ABI 3") {
			t.Fatalf("dry %v: %v", dry, err)
		}
		if r.Confinement == nil || r.Confinement.Verdict != "unenforceable" || r.Confinement.Found == "" {
			t.Errorf("dry %v: confinement %+v", dry, r.Confinement)
		}
	}
	if ran {
		t.Error("an unenforceable tool started")
	}
}

func TestHostEntryUnenforceable(t *testing.T) {
	_, x, _ := confinedFixture(t, "#   network: [\"example.com:443\"]\n")
	_, err := runBox(t, x, nil)
	var ue *confine.UnenforceableError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "example.com:443") {
		t.Fatalf("%v", err)
	}
}

func TestRequireSandbox(t *testing.T) {
	needBash(t)
	f := newFixture(t)
	f.write("project", "tools/p/t.sh", shellTool("p", shellRuntimeID, ""), f.key)
	x := f.executor()
	x.RequireSandbox = true
	_, err := x.Execute(context.Background(), &Request{Kind: "tool", ID: "p/t"})
	var se *sandboxError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "execute.require_sandbox") {
		t.Fatalf("%v", err)
	}
}

// A Python __sandbox__ that is not a literal is not "no block": refused.
func TestPythonSandboxNotALiteral(t *testing.T) {
	f := newFixture(t)
	f.write("project", "tools/p/t.py", `__version__ = "1.0.0"
__tool_type__ = "python"
__executor_id__ = "rye/core/runtimes/python_script_runtime"
__category__ = "p"
__tool_description__ = "d"
__sandbox__ = dict(network="none")
`, f.key)
	_, err := f.executor().Execute(context.Background(), &Request{Kind: "tool", ID: "p/t"})
	var se *sandboxError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "__sandbox__") {
		t.Fatalf("%v", err)
	}
}

// A __sandbox__ bound where rye's reader does not look (inside a try or
// if block, through globals()) reads as a sandbox to a reviewer, but
// would leave the tool with no block at all: unconfined. It is refused.
func TestPythonSandboxHiddenInABlock(t *testing.T) {
	for i, binding := range []string{
		"try:\n    __sandbox__ = {\"network\": \"none\"}\nexcept Exception:\n    pass\n",
		"if True:\n    __sandbox__ = {\"network\": \"none\"}\n",
		"globals()[\"__sandbox__\"] = {\"network\": \"none\"}\n",
	} {
		f := newFixture(t)
		f.write("project", "tools/p/t.py", `__version__ = "1.0.0"
__tool_type__ = "python"
__executor_id__ = "rye/core/runtimes/python_script_runtime"
__category__ = "p"
__tool_description__ = "d"
`+binding+`print("{}")
`, f.key)
		x := f.executor()
		x.Environ = append(x.Environ, "RYE_PYTHON=/usr/bin/python3")
		r, err := x.Execute(context.Background(), &Request{Kind: "tool", ID: "p/t"})
		var se *sandboxError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), "__sandbox__") {
			ran := r != nil && r.Ran
			t.Errorf("%d: %v (ran: %v)", i, err, ran)
		}
	}
}

func TestSandboxProblemsRefused(t *testing.T) {
	_, x, _ := confinedFixture(t, "#   filesystem:\n#     read: [\"{project}/../etc\"]\n")
	_, err := runBox(t, x, nil)
	var se *sandboxError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), `climbs with ".."`) {
		t.Fatalf("%v", err)
	}
}

// A write grant over verified files, written so that the text does not
// show it (an absolute path to the project's .ai/), is refused at run
// time.
func TestWriteOverVerifiedRefused(t *testing.T) {
	needConfinement(t, confine.Needs{})
	f := newFixture(t)
	f.write("project", "tools/box/t.sh", confinedTool("#   filesystem:\n#     write: [\""+f.project+"/.ai/tools\"]\n"), f.key)
	x := f.executor()
	x.Helper = testHelper
	r, err := runBox(t, x, nil)
	if err != nil || r.Succeeded() || !strings.Contains(r.Error, "folder of verified files") || r.Ran && r.Data != nil {
		t.Fatalf("%v %+v", err, r)
	}
}

// A declared path that is a symbolic link in the project (a change under
// review could add {project}/data -> ~) is refused, not followed.
func TestDeclaredSymlinkInProjectRefused(t *testing.T) {
	needConfinement(t, confine.Needs{})
	f, x, secret := confinedFixture(t, "#   filesystem:\n#     read: [\"{project}/data\"]\n")
	os.RemoveAll(filepath.Join(f.project, "data"))
	os.Symlink(filepath.Dir(filepath.Dir(secret)), filepath.Join(f.project, "data"))
	r, err := runBox(t, x, map[string]any{"secret": secret})
	if err != nil || r.Succeeded() || !strings.Contains(r.Error, "symbolic link") {
		t.Fatalf("%v %+v", err, r)
	}
}

func TestHTTPClientChainUnenforceable(t *testing.T) {
	f := newFixture(t)
	f.write("project", "tools/p/h.yaml", `version: "1.0.0"
tool_type: http
executor_id: rye/core/primitives/http_client
category: p
description: d
config: {url: "http://127.0.0.1:1/"}
sandbox: {network: [":1"]}
`, f.key)
	_, err := f.executor().Execute(context.Background(), &Request{Kind: "tool", ID: "p/h"})
	var ue *confine.UnenforceableError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "http_client") {
		t.Fatalf("%v", err)
	}
}

// The placeholders take rye's own values: a project's .env that sets
// TMPDIR (which it may: the tool's environment is not the sandbox), or the
// chain's env_config that sets HOME, does not move {tmp} or {home} to a
// folder of its choosing.
func TestEnvironmentCannotMovePlaceholders(t *testing.T) {
	needConfinement(t, confine.Needs{})
	f := newFixture(t)
	decoy := t.TempDir()
	os.MkdirAll(filepath.Join(decoy, "data"), 0o755)
	os.WriteFile(filepath.Join(decoy, "data", "secret"), []byte("s\n"), 0o600)
	os.WriteFile(filepath.Join(f.project, ".env"), []byte("TMPDIR="+decoy+"\n"), 0o644)
	f.write("project", "tools/box/t.sh", `#!/usr/bin/env bash
# ---
# version: "1.0.0"
# tool_type: shell
# executor_id: rye/core/runtimes/shell_runtime
# category: box
# description: reads $TMPDIR/data/secret and $HOME/data/secret
# env_config:
#   dotenv: true
#   env: {HOME: "`+decoy+`"}
# sandbox:
#   filesystem:
#     read: ["{home}/data", "{tmp}/data"]
# ---
if read -r s < "$TMPDIR/data/secret" 2>/dev/null; then tmp=ok; else tmp=refused; fi
if read -r s < "$HOME/data/secret" 2>/dev/null; then home=ok; else home=refused; fi
printf '{"tmp": "%s", "home": "%s", "tmpdir": "%s"}\n' "$tmp" "$home" "$TMPDIR"
`, f.key)
	x := f.executor()
	x.Helper = testHelper
	x.Home = t.TempDir()
	r, err := runBox(t, x, nil)
	if err != nil || !r.Succeeded() {
		t.Fatalf("%v %+v", err, r)
	}
	data := r.Data.(map[string]any)
	if data["tmpdir"] != decoy || data["tmp"] != "refused" || data["home"] != "refused" {
		t.Errorf("data: %v", data)
	}
	want := []string{filepath.Join(x.Home, "data"), filepath.Join(os.TempDir(), "data")}
	if got := r.Confinement.Filesystem.Read; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("granted: %v, want %v", got, want)
	}
}

// Python starts under the defaults (its installation under /usr), reads
// what is declared, and the kernel refuses the rest: the network through
// urllib, a subprocess, UDP, the home folder.
func TestConfinedPythonTool(t *testing.T) {
	needConfinement(t, confine.Needs{})
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("SKIPPED: no /usr/bin/python3")
	}
	f := newFixture(t)
	os.MkdirAll(filepath.Join(f.project, "data"), 0o755)
	os.WriteFile(filepath.Join(f.project, "data", "in.txt"), []byte("hello"), 0o644)
	f.write("project", "tools/box/p.py", `__version__ = "1.0.0"
__tool_type__ = "python"
__executor_id__ = "rye/core/runtimes/python_script_runtime"
__category__ = "box"
__tool_description__ = "tries things"
__sandbox__ = {"filesystem": {"read": ["{project}/data"], "write": ["{run_dir}"]}, "network": "none", "subprocess": False}

import json, os, socket, subprocess, tempfile, urllib.request

out = {}
def attempt(name, fn):
    try:
        fn()
        out[name] = "ok"
    except OSError as e:
        out[name] = "refused" if e.errno in (1, 13) or "Operation not permitted" in str(e) else "errno %s: %s" % (e.errno, e)
    except Exception as e:
        out[name] = "refused" if "Operation not permitted" in str(e) or "Permission denied" in str(e) else repr(e)

attempt("read", lambda: open(os.path.join(os.getcwd(), "data", "in.txt")).read())
attempt("home", lambda: open(os.path.join(os.environ["HOME"], "secret")).read())
attempt("http", lambda: urllib.request.urlopen("http://127.0.0.1:9", timeout=1))
attempt("udp", lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM))
attempt("subprocess", lambda: subprocess.run(["/usr/bin/true"]))
attempt("tempfile", lambda: tempfile.mkstemp(dir=os.environ["RYE_RUN_DIR"]))
print(json.dumps(out))
`, f.key)
	x := f.executor()
	x.Helper = testHelper
	x.Home = t.TempDir()
	os.WriteFile(filepath.Join(x.Home, "secret"), []byte("s"), 0o600)
	x.Environ = append(x.Environ, "RYE_PYTHON=/usr/bin/python3", "HOME="+x.Home)
	r, err := x.Execute(context.Background(), &Request{Kind: "tool", ID: "box/p"})
	if err != nil || !r.Succeeded() {
		t.Fatalf("%v %+v", err, r)
	}
	want := map[string]any{"read": "ok", "home": "refused", "http": "refused", "udp": "refused", "subprocess": "refused", "tempfile": "ok"}
	data := r.Data.(map[string]any)
	for k, v := range want {
		if data[k] != v {
			t.Errorf("%s = %v, want %v (%v)", k, data[k], v, data)
		}
	}
}

// An interpreter found in ~/.local/bin (uv and pipx put one there) has
// ~/.local as its installation folder, which holds the user's data
// (~/.local/share: keyrings, tokens) and user site-packages: granting it
// whole would let the tool read them undeclared. Only the program file is
// granted (and the installation of its real path).
func TestInterpreterInHomeLocalNotGranted(t *testing.T) {
	needConfinement(t, confine.Needs{})
	_, x, _ := confinedFixture(t, "#   filesystem:\n#     write: [\"{run_dir}\"]\n")
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	bin := filepath.Join(x.Home, ".local", "bin")
	os.MkdirAll(bin, 0o755)
	if err := os.Symlink(bash, filepath.Join(bin, "bash")); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(x.Home, ".local", "share", "keyrings", "login.keyring")
	os.MkdirAll(filepath.Dir(secret), 0o700)
	os.WriteFile(secret, []byte("PRIVATE\n"), 0o600)
	for i, kv := range x.Environ {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			x.Environ[i] = "PATH=" + bin + ":" + v
		}
	}
	r, err := runBox(t, x, map[string]any{"secret": secret, "port": 1})
	if err != nil || !r.Succeeded() {
		t.Fatalf("%v %+v", err, r)
	}
	if got := r.Data.(map[string]any)["secret"]; got != "refused" {
		t.Errorf("~/.local/share read through the interpreter's folder: %v (interpreter %+v)", got, r.Confinement.Interpreter)
	}
	if in := r.Confinement.Interpreter; in == nil || in.Program != filepath.Join(bin, "bash") || len(in.Refused) == 0 {
		t.Errorf("interpreter: %+v", in)
	}
}
