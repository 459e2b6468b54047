package prim

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The RunSubprocess tests run real Unix programs (sh, printf, cat, env, pwd,
// sleep) and check process groups: they are skipped elsewhere. The config
// decoding tests run everywhere.

func spUnix(t *testing.T) {
	t.Helper()
	switch runtime.GOOS {
	case "windows", "plan9", "js", "wasip1":
		t.Skip("needs a Unix system")
	}
}

// spEnv is a minimal environment whose PATH has the usual tools.
func spEnv(extra ...string) []string {
	return append([]string{"PATH=/usr/local/bin:/usr/bin:/bin"}, extra...)
}

// spRun runs c with a safety timeout (so that a broken test fails rather
// than hangs) and fails the test on a Go error.
func spRun(t *testing.T, ctx context.Context, c subprocessConfig) *SubprocessResult {
	t.Helper()
	if c.Timeout == 0 {
		c.Timeout = 60 * time.Second
	}
	if c.Env == nil {
		c.Env = spEnv()
	}
	res, err := RunSubprocess(ctx, c)
	if err != nil {
		t.Fatalf("RunSubprocess(%s %q): %v", c.Command, c.Args, err)
	}
	return res
}

// spSet sets a tunable for the duration of the test.
func spSet[T any](t *testing.T, p *T, v T) {
	old := *p
	*p = v
	t.Cleanup(func() { *p = old })
}

// spWaitPidfile waits for a program to write its background child's pid.
func spWaitPidfile(t *testing.T, path string) int {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(path); err == nil && strings.HasSuffix(string(b), "\n") {
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				t.Fatalf("pidfile %q: %v", b, err)
			}
			return pid
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the program did not write its pidfile")
	return 0
}

// spAlive says whether pid is a live process. A zombie counts as dead: the
// process was killed, and here (as in many containers) nobody may reap the
// orphans it leaves.
func spAlive(pid int) bool {
	if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
		if i := bytes.LastIndexByte(b, ')'); i >= 0 && i+2 < len(b) && b[i+2] == 'Z' {
			return false
		}
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	return p.Signal(syscall.Signal(0)) == nil
}

// spAssertGone fails unless pid dies within a few seconds (the kill is
// asynchronous).
func spAssertGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for spAlive(pid) {
		if time.Now().After(deadline) {
			if p, err := os.FindProcess(pid); err == nil {
				_ = p.Kill() // do not leave it behind
			}
			t.Fatalf("process %d survived", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestSubprocessExitCodeAndCapture(t *testing.T) {
	spUnix(t)
	for _, code := range []int{0, 1, 3, 255} {
		res := spRun(t, context.Background(), subprocessConfig{
			Command: "sh",
			Args:    []string{"-c", "printf 'out\\n'; printf 'err\\n' >&2; exit " + strconv.Itoa(code)},
		})
		if res.ReturnCode != code || string(res.Stdout) != "out\n" || string(res.Stderr) != "err\n" {
			t.Errorf("exit %d: got code %d, stdout %q, stderr %q", code, res.ReturnCode, res.Stdout, res.Stderr)
		}
		if res.Success() != (code == 0) || res.TimedOut || res.Interrupted || res.StdoutTruncated || res.StderrTruncated {
			t.Errorf("exit %d: flags %+v", code, res)
		}
		if res.Duration <= 0 {
			t.Errorf("exit %d: duration %v", code, res.Duration)
		}
	}
}

func TestSubprocessSignalReturnCode(t *testing.T) {
	spUnix(t)
	res := spRun(t, context.Background(), subprocessConfig{Command: "sh", Args: []string{"-c", "kill -9 $$"}})
	if res.ReturnCode != 128+9 || res.Success() {
		t.Errorf("killed by SIGKILL: code %d, want 137", res.ReturnCode)
	}
}

func TestSubprocessArgsAreNotInterpreted(t *testing.T) {
	spUnix(t)
	args := []string{"a b", "$HOME", "${PATH}", "`id`", "$(id)", "; echo x", "|&><*?", `'"\`, "", "{name}", "~"}
	res := spRun(t, context.Background(), subprocessConfig{Command: "printf", Args: append([]string{"[%s]\\n"}, args...)})
	var want strings.Builder
	for _, a := range args {
		want.WriteString("[" + a + "]\n")
	}
	if res.ReturnCode != 0 || string(res.Stdout) != want.String() {
		t.Errorf("got code %d, stdout\n%s\nwant\n%s", res.ReturnCode, res.Stdout, want.String())
	}
}

func TestSubprocessStdin(t *testing.T) {
	spUnix(t)
	// No input: stdin is empty, so cat sees end of file at once instead of
	// waiting on rye's stdin.
	res := spRun(t, context.Background(), subprocessConfig{Command: "cat", Timeout: 20 * time.Second})
	if res.TimedOut || res.ReturnCode != 0 || len(res.Stdout) != 0 {
		t.Errorf("cat without input: %+v", res)
	}

	res = spRun(t, context.Background(), subprocessConfig{Command: "cat", Stdin: []byte("hello\nworld")})
	if res.ReturnCode != 0 || string(res.Stdout) != "hello\nworld" {
		t.Errorf("cat with input: code %d, stdout %q", res.ReturnCode, res.Stdout)
	}

	// More than a pipe holds, in and out at once: neither side may block.
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
	res = spRun(t, context.Background(), subprocessConfig{Command: "cat", Stdin: big})
	if res.ReturnCode != 0 || !bytes.Equal(res.Stdout, big) {
		t.Errorf("cat with 1 MiB: code %d, %d bytes out", res.ReturnCode, len(res.Stdout))
	}

	// A program that does not read its input is not disturbed by it.
	res = spRun(t, context.Background(), subprocessConfig{Command: "true", Stdin: big})
	if res.ReturnCode != 0 {
		t.Errorf("true with unread input: %+v", res)
	}
}

func TestSubprocessEnvIsExactlyTheGivenOne(t *testing.T) {
	spUnix(t)
	t.Setenv("RYE_TEST_LEAK", "from the parent")
	env := []string{"PATH=/usr/bin:/bin", "FOO=bar baz", "EMPTY="}
	res := spRun(t, context.Background(), subprocessConfig{Command: "env", Env: env})
	got := strings.Split(strings.TrimSuffix(string(res.Stdout), "\n"), "\n")
	slices.Sort(got)
	want := slices.Sorted(slices.Values(env))
	if res.ReturnCode != 0 || !reflect.DeepEqual(got, want) {
		t.Errorf("env printed %q, want %q", got, want)
	}

	// An empty environment stays empty (nil is not "inherit"); the command
	// is then found on the default PATH.
	res, err := RunSubprocess(context.Background(), subprocessConfig{Command: "env", Timeout: time.Minute})
	if err != nil || res.ReturnCode != 0 || len(res.Stdout) != 0 {
		t.Errorf("env with no environment: %v, %+v, stdout %q", err, res, res.Stdout)
	}
}

func TestSubprocessLooksUpThePATHOfItsEnv(t *testing.T) {
	spUnix(t)
	bin := t.TempDir()
	tool := filepath.Join(bin, "rye-test-tool")
	if err := os.WriteFile(tool, []byte("#!/bin/sh\necho \"tool $1\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	// Found on the PATH of Env, which rye's own PATH does not have.
	res := spRun(t, context.Background(), subprocessConfig{Command: "rye-test-tool", Args: []string{"x"}, Env: []string{"PATH=/nonexistent:" + bin}})
	if res.ReturnCode != 0 || string(res.Stdout) != "tool x\n" {
		t.Errorf("tool on Env's PATH: code %d, stdout %q, stderr %q", res.ReturnCode, res.Stdout, res.Stderr)
	}
	// Not found when Env's PATH lacks it, even though rye's PATH has sh.
	res = spRun(t, context.Background(), subprocessConfig{Command: "sh", Args: []string{"-c", "true"}, Env: []string{"PATH=" + bin}})
	if res.ReturnCode != 127 {
		t.Errorf("sh on a PATH without it: code %d, want 127", res.ReturnCode)
	}
	// Relative PATH entries are ignored: a name never finds a file of the
	// working directory.
	res = spRun(t, context.Background(), subprocessConfig{Command: "rye-test-tool", Dir: bin, Env: []string{"PATH=.:"}})
	if res.ReturnCode != 127 {
		t.Errorf("tool in the working directory through PATH=.: code %d, want 127", res.ReturnCode)
	}
	// A path with a separator is relative to Dir.
	res = spRun(t, context.Background(), subprocessConfig{Command: "./rye-test-tool", Args: []string{"y"}, Dir: bin})
	if res.ReturnCode != 0 || string(res.Stdout) != "tool y\n" {
		t.Errorf("./tool in Dir: code %d, stdout %q, stderr %q", res.ReturnCode, res.Stdout, res.Stderr)
	}
}

func TestSubprocessDir(t *testing.T) {
	spUnix(t)
	dir := t.TempDir()
	res := spRun(t, context.Background(), subprocessConfig{Command: "pwd", Args: []string{"-P"}, Dir: dir})
	want, _ := filepath.EvalSymlinks(dir)
	if res.ReturnCode != 0 || strings.TrimSpace(string(res.Stdout)) != want {
		t.Errorf("pwd in %s: %q", want, res.Stdout)
	}

	// The default directory of a decoded config is the one given (the
	// project root), and cwd is relative to it.
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for cwd, wantDir := range map[any]string{nil: dir, "sub": sub} {
		cfg := map[string]any{"command": "pwd", "args": []any{"-P"}}
		if cwd != nil {
			cfg["cwd"] = cwd
		}
		c, err := SubprocessConfigFrom(cfg, spEnv(), dir)
		if err != nil {
			t.Fatal(err)
		}
		res := spRun(t, context.Background(), c)
		want, _ := filepath.EvalSymlinks(wantDir)
		if got := strings.TrimSpace(string(res.Stdout)); got != want {
			t.Errorf("cwd %v: ran in %q, want %q", cwd, got, want)
		}
	}
}

func TestSubprocessCannotRun(t *testing.T) {
	spUnix(t)
	dir := t.TempDir()
	write := func(name, content string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := []struct{ command, wantErr string }{
		{"rye-no-such-command-xyz", "command not found: rye-no-such-command-xyz"},
		{filepath.Join(dir, "missing"), "command not found"},
		{write("plain.txt", "data", 0o644), "permission denied"},
		{dir, "is a directory"},
		{write("badinterp", "#!/nonexistent/interpreter\n", 0o755), "interpreter"},
		{write("noshebang", "\x7fELF garbage", 0o755), "cannot execute"},
	}
	for _, c := range cases {
		res, err := RunSubprocess(context.Background(), subprocessConfig{Command: c.command, Env: spEnv(), Timeout: time.Minute})
		if err != nil {
			t.Errorf("%s: Go error %v, want a 127 result", c.command, err)
			continue
		}
		if res.ReturnCode != 127 || res.Success() || !strings.Contains(string(res.Stderr), c.wantErr) {
			t.Errorf("%s: code %d, stderr %q; want 127 and %q", c.command, res.ReturnCode, res.Stderr, c.wantErr)
		}
	}
}

func TestSubprocessInvalidDirAndCommandAreErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		cfg  subprocessConfig
		want string
	}{
		{subprocessConfig{Command: "true", Dir: filepath.Join(dir, "nope")}, "does not exist"},
		{subprocessConfig{Command: "true", Dir: file}, "is not a directory"},
		{subprocessConfig{Command: ""}, "command is empty"},
	} {
		res, err := RunSubprocess(context.Background(), c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) || res != nil {
			t.Errorf("%+v: got %v, %+v; want an error with %q", c.cfg, err, res, c.want)
		}
		if c.cfg.Dir != "" && err != nil && !strings.Contains(err.Error(), c.cfg.Dir) {
			t.Errorf("the error %q does not name the directory", err)
		}
	}
}

func TestSubprocessTruncation(t *testing.T) {
	spUnix(t)
	spSet(t, &captureCap, 1000)
	// 200 kB on each stream, more than the pipes hold: the program must
	// run to completion (exit 0, not blocked, not killed by SIGPIPE).
	res := spRun(t, context.Background(), subprocessConfig{
		Command: "sh",
		Args:    []string{"-c", "i=0; while [ $i -lt 2000 ]; do echo 0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789; echo 0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789 >&2; i=$((i+1)); done; echo done >&2"},
	})
	if res.ReturnCode != 0 {
		t.Fatalf("code %d, stderr %q", res.ReturnCode, res.Stderr)
	}
	if len(res.Stdout) != 1000 || !res.StdoutTruncated || len(res.Stderr) != 1000 || !res.StderrTruncated {
		t.Errorf("got %d/%v stdout, %d/%v stderr bytes/truncated; want 1000/true each", len(res.Stdout), res.StdoutTruncated, len(res.Stderr), res.StderrTruncated)
	}
	if !bytes.HasPrefix(res.Stdout, []byte("0123456789")) {
		t.Errorf("stdout does not keep the beginning: %q", res.Stdout[:20])
	}
	// Exactly the cap is not truncated.
	res = spRun(t, context.Background(), subprocessConfig{Command: "head", Args: []string{"-c", "1000", "/dev/zero"}})
	if len(res.Stdout) != 1000 || res.StdoutTruncated {
		t.Errorf("exactly the cap: %d bytes, truncated %v", len(res.Stdout), res.StdoutTruncated)
	}
}

func TestSubprocessTimeoutKillsTheGroup(t *testing.T) {
	spUnix(t)
	spSet(t, &killGrace, 500*time.Millisecond)
	for _, c := range []struct {
		name, script string
		wantCode     int
	}{
		// sh dies of the SIGTERM.
		{"sigterm", "sleep 300 & echo $! > pidfile; wait", 128 + int(syscall.SIGTERM)},
		// Everything ignores SIGTERM: SIGKILL after the grace.
		{"sigkill", "trap '' TERM; sleep 300 & echo $! > pidfile; wait; wait", 128 + int(syscall.SIGKILL)},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			start := time.Now()
			res := spRun(t, context.Background(), subprocessConfig{Command: "sh", Args: []string{"-c", c.script}, Dir: dir, Timeout: time.Second})
			if elapsed := time.Since(start); elapsed > 30*time.Second {
				t.Errorf("took %v", elapsed)
			}
			if !res.TimedOut || res.Interrupted || res.Success() || res.ReturnCode != c.wantCode {
				t.Errorf("got timed out %v, interrupted %v, code %d; want a timeout with code %d", res.TimedOut, res.Interrupted, res.ReturnCode, c.wantCode)
			}
			spAssertGone(t, spWaitPidfile(t, filepath.Join(dir, "pidfile")))
		})
	}
}

func TestSubprocessCancelKillsTheGroup(t *testing.T) {
	spUnix(t)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type out struct {
		res *SubprocessResult
		err error
	}
	done := make(chan out, 1)
	go func() {
		res, err := RunSubprocess(ctx, subprocessConfig{Command: "sh", Args: []string{"-c", "sleep 300 & echo $! > pidfile; wait"}, Dir: dir, Env: spEnv(), Timeout: time.Hour})
		done <- out{res, err}
	}()
	pid := spWaitPidfile(t, filepath.Join(dir, "pidfile"))
	if !spAlive(pid) {
		t.Fatal("the child is not running before the cancellation")
	}
	cancel()
	select {
	case o := <-done:
		if o.err != nil || !o.res.Interrupted || o.res.TimedOut || o.res.Success() {
			t.Errorf("got %v, %+v; want interrupted", o.err, o.res)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("RunSubprocess did not return after the cancellation")
	}
	spAssertGone(t, pid)
}

func TestSubprocessCancelledBeforeStart(t *testing.T) {
	spUnix(t)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := spRun(t, ctx, subprocessConfig{Command: "touch", Args: []string{"ran"}, Dir: dir})
	if !res.Interrupted || res.ReturnCode != -1 {
		t.Errorf("got %+v; want interrupted with code -1", res)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
		t.Error("the command ran")
	}
}

func TestSubprocessLeftoverChildIsKilled(t *testing.T) {
	spUnix(t)
	// A drain delay longer than the bound below: only the group kill can
	// make this return in time, since the leftover sleep holds stdout open.
	spSet(t, &drainDelay, 45*time.Second)
	dir := t.TempDir()
	start := time.Now()
	res := spRun(t, context.Background(), subprocessConfig{Command: "sh", Args: []string{"-c", "sleep 300 & echo $! > pidfile; echo started"}, Dir: dir})
	if elapsed := time.Since(start); elapsed > 30*time.Second {
		t.Errorf("took %v: the leftover child was not killed", elapsed)
	}
	if res.ReturnCode != 0 || string(res.Stdout) != "started\n" || res.TimedOut {
		t.Errorf("got %+v, stdout %q", res, res.Stdout)
	}
	spAssertGone(t, spWaitPidfile(t, filepath.Join(dir, "pidfile")))
}

func TestSubprocessDetachedDaemonCannotHang(t *testing.T) {
	spUnix(t)
	setsid, err := exec.LookPath("setsid")
	if err != nil {
		t.Skip("no setsid program")
	}
	spSet(t, &drainDelay, 300*time.Millisecond)
	dir := t.TempDir()
	start := time.Now()
	// The daemon leaves the group (a session of its own), so the group
	// kill does not reach it, and it keeps stdout open.
	res := spRun(t, context.Background(), subprocessConfig{
		Command: "sh",
		Args:    []string{"-c", setsid + " sh -c 'echo $$ > pidfile; exec sleep 300' & while [ ! -s pidfile ]; do sleep 0.05; done; echo started"},
		Dir:     dir,
	})
	pid := spWaitPidfile(t, filepath.Join(dir, "pidfile"))
	t.Cleanup(func() {
		if p, err := os.FindProcess(pid); err == nil {
			_ = p.Kill()
		}
	})
	if elapsed := time.Since(start); elapsed > 30*time.Second {
		t.Errorf("took %v", elapsed)
	}
	if res.ReturnCode != 0 || string(res.Stdout) != "started\n" {
		t.Errorf("got %+v, stdout %q", res, res.Stdout)
	}
	if !spAlive(pid) {
		t.Error("the daemon was killed: the test does not test the drain delay")
	}
}

func TestSubprocessConfigFrom(t *testing.T) {
	base := []string{"PATH=/bin", "FOO=base", "KEEP=1"}
	root := filepath.FromSlash("/project")
	cases := []struct {
		name    string
		cfg     map[string]any
		want    subprocessConfig
		wantErr string
	}{
		{
			name: "defaults",
			cfg:  map[string]any{"command": "tool", "unknown_key": 1, "param_env": "RYE_PARAM_"},
			want: subprocessConfig{Command: "tool", Dir: root, Env: base, Timeout: defaultSubprocessTimeout},
		},
		{
			name: "everything",
			cfg: map[string]any{
				"command":    "python3",
				"args":       []any{"x", int64(3), 2.5, 1e21, true, nil, []any{int64(1), "a"}, map[string]any{"k": "<v>"}},
				"cwd":        "sub",
				"env":        map[string]any{"FOO": "new", "NUM": int64(7), "FLAG": false, "F": 0.5},
				"timeout":    int64(5),
				"input_data": "in",
			},
			want: subprocessConfig{
				Command: "python3",
				Args:    []string{"x", "3", "2.5", "1000000000000000000000", "true", "null", `[1,"a"]`, `{"k":"<v>"}`},
				Dir:     filepath.Join(root, "sub"),
				Env:     []string{"PATH=/bin", "KEEP=1", "F=0.5", "FLAG=false", "FOO=new", "NUM=7"},
				Timeout: 5 * time.Second,
				Stdin:   []byte("in"),
			},
		},
		{
			name: "absolute cwd, float timeout, JSON input, Go-typed values",
			cfg: map[string]any{
				"command": "t", "args": []string{"a"}, "cwd": filepath.FromSlash("/elsewhere"),
				"env": map[string]string{"X": "y"}, "timeout": 0.5, "input_data": map[string]any{"a": []any{int64(1)}},
			},
			want: subprocessConfig{
				Command: "t", Args: []string{"a"}, Dir: filepath.FromSlash("/elsewhere"),
				Env: append(slices.Clone(base), "X=y"), Timeout: 500 * time.Millisecond, Stdin: []byte(`{"a":[1]}`),
			},
		},
		{name: "no command", cfg: map[string]any{"args": []any{"x"}}, wantErr: "command is required"},
		{name: "empty command", cfg: map[string]any{"command": " "}, wantErr: "command is empty"},
		{name: "command list", cfg: map[string]any{"command": []any{"ls", "-l"}}, wantErr: "command must be a string"},
		{name: "args string", cfg: map[string]any{"command": "t", "args": "-l -a"}, wantErr: "args must be a list"},
		{name: "cwd number", cfg: map[string]any{"command": "t", "cwd": int64(1)}, wantErr: "cwd must be a string"},
		{name: "env list", cfg: map[string]any{"command": "t", "env": []any{"A=1"}}, wantErr: "env must be a map"},
		{name: "env value map", cfg: map[string]any{"command": "t", "env": map[string]any{"A": map[string]any{}}}, wantErr: "env.A must be a string, number or boolean"},
		{name: "env bad name", cfg: map[string]any{"command": "t", "env": map[string]any{"A=B": "x"}}, wantErr: `invalid variable name "A=B"`},
		{name: "timeout string", cfg: map[string]any{"command": "t", "timeout": "30"}, wantErr: "timeout must be a number of seconds"},
		{name: "timeout zero", cfg: map[string]any{"command": "t", "timeout": int64(0)}, wantErr: "timeout must be a positive number"},
		{name: "timeout negative", cfg: map[string]any{"command": "t", "timeout": -1.5}, wantErr: "timeout must be a positive number"},
		{name: "timeout huge", cfg: map[string]any{"command": "t", "timeout": 1e12}, wantErr: "longer than a year"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := SubprocessConfigFrom(c.cfg, base, root)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("got error %v, want one containing %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got  %#v\nwant %#v", got, c.want)
			}
		})
	}
	// The base environment is not modified.
	if !reflect.DeepEqual(base, []string{"PATH=/bin", "FOO=base", "KEEP=1"}) {
		t.Errorf("base changed: %q", base)
	}
}

func TestSubprocessInputDataReachesStdin(t *testing.T) {
	spUnix(t)
	c, err := SubprocessConfigFrom(map[string]any{"command": "cat", "input_data": map[string]any{"q": "a<b"}}, spEnv(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	res := spRun(t, context.Background(), c)
	if string(res.Stdout) != `{"q":"a<b"}` {
		t.Errorf("stdin was %q", res.Stdout)
	}
}

func TestParamEnv(t *testing.T) {
	cases := []struct {
		name   string
		prefix string
		params map[string]any
		want   []string
	}{
		{"none", "RYE_PARAM_", nil, []string{"RYE_PARAMS_JSON={}"}},
		{
			"scalars and structures", "RYE_PARAM_",
			map[string]any{
				"name": "a b<&>", "count": int64(3), "ratio": 2.5, "big": 1e21, "flag": true,
				"list": []any{int64(1), "x"}, "obj": map[string]any{"k": nil}, "nothing": nil,
			},
			[]string{
				"RYE_PARAM_BIG=1000000000000000000000",
				"RYE_PARAM_COUNT=3",
				"RYE_PARAM_FLAG=true",
				`RYE_PARAM_LIST=[1,"x"]`,
				"RYE_PARAM_NAME=a b<&>",
				"RYE_PARAM_NOTHING=null",
				`RYE_PARAM_OBJ={"k":null}`,
				"RYE_PARAM_RATIO=2.5",
				`RYE_PARAMS_JSON={"big":1e+21,"count":3,"flag":true,"list":[1,"x"],"name":"a b<&>","nothing":null,"obj":{"k":null},"ratio":2.5}`,
			},
		},
		{
			"names made valid", "P_",
			map[string]any{"dry-run": "1", "a.b c": "2", "mixedCase": "3", "é": "4"},
			[]string{"P_A_B_C=2", "P_DRY_RUN=1", "P_MIXEDCASE=3", "P___=4", `RYE_PARAMS_JSON={"a.b c":"2","dry-run":"1","mixedCase":"3","é":"4"}`},
		},
		{
			"collisions: the name sorted last wins", "P_",
			map[string]any{"a-b": "dash", "a_b": "underscore"},
			[]string{"P_A_B=underscore", `RYE_PARAMS_JSON={"a-b":"dash","a_b":"underscore"}`},
		},
		{
			"no prefix, leading digit", "",
			map[string]any{"1st": "x"},
			[]string{"_1ST=x", `RYE_PARAMS_JSON={"1st":"x"}`},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := ParamEnv(c.prefix, c.params)
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got  %q\nwant %q", got, c.want)
			}
		})
	}
}

func TestParamEnvReachesTheProgram(t *testing.T) {
	spUnix(t)
	env := append(spEnv(), ParamEnv("RYE_PARAM_", map[string]any{"msg": "it's $HOME", "n": int64(2)})...)
	res := spRun(t, context.Background(), subprocessConfig{Command: "sh", Args: []string{"-c", `printf '%s|%s|%s' "$RYE_PARAM_MSG" "$RYE_PARAM_N" "$RYE_PARAMS_JSON"`}, Env: env})
	if want := `it's $HOME|2|{"msg":"it's $HOME","n":2}`; string(res.Stdout) != want {
		t.Errorf("got %q, want %q", res.Stdout, want)
	}
}

// fakeLauncher records the hook's calls; its errors are what a failed
// confinement looks like to the primitive.
type fakeLauncher struct {
	prepareErr, startedErr error
	calls                  []string
}

func (f *fakeLauncher) Prepare(cmd *exec.Cmd) error {
	f.calls = append(f.calls, "prepare "+filepath.Base(cmd.Path))
	return f.prepareErr
}

func (f *fakeLauncher) Started() error {
	f.calls = append(f.calls, "started")
	return f.startedErr
}

func (f *fakeLauncher) Close() { f.calls = append(f.calls, "close") }

// A launcher's failure is a Go error, never a result: nothing of the
// program ran (Prepare: nothing started; Started: what started is
// collected, its output dropped).
func TestSubprocessLauncher(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("SKIPPED: needs sh")
	}
	f := &fakeLauncher{}
	res, err := RunSubprocess(context.Background(), subprocessConfig{Command: "sh", Args: []string{"-c", "echo hi"}, Env: []string{"PATH=/usr/bin:/bin"}, Launcher: f})
	if err != nil || string(res.Stdout) != "hi\n" || strings.Join(f.calls, ",") != "prepare sh,started,close" {
		t.Fatalf("%v %+v %v", err, res, f.calls)
	}
	f = &fakeLauncher{prepareErr: errors.New("no ruleset")}
	if res, err := RunSubprocess(context.Background(), subprocessConfig{Command: "sh", Args: []string{"-c", "echo hi"}, Env: []string{"PATH=/usr/bin:/bin"}, Launcher: f}); err == nil || res != nil || strings.Join(f.calls, ",") != "prepare sh,close" {
		t.Fatalf("prepare error: %v %+v %v", err, res, f.calls)
	}
	f = &fakeLauncher{startedErr: errors.New("the tool was not started: policy")}
	if res, err := RunSubprocess(context.Background(), subprocessConfig{Command: "sh", Args: []string{"-c", "echo hi"}, Env: []string{"PATH=/usr/bin:/bin"}, Launcher: f}); err == nil || res != nil || !strings.Contains(err.Error(), "not started") {
		t.Fatalf("started error: %v %+v", err, res)
	}
}
