package executor

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ryekit/rye/executor/prim"
	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/item/syntax"
	"github.com/ryekit/rye/lockfile"
	"github.com/ryekit/rye/params"
	"github.com/ryekit/rye/sign"
	"github.com/ryekit/rye/space"
	"github.com/ryekit/rye/verify"
)

// fixture is a project and a user space with a trusted signing key, over
// the real embedded system bundle.
type fixture struct {
	t       testing.TB
	project string
	user    string
	key     *sign.Key
	ss      *space.Spaces
}

func fixedKey(b byte) *sign.Key {
	seed := make([]byte, ed25519.SeedSize)
	for i := range seed {
		seed[i] = b + byte(i)
	}
	return sign.NewKey(ed25519.NewKeyFromSeed(seed))
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	dir := t.TempDir()
	f := &fixture{t: t, project: filepath.Join(dir, "project"), user: filepath.Join(dir, "user"), key: fixedKey(1)}
	for _, root := range []string{f.project, f.user} {
		os.MkdirAll(filepath.Join(root, ".ai"), 0o755)
	}
	f.trust(f.key, f.project)
	f.ss = &space.Spaces{
		Project: space.NewDiskSpace(space.Project, f.project, ""),
		User:    space.NewDiskSpace(space.User, f.user, ""),
		System:  []*space.Space{space.EmbeddedSpace()},
	}
	return f
}

// trust adds key to the trusted keys of the space rooted at root.
func (f *fixture) trust(key *sign.Key, root string) {
	k := &verify.TrustedKey{Owner: "test", Public: key.Public}
	dir := filepath.Join(root, ".ai", verify.TrustedKeysDir)
	os.MkdirAll(dir, 0o755)
	if err := os.WriteFile(filepath.Join(dir, key.Fingerprint+".toml"), verify.FormatTrustedKey(k), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

// write puts an item file into a space ("project" or "user") at rel
// (relative to .ai/), signed with key unless key is nil, and returns its
// path.
func (f *fixture) write(spaceName, rel, content string, key *sign.Key) string {
	f.t.Helper()
	root := f.project
	if spaceName == "user" {
		root = f.user
	}
	data := []byte(content)
	if key != nil {
		k, id, ext, err := space.KindAndID(rel)
		if err != nil {
			f.t.Fatal(err)
		}
		if data, err = sign.Sign(key, sign.V2, k, id, ext, data, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)); err != nil {
			f.t.Fatalf("sign %s: %v", rel, err)
		}
	}
	p := filepath.Join(root, ".ai", filepath.FromSlash(rel))
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		f.t.Fatal(err)
	}
	return p
}

func (f *fixture) executor() *Executor {
	f.t.Helper()
	ts, err := verify.LoadTrustStore(verify.TrustSources(f.ss.All()))
	if err != nil {
		f.t.Fatal(err)
	}
	return &Executor{
		Spaces: f.ss, Trust: ts, Policy: verify.Policy{Now: time.Now()},
		ProjectPath: f.project, Environ: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + f.user},
		LookPath: exec.LookPath, Exists: func(p string) bool { _, err := os.Stat(p); return err == nil },
		TempDir: f.t.TempDir(),
	}
}

// shellTool is a shell tool that writes a marker file into the project
// (proof that it ran) and prints its parameters as JSON.
func shellTool(category, executor, extra string) string {
	return fmt.Sprintf(`#!/usr/bin/env bash
# ---
# version: "1.0.0"
# tool_type: shell
# executor_id: %s
# category: %s
# description: test tool
# config_schema:
#   type: object
#   properties:
#     who: {type: string, default: World}
#     count: {type: integer}
%s# ---
touch ran.marker
printf '{"success": true, "who": "%%s", "json": %%s}\n' "$RYE_PARAM_WHO" "$RYE_PARAMS_JSON"
`, executor, category, extra)
}

const shellRuntimeID = "rye/core/runtimes/shell_runtime"

func needBash(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
}

func (f *fixture) marker() bool {
	_, err := os.Stat(filepath.Join(f.project, "ran.marker"))
	return err == nil
}

// given passes fixed parameters to Prepare.
func given(params map[string]any) func(*syntax.Node) (map[string]any, error) {
	return func(*syntax.Node) (map[string]any, error) { return params, nil }
}

// inputs passes fixed inputs to ExecuteItem.
func inputs(in map[string]any) func(*item.Metadata) (map[string]any, error) {
	return func(*item.Metadata) (map[string]any, error) { return in, nil }
}

func (f *fixture) execute(x *Executor, id item.ID, params map[string]any) (*Result, error) {
	p, err := x.Prepare(id, prepareOptions{Params: given(params)})
	if err != nil {
		return failure("tool", string(id), p, err, time.Now()), err
	}
	return x.Run(context.Background(), p, runOptions{}), nil
}

func TestExecuteShellTool(t *testing.T) {
	needBash(t)
	f := newFixture(t)
	f.write("project", "tools/t/hello.sh", shellTool("t", shellRuntimeID, ""), f.key)
	x := f.executor()
	r, err := f.execute(x, "t/hello", map[string]any{"count": int64(2)})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Succeeded() || !f.marker() {
		t.Fatalf("run failed: %+v", r)
	}
	data := r.Data.(map[string]any)
	if data["who"] != "World" || data["json"].(map[string]any)["count"] != int64(2) {
		t.Errorf("data %#v", data)
	}
	var ids []string
	for _, l := range r.Chain {
		ids = append(ids, l.ItemID+"@"+l.Space+":"+l.Verdict)
		if l.Integrity == "" {
			t.Errorf("%s: no integrity", l.ItemID)
		}
	}
	if got := strings.Join(ids, " "); got != "t/hello@project:verified rye/core/runtimes/shell_runtime@system:verified rye/core/primitives/subprocess@system:verified" {
		t.Errorf("chain %s", got)
	}
	if !r.Metadata.LockfileCreated || r.Metadata.LockfileUsed {
		t.Errorf("first run: %+v", r.Metadata)
	}
	// The second run uses the lockfile it wrote.
	r, _ = f.execute(x, "t/hello", nil)
	if !r.Succeeded() || !r.Metadata.LockfileUsed || r.Metadata.LockfileCreated {
		t.Errorf("second run: %+v", r)
	}
	// The result is the JSON of spec 3.8.
	out, _ := json.Marshal(r)
	for _, key := range []string{`"status":"success"`, `"type":"tool"`, `"item_id":"t/hello"`, `"duration_ms":`, `"lockfile_used":true`, `"executor_id":null`} {
		if !strings.Contains(string(out), key) {
			t.Errorf("result lacks %s: %s", key, out)
		}
	}
}

// Whatever element does not verify, nothing runs: the tool's marker file
// is never written.
func TestNothingRunsUnlessEveryElementVerifies(t *testing.T) {
	needBash(t)
	runtimeYAML := func(category string) string {
		return "version: \"1.0.0\"\ntool_type: runtime\nexecutor_id: rye/core/primitives/subprocess\ncategory: " + category + "\ndescription: r\nconfig:\n  command: bash\n  args: [\"{tool_path}\"]\n  param_env: RYE_PARAM_\n"
	}
	stranger := fixedKey(99)
	cases := []struct {
		name    string
		setup   func(f *fixture)
		verdict verify.Verdict
		role    string
	}{
		{"unsigned tool", func(f *fixture) {
			f.write("project", "tools/t/hello.sh", shellTool("t", shellRuntimeID, ""), nil)
		}, verify.Unsigned, "tool"},
		{"modified tool", func(f *fixture) {
			p := f.write("project", "tools/t/hello.sh", shellTool("t", shellRuntimeID, ""), f.key)
			data, _ := os.ReadFile(p)
			os.WriteFile(p, append(data, "echo extra\n"...), 0o644)
		}, verify.Modified, "tool"},
		{"tool signed by an untrusted key", func(f *fixture) {
			f.write("project", "tools/t/hello.sh", shellTool("t", shellRuntimeID, ""), stranger)
		}, verify.UntrustedKey, "tool"},
		{"moved tool", func(f *fixture) {
			p := f.write("project", "tools/t/other.sh", shellTool("t", shellRuntimeID, ""), f.key)
			data, _ := os.ReadFile(p)
			os.Remove(p)
			os.WriteFile(filepath.Join(filepath.Dir(p), "hello.sh"), data, 0o644)
		}, verify.BadSignature, "tool"},
		{"unsigned project runtime", func(f *fixture) {
			f.write("project", "tools/t/hello.sh", shellTool("t", "t/runtime", ""), f.key)
			f.write("project", "tools/t/runtime.yaml", runtimeYAML("t"), nil)
		}, verify.Unsigned, "executor"},
		{"modified user runtime", func(f *fixture) {
			f.write("project", "tools/t/hello.sh", shellTool("t", "u/runtime", ""), f.key)
			f.trust(f.key, f.user)
			p := f.write("user", "tools/u/runtime.yaml", runtimeYAML("u"), f.key)
			data, _ := os.ReadFile(p)
			os.WriteFile(p, []byte(strings.Replace(string(data), "command: bash", "command: sh", 1)), 0o644)
		}, verify.Modified, "executor"},
		{"project runtime shadowing the system one, untrusted", func(f *fixture) {
			f.write("project", "tools/t/hello.sh", shellTool("t", shellRuntimeID, ""), f.key)
			f.write("project", "tools/rye/core/runtimes/shell_runtime.yaml", runtimeYAML("rye/core/runtimes"), stranger)
		}, verify.UntrustedKey, "executor"},
		{"project primitive shadowing the system one, unsigned", func(f *fixture) {
			f.write("project", "tools/t/hello.sh", shellTool("t", "t/runtime", ""), f.key)
			f.write("project", "tools/t/runtime.yaml", runtimeYAML("t"), f.key)
			f.write("project", "tools/rye/core/primitives/subprocess.yaml", "version: \"1.0.0\"\ntool_type: primitive\nexecutor_id: null\ncategory: rye/core/primitives\ndescription: p\n", nil)
		}, verify.Unsigned, "executor"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			c.setup(f)
			x := f.executor()
			started := false
			x.beforeStart = func(*plan) { started = true }
			r, err := f.execute(x, "t/hello", nil)
			var ve *VerifyError
			if !errors.As(err, &ve) || ve.Result.Verdict != c.verdict || ve.Role != c.role {
				t.Fatalf("got %v (%+v), want a %s %s", err, ve, c.role, c.verdict)
			}
			if started || f.marker() {
				t.Error("the tool ran")
			}
			if r.Status != "error" || !strings.Contains(r.Error, "nothing was run") {
				t.Errorf("result %+v", r)
			}
			if last := r.Chain[len(r.Chain)-1]; last.Verdict != string(c.verdict) {
				t.Errorf("the failing element is not reported last: %+v", r.Chain)
			}
		})
	}
}

// The bytes that run are the bytes that were verified: a tool swapped on
// disk between verification and start changes nothing.
func TestVerifiedBytesRun(t *testing.T) {
	needBash(t)
	f := newFixture(t)
	p := f.write("project", "tools/t/hello.sh", shellTool("t", shellRuntimeID, ""), f.key)
	x := f.executor()
	x.beforeStart = func(*plan) {
		evil := "#!/usr/bin/env bash\ntouch swapped.marker\necho '{\"success\": true, \"evil\": true}'\n"
		if err := os.WriteFile(p, []byte(evil), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, err := f.execute(x, "t/hello", nil)
	if err != nil || !r.Succeeded() {
		t.Fatalf("%v %+v", err, r)
	}
	if _, err := os.Stat(filepath.Join(f.project, "swapped.marker")); err == nil {
		t.Fatal("the swapped file ran")
	}
	if !f.marker() || r.Data.(map[string]any)["who"] != "World" {
		t.Errorf("the verified tool did not run: %+v", r.Data)
	}
}

func TestLockfileMismatchStops(t *testing.T) {
	needBash(t)
	f := newFixture(t)
	f.write("project", "tools/t/hello.sh", shellTool("t", shellRuntimeID, ""), f.key)
	x := f.executor()
	if r, _ := f.execute(x, "t/hello", nil); !r.Metadata.LockfileCreated {
		t.Fatalf("no lockfile: %+v", r)
	}
	os.Remove(filepath.Join(f.project, "ran.marker"))
	// A legitimate, signed change of the tool still breaks the pin.
	f.write("project", "tools/t/hello.sh", shellTool("t", shellRuntimeID, "#     extra: {type: string}\n"), f.key)
	_, err := f.execute(x, "t/hello", nil)
	var lm *lockfile.MismatchError
	if !errors.As(err, &lm) || lm.Element != "t/hello" || !strings.Contains(err.Error(), "rye lock tool t/hello") {
		t.Fatalf("got %v", err)
	}
	if f.marker() {
		t.Error("the tool ran")
	}
	// rye lock refreshes it.
	p, err := x.Prepare("t/hello", prepareOptions{ForLock: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := x.Lock(p); err != nil {
		t.Fatal(err)
	}
	if r, err := f.execute(x, "t/hello", nil); err != nil || !r.Succeeded() || !r.Metadata.LockfileUsed {
		t.Errorf("after rye lock: %v %+v", err, r)
	}
}

func TestParameterErrors(t *testing.T) {
	f := newFixture(t)
	f.write("project", "tools/t/hello.sh", shellTool("t", shellRuntimeID, ""), f.key)
	x := f.executor()
	for _, ps := range []map[string]any{{"count": "x"}, {"colour": "red"}} {
		_, err := x.Prepare("t/hello", prepareOptions{Params: given(ps)})
		var pe *params.Error
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), "--who") {
			t.Errorf("%v: %v", ps, err)
		}
	}
}

func TestToolOutputShapes(t *testing.T) {
	cases := []struct {
		res     prim.SubprocessResult
		wantErr string
		data    string
	}{
		{prim.SubprocessResult{Stdout: []byte(`{"success": true, "n": 1}`)}, "", `{"n":1,"success":true}`},
		{prim.SubprocessResult{Stdout: []byte(`[1, 2.5]`)}, "", `[1,2.5]`},
		{prim.SubprocessResult{Stdout: []byte("42\n")}, "", `{"return_code":0,"stderr":"","stdout":"42\n"}`},
		{prim.SubprocessResult{Stdout: []byte(`{"success": false, "error": "no such file"}`)}, "no such file", ""},
		{prim.SubprocessResult{Stdout: []byte(`{"success": false}`)}, `"success": false`, ""},
		{prim.SubprocessResult{Stdout: []byte("partial"), Stderr: []byte("warn\nboom\n"), ReturnCode: 3}, "exited with status 3: boom", `{"return_code":3,"stderr":"warn\nboom\n","stdout":"partial"}`},
		{prim.SubprocessResult{ReturnCode: 143, TimedOut: true}, "timed out after 1s", ""},
		{prim.SubprocessResult{ReturnCode: 143, Interrupted: true}, "interrupted", ""},
		{prim.SubprocessResult{Stdout: []byte(`{"a": 1} {"b": 2}`)}, "", `{"return_code":0,"stderr":"","stdout":"{\"a\": 1} {\"b\": 2}"}`},
		// JSON that could not be written back (an infinite number) or that
		// has text after it is text, not data.
		{prim.SubprocessResult{Stdout: []byte(`{"n": 1e400}`)}, "", `{"return_code":0,"stderr":"","stdout":"{\"n\": 1e400}"}`},
		{prim.SubprocessResult{Stdout: []byte(`{"a": 1}]`)}, "", `{"return_code":0,"stderr":"","stdout":"{\"a\": 1}]"}`},
	}
	for _, c := range cases {
		data, err := shapeSubprocess(&c.res, time.Second)
		if (err == nil) != (c.wantErr == "") || (err != nil && !strings.Contains(err.Error(), c.wantErr)) {
			t.Errorf("%q: error %v, want %q", c.res.Stdout, err, c.wantErr)
		}
		if c.data != "" {
			if got, _ := json.Marshal(data); string(got) != c.data {
				t.Errorf("%q: data %s, want %s", c.res.Stdout, got, c.data)
			}
		}
	}
}

func TestHTTPTool(t *testing.T) {
	var gotAuth, gotPath string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotAuth, gotPath = r.Header.Get("Authorization"), r.URL.Path
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"ok": true, "n": 7}`)
	}))
	defer srv.Close()
	f := newFixture(t)
	f.write("project", "tools/t/hello.yaml", `version: "1.0.0"
tool_type: http
executor_id: rye/core/primitives/http_client
category: t
description: call a service
env_config:
  env:
    API_TOKEN: "${TEST_TOKEN:-none}"
config_schema:
  type: object
  properties:
    path: {type: string}
  required: [path]
config:
  method: GET
  url: "`+srv.URL+`/v1/{path}"
  auth: {type: bearer, token: "${API_TOKEN}"}
`, f.key)
	x := f.executor()
	x.Environ = append(x.Environ, "TEST_TOKEN=s3cret")
	r, err := f.execute(x, "t/hello", map[string]any{"path": "items"})
	if err != nil || !r.Succeeded() {
		t.Fatalf("%v %+v", err, r)
	}
	if gotAuth != "Bearer s3cret" || gotPath != "/v1/items" {
		t.Errorf("request: auth %q path %q", gotAuth, gotPath)
	}
	if body := r.Data.(map[string]any)["body"].(map[string]any); body["n"] != int64(7) {
		t.Errorf("body %#v", body)
	}
}

// A multi-file tool declares verify_deps: every dependency must verify,
// and the run imports the verified copies.
func TestVerifyDeps(t *testing.T) {
	needBash(t)
	f := newFixture(t)
	deps := "# verify_deps: {extensions: [.sh]}\n"
	tool := strings.Replace(shellTool("t", shellRuntimeID, ""), "touch ran.marker\n", "source \"$(dirname \"$0\")/lib/helper.sh\"\ntouch ran.marker\n", 1)
	tool = strings.Replace(tool, "#     count: {type: integer}\n", "#     count: {type: integer}\n"+deps, 1)
	f.write("project", "tools/t/hello.sh", tool, f.key)
	helper := "#!/usr/bin/env bash\n# ---\n# version: \"1.0.0\"\n# tool_type: library\n# executor_id: null\n# category: t/lib\n# description: helper\n# ---\nexport FROM_HELPER=1\n"
	hp := f.write("project", "tools/t/lib/helper.sh", helper, nil)
	x := f.executor()
	_, err := f.execute(x, "t/hello", nil)
	var ve *VerifyError
	if !errors.As(err, &ve) || ve.Role != "dependency" || ve.Result.ID != "t/lib/helper" || f.marker() {
		t.Fatalf("unsigned dependency: %v", err)
	}
	f.write("project", "tools/t/lib/helper.sh", helper, f.key)
	// Swap the dependency after verification: the verified copy runs.
	x.beforeStart = func(*plan) { os.WriteFile(hp, []byte("exit 9\n"), 0o644) }
	r, err := f.execute(x, "t/hello", nil)
	if err != nil || !r.Succeeded() || !f.marker() {
		t.Fatalf("signed dependency: %v %+v", err, r)
	}
}

func TestPythonFunctionRuntime(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3")
	}
	f := newFixture(t)
	f.write("project", "tools/t/hello.py", `__version__ = "1.0.0"
__tool_type__ = "python"
__executor_id__ = "rye/core/runtimes/python_function_runtime"
__category__ = "t"
__tool_description__ = "add"
CONFIG_SCHEMA = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer", "default": 2}}}


async def execute(params, project_path):
    return {"success": True, "sum": params["a"] + params["b"], "project": project_path}
`, f.key)
	x := f.executor()
	r, err := f.execute(x, "t/hello", map[string]any{"a": int64(40)})
	if err != nil || !r.Succeeded() {
		t.Fatalf("%v %+v", err, r)
	}
	data := r.Data.(map[string]any)
	if data["sum"] != int64(42) || data["project"] != f.project {
		t.Errorf("data %#v", data)
	}
}

func TestExecuteItems(t *testing.T) {
	f := newFixture(t)
	f.write("project", "directives/t/greet.md", "# Greet\n\n```xml\n<directive name=\"greet\" version=\"1.0.0\">\n  <metadata>\n    <description>d</description>\n    <category>t</category>\n  </metadata>\n  <inputs>\n    <input name=\"who\" type=\"string\" required=\"true\">Who</input>\n    <input name=\"style\" type=\"string\" default=\"plain\">How</input>\n  </inputs>\n</directive>\n```\n\nGreet {input:who} in a {input:style} way{input:suffix?}, from {input:from|rye}.\n", f.key)
	f.write("project", "knowledge/t/style.md", "```yaml\nname: style\nversion: \"1.0.0\"\ncategory: t\n```\n\nBe brief.\n", f.key)
	x := f.executor()
	r, err := x.ExecuteItem(item.Directive, "t/greet", inputs(map[string]any{"who": "Ada"}), false)
	if err != nil {
		t.Fatal(err)
	}
	data := r.Data.(map[string]any)
	if got := data["instructions"]; !strings.Contains(got.(string), "Greet Ada in a plain way, from rye.") {
		t.Errorf("instructions %q", got)
	}
	if r, _ := x.ExecuteItem(item.Directive, "t/greet", inputs(map[string]any{"who": "Ada"}), true); r.Data.(map[string]any)["instructions"] != nil {
		t.Error("dry run has instructions")
	}
	var ie *InputError
	if _, err := x.ExecuteItem(item.Directive, "t/greet", nil, false); !errors.As(err, &ie) || !strings.Contains(err.Error(), "missing required input who") {
		t.Errorf("missing input: %v", err)
	}
	r, err = x.ExecuteItem(item.Knowledge, "t/style", nil, false)
	if err != nil || !strings.Contains(r.Data.(map[string]any)["content"].(string), "Be brief.") {
		t.Errorf("knowledge: %v %+v", err, r)
	}
	f.write("project", "knowledge/t/style.md", "```yaml\nname: style\nversion: \"1.0.0\"\ncategory: t\n```\n\nBe brief.\n", nil)
	var ve *VerifyError
	if _, err := x.ExecuteItem(item.Knowledge, "t/style", nil, false); !errors.As(err, &ve) {
		t.Errorf("unsigned knowledge: %v", err)
	}
}

// The run directory is private and removed afterwards.
func TestRunDirectoryIsPrivateAndRemoved(t *testing.T) {
	needBash(t)
	f := newFixture(t)
	// The tool is <run>/ai/tools/t/hello.sh: four dirnames up is <run>.
	run := `"$(dirname "$(dirname "$(dirname "$(dirname "$0")")")")"`
	tool := strings.Replace(shellTool("t", shellRuntimeID, ""), "touch ran.marker\n", "touch ran.marker\nstat -c %a \"$0\" "+run+" > perms.txt 2>/dev/null || stat -f %Lp \"$0\" "+run+" > perms.txt\n", 1)
	f.write("project", "tools/t/hello.sh", tool, f.key)
	x := f.executor()
	if r, err := f.execute(x, "t/hello", nil); err != nil || !r.Succeeded() {
		t.Fatalf("%v %+v", err, r)
	}
	perms, _ := os.ReadFile(filepath.Join(f.project, "perms.txt"))
	if got := strings.Fields(string(perms)); len(got) != 2 || got[0] != "500" || got[1] != "700" {
		t.Errorf("tool and run directory modes %q, want 500 and 700", perms)
	}
	if entries, _ := os.ReadDir(x.TempDir); len(entries) != 0 {
		t.Errorf("run directory left behind: %v", entries)
	}
}

// Embedded elements are pinned by their manifest hash.
func TestEmbeddedIntegrityIsTheManifest(t *testing.T) {
	sp := space.EmbeddedSpace()
	rel := "tools/rye/core/runtimes/shell_runtime.yaml"
	data, err := sp.ReadFile(rel)
	if err != nil {
		t.Fatal(err)
	}
	loc := &space.Located{Space: sp, Kind: item.Tool, ID: "rye/core/runtimes/shell_runtime", Rel: rel}
	got, err := lockfile.Integrity(loc, data)
	want, _ := space.EmbeddedHash(rel)
	if err != nil || got != want {
		t.Errorf("%s %v, want %s", got, err, want)
	}
	if _, err := lockfile.Integrity(loc, append(data, '\n')); err == nil {
		t.Error("bytes that differ from the manifest were accepted")
	}
}

// The executor's own cost: rye execute's work in-process (trust store,
// chain build, verification, lockfile, parameters, run directory,
// environment, templates) around a trivial shell tool, against running the
// same script with bash directly. BenchmarkRunDirect is the baseline.
func BenchmarkExecuteTrivialTool(b *testing.B) {
	if _, err := exec.LookPath("bash"); err != nil {
		b.Skip("no bash")
	}
	f := newFixture(b)
	f.write("project", "tools/t/noop.sh", noopTool, f.key)
	x := f.executor()
	ctx := context.Background()
	for b.Loop() {
		ts, err := verify.LoadTrustStore(verify.TrustSources(f.ss.All()))
		if err != nil {
			b.Fatal(err)
		}
		x.Trust = ts
		p, err := x.Prepare("t/noop", prepareOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if r := x.Run(ctx, p, runOptions{}); !r.Succeeded() {
			b.Fatal(r.Error)
		}
	}
}

func BenchmarkRunDirect(b *testing.B) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		b.Skip("no bash")
	}
	script := filepath.Join(b.TempDir(), "noop.sh")
	os.WriteFile(script, []byte(noopTool), 0o500)
	for b.Loop() {
		if err := exec.Command(bash, script).Run(); err != nil {
			b.Fatal(err)
		}
	}
}

const noopTool = `#!/usr/bin/env bash
# ---
# version: "1.0.0"
# tool_type: shell
# executor_id: rye/core/runtimes/shell_runtime
# category: t
# description: do nothing
# ---
echo '{"success": true}'
`

// A node tool finds the project's packages through NODE_PATH, although it
// runs from rye's private copy.
func TestNodeToolFindsProjectPackages(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("no node")
	}
	f := newFixture(t)
	pkg := filepath.Join(f.project, "node_modules", "zzpkg")
	os.MkdirAll(pkg, 0o755)
	os.WriteFile(filepath.Join(pkg, "index.js"), []byte("module.exports = {from: 'project'};\n"), 0o644)
	f.write("project", "tools/t/hello.js", `// ---
// version: "1.0.0"
// tool_type: javascript
// executor_id: rye/core/runtimes/node_runtime
// category: t
// description: use a package
// ---
const m = require('zzpkg');
console.log(JSON.stringify({success: true, from: m.from}));
`, f.key)
	// The project's packages are code nobody verified: only the user's own
	// configuration lets node find them, and only when git does not track
	// them.
	x := f.executor()
	if r, err := f.execute(x, "t/hello", nil); err != nil || r.Succeeded() {
		t.Fatalf("without the user's consent the project's packages were found: %v %+v", err, r)
	}
	x.ProjectInterpreters = true
	r, err := f.execute(x, "t/hello", nil)
	if err != nil || !r.Succeeded() || r.Data.(map[string]any)["from"] != "project" {
		t.Fatalf("%v %+v", err, r)
	}
	x.Tracked = func(p string) (bool, error) {
		return strings.HasPrefix(p, filepath.Join(f.project, "node_modules")), nil
	}
	if r, err := f.execute(x, "t/hello", nil); err != nil || r.Succeeded() || !strings.Contains(r.Error, "is tracked by git") {
		t.Fatalf("tracked packages were used: %v %+v", err, r)
	}
}

func TestRunRootIsPrivate(t *testing.T) {
	base := t.TempDir()
	dir, err := runRoot(filepath.Join(base, "cache", "run"))
	if err != nil {
		t.Fatal(err)
	}
	info, _ := os.Stat(dir)
	if info.Mode().Perm() != 0o700 {
		t.Errorf("mode %v", info.Mode())
	}
	os.Chmod(dir, 0o777)
	if _, err := runRoot(dir); err != nil {
		t.Fatal(err)
	}
	if info, _ := os.Stat(dir); info.Mode().Perm() != 0o700 {
		t.Errorf("loose mode kept: %v", info.Mode())
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(dir, link); err == nil {
		if _, err := runRoot(link); err == nil {
			t.Error("a symbolic link was accepted as the run root")
		}
	}
}

// No tool sees rye's secrets (SecretVars): not in its environment, not
// through a runtime's ${NAME}, not from an Executor built by New from a
// process environment that holds them.
func TestSecretsNeverReachATool(t *testing.T) {
	needBash(t)
	f := newFixture(t)
	f.write("project", "tools/t/runtime.yaml", `version: "1.0.0"
tool_type: runtime
executor_id: rye/core/primitives/subprocess
category: t
description: a runtime that passes the passphrase on by name
env_config:
  env:
    FROM_RUNTIME: "${RYE_KEY_PASSWORD:-unset}"
config:
  command: bash
  args: ["{tool_path}"]
`, f.key)
	f.write("project", "tools/t/env.sh", `#!/usr/bin/env bash
# ---
# version: "1.0.0"
# tool_type: shell
# executor_id: t/runtime
# category: t
# description: print what it can see of rye's secrets
# ---
printf '{"password": "%s", "key": "%s", "ssh": "%s", "runtime": "%s", "all": "%s"}\n' "$RYE_KEY_PASSWORD" "$RYE_SIGNING_KEY" "$RYE_SSH_KEY" "$FROM_RUNTIME" "$(env | grep -c s3cret)"
`, f.key)
	t.Setenv("RYE_KEY_PASSWORD", "s3cret")
	t.Setenv("RYE_SIGNING_KEY", "/keys/s3cret.pem")
	t.Setenv("rye_ssh_key", "s3cret")
	x := f.executor()
	x.Environ = append(x.Environ, "RYE_KEY_PASSWORD=s3cret", "RYE_SIGNING_KEY=/keys/s3cret.pem", "RYE_SSH_KEY=s3cret")
	fromNew, _, err := New(f.ss, x.Trust, x.Policy, nil, f.project)
	if err != nil {
		t.Fatal(err)
	}
	fromNew.TempDir = t.TempDir()
	for name, x := range map[string]*Executor{"Executor": x, "New": fromNew} {
		r, err := f.execute(x, "t/env", nil)
		if err != nil || !r.Succeeded() {
			t.Fatalf("%s: %v %+v", name, err, r)
		}
		if got, _ := json.Marshal(r.Data); string(got) != `{"all":"0","key":"","password":"","runtime":"unset","ssh":""}` {
			t.Errorf("%s: the tool saw %s", name, got)
		}
	}
}

// A v1 signature does not bind a file's name: a signed dependency copied
// beside itself under another name (a module's, json.py) still verifies.
// Two files of a run carrying one legacy signature are refused, naming
// both and the fix; the package as signed runs.
func TestCopiesUnderAnotherNameRefused(t *testing.T) {
	needBash(t)
	f := newFixture(t)
	tool := strings.Replace(shellTool("t/pkg", shellRuntimeID, "# verify_deps: {extensions: [.sh]}\n"), "touch ran.marker\n", "source \"$(dirname \"$0\")/helper.sh\"\ntouch ran.marker\n", 1)
	v1 := func(rel, content string) string {
		k, id, ext, err := space.KindAndID(rel)
		if err != nil {
			t.Fatal(err)
		}
		data, err := sign.Sign(f.key, sign.V1, k, id, ext, []byte(content), time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
		if err != nil {
			t.Fatal(err)
		}
		return f.write("project", rel, string(data), nil)
	}
	v1("tools/t/pkg/tool.sh", tool)
	helper := v1("tools/t/pkg/helper.sh", "# ---\n# version: \"1.0.0\"\n# tool_type: library\n# category: t/pkg\n# description: helper\n# ---\nexport FROM_HELPER=1\n")
	x := f.executor()
	if r, err := f.execute(x, "t/pkg/tool", nil); err != nil || !r.Succeeded() {
		t.Fatalf("the package as signed: %v %+v", err, r)
	}
	os.Remove(filepath.Join(f.project, "ran.marker"))
	data, _ := os.ReadFile(helper)
	os.WriteFile(filepath.Join(filepath.Dir(helper), "json.sh"), data, 0o644)
	_, err := f.execute(x, "t/pkg/tool", nil)
	var ve *VerifyError
	if !errors.As(err, &ve) || ve.Role != "dependency" || ve.Result.Verdict != verify.Moved || ve.Result.ID != "t/pkg/json" || f.marker() ||
		!strings.Contains(ve.Error(), "it carries the same v1 signature as "+helper+": a copy under another name, which v1 does not bind") ||
		!strings.Contains(ve.Error(), "rye sign --format v2 tool t/pkg/json") {
		t.Errorf("a copy: %v", err)
	}
	// The same copy with its line written as v1u (the "==" of the base64
	// dropped): one signature in another form, still a copy.
	unpadded := regexp.MustCompile(`==:([0-9a-f]{16})\n`).ReplaceAll(data, []byte(":$1\n"))
	if bytes.Equal(unpadded, data) {
		t.Fatal("no v1 signature to re-encode")
	}
	os.WriteFile(filepath.Join(filepath.Dir(helper), "json.sh"), unpadded, 0o644)
	_, err = f.execute(x, "t/pkg/tool", nil)
	if !errors.As(err, &ve) || ve.Result.ID != "t/pkg/json" || f.marker() || !strings.Contains(ve.Error(), "it carries the same v1u signature as "+helper) {
		t.Errorf("a copy re-encoded as v1u: %v", err)
	}
}
