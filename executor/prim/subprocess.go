package prim

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ryekit/rye/internal/jsonvalue"
)

// subprocessConfig is what the subprocess primitive runs, after templating:
// every value is final, nothing is expanded or quoted again, and no shell is
// ever involved.
type subprocessConfig struct {
	// Command is the program: a path (anything with a path separator,
	// relative to Dir when relative) or a name looked up on the PATH found in
	// Env (the system default when Env has none), not on the PATH of rye
	// itself, so that a runtime's env_config decides which python or node a
	// tool gets.
	Command string
	// Args are passed to the program as they are.
	Args []string
	// Dir is the working directory; the caller passes the project root by
	// default. Empty means rye's own working directory.
	Dir string
	// Env is the complete environment, KEY=VALUE: nothing is inherited
	// beyond it (nil is an empty environment, not rye's).
	Env []string
	// Timeout bounds the run; 0 means defaultSubprocessTimeout.
	Timeout time.Duration
	// Stdin is written to the program's standard input, which is then
	// closed. nil means an empty stdin (the null device): a tool never reads
	// rye's own stdin, so it can neither hang waiting on a terminal nor
	// swallow input meant for rye.
	Stdin []byte
	// Launcher, when set, starts the program through another one (the
	// confinement helper of package confine): it rewrites the command
	// once the program is found, and Started reports, once the process
	// runs, whether the program itself was executed. A launcher's failure
	// is a Go error: nothing of the tool ran.
	Launcher launcher
}

// launcher starts a program through another program.
type launcher interface {
	// Prepare rewrites cmd (Path resolved, Args, Env and Dir final)
	// before it starts.
	Prepare(cmd *exec.Cmd) error
	// Started returns once the program itself is executing, or an error
	// saying why it was not started.
	Started() error
	// Close releases what Prepare held; it is called in every case.
	Close()
}

// SubprocessResult is what happened to a run that could be attempted.
type SubprocessResult struct {
	Stdout, Stderr                   []byte
	StdoutTruncated, StderrTruncated bool // more than maxCapture bytes were written; the rest was discarded
	// ReturnCode is the exit status. 127 means the program could not be
	// started at all (not found, not executable, missing interpreter), with
	// Stderr saying why. A program killed by a signal has 128+signal, as
	// shells report it (137 for SIGKILL, 143 for SIGTERM), so that a timeout
	// kill and a crash (139 for SIGSEGV) both read as failures. -1 means the
	// program never ran because ctx was already done, or (outside Unix) the
	// status is unknown.
	ReturnCode  int
	Duration    time.Duration
	TimedOut    bool // the timeout passed and the process group was killed
	Interrupted bool // ctx was cancelled (Ctrl-C) and the process group was killed
}

// Success says whether the run succeeded: exit status 0 and not killed. A
// program that traps SIGTERM may exit 0 after a timeout, which still is a
// failure, so callers should use this rather than ReturnCode alone.
func (r *SubprocessResult) Success() bool {
	return r.ReturnCode == 0 && !r.TimedOut && !r.Interrupted
}

const (
	// defaultSubprocessTimeout is the timeout when none is configured.
	defaultSubprocessTimeout = 300 * time.Second
	// maxCapture is how much of each of stdout and stderr is kept (16 MiB),
	// and how much of an HTTP response body is read.
	maxCapture = 16 << 20
	// codeNotRun is the return code of a program that could not be started.
	codeNotRun = 127
)

// Tunables, variables so that tests can make them small.
var (
	// captureCap is the capture cap actually used (maxCapture outside tests).
	captureCap = maxCapture
	// killGrace is how long the process group has to exit after SIGTERM
	// before it gets SIGKILL. Short, because a timeout or Ctrl-C means the
	// user wants it gone, but long enough for a tool to remove its temporary
	// files.
	killGrace = 2 * time.Second
	// drainDelay is how long, once the process group is gone, rye keeps
	// reading stdout and stderr before closing them. Only a process that
	// left the group (setsid, a daemon) can still hold them open then, and
	// rye must not wait for it.
	drainDelay = 2 * time.Second
)

// RunSubprocess runs c.Command without a shell and waits for it.
//
// The run owns its process group. On Unix the program is started in a new
// process group; on timeout or ctx cancellation the whole group gets SIGTERM,
// then SIGKILL after a 2 s grace. And when the program exits by itself,
// whatever it left running in its group is killed with SIGKILL too: a tool is
// a function call, not a service manager, and a background child left
// behind would keep running unnoticed (and keep the output pipes open, which
// would make rye hang). A program that wants a daemon must detach it into a
// session of its own; rye then stops reading its output shortly after the
// group is gone (drainDelay), so even such a daemon cannot make RunSubprocess
// hang. Outside Unix there are no process groups: only the program itself is
// killed, on timeout or cancellation.
//
// A program that cannot be started (not found on the PATH of c.Env, not
// executable, a missing #! interpreter) is not a Go error but a result with
// ReturnCode 127 and a message on Stderr, exactly as a shell reports it,
// because to the user it is the tool failing, not rye. The Go error is kept
// for things that are rye's or the caller's problem: an empty Command, a
// working directory that does not exist or is not a directory (which would
// otherwise be indistinguishable from a missing program), or the system
// refusing to create pipes or processes.
//
// If ctx is done before the start, nothing is run and the result is
// Interrupted with ReturnCode -1.
func RunSubprocess(ctx context.Context, c subprocessConfig) (*SubprocessResult, error) {
	if c.Command == "" {
		return nil, errors.New("subprocess: the command is empty")
	}
	if c.Dir != "" {
		fi, err := os.Stat(c.Dir)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, fmt.Errorf("subprocess: the working directory %s does not exist", c.Dir)
		case err != nil:
			return nil, fmt.Errorf("subprocess: the working directory %s cannot be used: %w", c.Dir, err)
		case !fi.IsDir():
			return nil, fmt.Errorf("subprocess: the working directory %s is not a directory", c.Dir)
		}
	}
	start := time.Now()
	if ctx.Err() != nil {
		return &SubprocessResult{ReturnCode: -1, Interrupted: true}, nil
	}

	path, problem := resolveCommand(c.Command, c.Dir, c.Env)
	if problem != "" {
		return notRun(start, problem), nil
	}

	timeout := c.Timeout
	if timeout <= 0 {
		timeout = defaultSubprocessTimeout
	}
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	env := c.Env
	if env == nil {
		env = []string{} // exec.Cmd takes nil as "inherit rye's environment"
	}
	cmd := &exec.Cmd{
		Path:        path,
		Args:        append([]string{c.Command}, c.Args...),
		Dir:         c.Dir,
		Env:         env,
		SysProcAttr: subprocessSysProcAttr(),
	}

	// The pipes are ours rather than exec.Cmd's, so that cmd.Wait returns as
	// soon as the program exits (exec.Cmd's copying goroutines would make it
	// wait for the pipes to close) and the leftovers of its group can be
	// killed right then.
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("subprocess: cannot create a pipe: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeFiles(outR, outW)
		return nil, fmt.Errorf("subprocess: cannot create a pipe: %w", err)
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	if c.Launcher != nil {
		defer c.Launcher.Close()
		if err := c.Launcher.Prepare(cmd); err != nil {
			closeFiles(outR, outW, errR, errW)
			return nil, err
		}
	}
	var inR, inW *os.File
	if c.Stdin != nil {
		if inR, inW, err = os.Pipe(); err != nil {
			closeFiles(outR, outW, errR, errW)
			return nil, fmt.Errorf("subprocess: cannot create a pipe: %w", err)
		}
		cmd.Stdin = inR
	} // else nil: exec.Cmd opens the null device

	err = cmd.Start()
	closeFiles(outW, errW, inR) // the child has its own copies
	if err != nil {
		closeFiles(outR, errR, inW)
		if c.Launcher != nil {
			return nil, fmt.Errorf("subprocess: cannot start %s to run %s: %w", cmd.Path, c.Command, err)
		}
		if msg, ok := startProblem(c.Command, path, err); ok {
			return notRun(start, msg), nil
		}
		return nil, fmt.Errorf("subprocess: cannot start %s: %w", c.Command, err)
	}

	var wg sync.WaitGroup
	stdout, stderr := &outCapture{max: captureCap}, &outCapture{max: captureCap}
	wg.Add(2)
	go stdout.readFrom(outR, &wg)
	go stderr.readFrom(errR, &wg)
	if inW != nil {
		// A program that exits without reading its input makes the write
		// fail with EPIPE (Go ignores SIGPIPE on pipes it did not inherit),
		// which is fine: the program decides what it reads.
		go func() {
			_, _ = inW.Write(c.Stdin)
			_ = inW.Close()
		}()
	}

	// Kill the group when the timeout passes or ctx is cancelled.
	exited := make(chan struct{})
	var killedMu sync.Mutex
	var timedOut, interrupted bool
	var killTimer *time.Timer
	watchDone := make(chan struct{})
	go func() {
		defer close(watchDone)
		select {
		case <-exited:
			return
		case <-runCtx.Done():
		}
		killedMu.Lock()
		defer killedMu.Unlock()
		if ctx.Err() != nil {
			interrupted = true
		} else {
			timedOut = true
		}
		pid := cmd.Process.Pid
		terminateGroup(cmd.Process)
		killTimer = time.AfterFunc(killGrace, func() { killGroup(pid, cmd.Process) })
	}()

	var launchErr error
	if c.Launcher != nil {
		if launchErr = c.Launcher.Started(); launchErr != nil {
			// Nothing of the program ran: the launcher exits by itself,
			// and is collected below.
			killGroup(cmd.Process.Pid, cmd.Process)
		}
	}
	waitErr := cmd.Wait()
	close(exited)
	<-watchDone
	killedMu.Lock()
	if killTimer != nil {
		killTimer.Stop()
	}
	killedMu.Unlock()
	// The run owns its group: whatever the program left behind goes too.
	killGroup(cmd.Process.Pid, nil)

	// Collect the output; the group is gone, so only a process that left it
	// can keep the pipes open, and it does not get to make us wait.
	drained := make(chan struct{})
	go func() { wg.Wait(); close(drained) }()
	t := time.NewTimer(drainDelay)
	select {
	case <-drained:
		t.Stop()
	case <-t.C:
		closeFiles(outR, errR)
	}

	if launchErr != nil {
		return nil, launchErr
	}
	res := &SubprocessResult{TimedOut: timedOut, Interrupted: interrupted}
	res.Stdout, res.StdoutTruncated = stdout.result()
	res.Stderr, res.StderrTruncated = stderr.result()
	if cmd.ProcessState != nil {
		res.ReturnCode = exitCode(cmd.ProcessState)
	} else {
		// Wait failed without a process state: cannot happen after a
		// successful Start, but never report success for it.
		res.ReturnCode = -1
		res.Stderr = append(res.Stderr, fmt.Sprintf("\nrye: waiting for %s failed: %v\n", c.Command, waitErr)...)
	}
	res.Duration = time.Since(start)
	return res, nil
}

// notRun is the result for a program that could not be started.
func notRun(start time.Time, msg string) *SubprocessResult {
	return &SubprocessResult{
		Stderr:     []byte("rye: " + msg + "\n"),
		ReturnCode: codeNotRun,
		Duration:   time.Since(start),
	}
}

func closeFiles(files ...*os.File) {
	for _, f := range files {
		if f != nil {
			_ = f.Close()
		}
	}
}

// resolveCommand finds the file to execute, or says why there is none.
//
// A name without a path separator is looked up on the PATH of env, not on
// rye's: the environment was built for the tool (a runtime may have put a
// venv first), and that is the PATH the program itself will see. When env
// has no PATH the platform's default is used (see defaultPath), as execvp
// does. Empty and relative PATH entries are skipped, so that a name never
// resolves to a file of the working directory (a project could otherwise
// plant a "python" that a tool runs). A command with a separator is used as
// it is, relative to dir when relative.
func resolveCommand(command, dir string, env []string) (string, string) {
	if hasPathSeparator(command) {
		path := command
		if !filepath.IsAbs(path) {
			base := dir
			if base == "" {
				base, _ = os.Getwd()
			}
			path = filepath.Join(base, path)
		}
		for _, p := range executableCandidates(path, env) {
			fi, err := os.Stat(p)
			if err != nil {
				continue
			}
			if fi.IsDir() {
				return "", fmt.Sprintf("cannot execute %s: it is a directory", command)
			}
			if !isExecutable(p, fi) {
				return "", fmt.Sprintf("cannot execute %s: permission denied (not executable)", command)
			}
			return p, ""
		}
		return "", fmt.Sprintf("command not found: %s (no such file)", command)
	}
	pathVar, ok := envListLookup(env, "PATH")
	if !ok {
		pathVar = defaultPath()
	}
	for _, d := range filepath.SplitList(pathVar) {
		if d == "" || !filepath.IsAbs(d) {
			continue
		}
		for _, p := range executableCandidates(filepath.Join(d, command), env) {
			if fi, err := os.Stat(p); err == nil && !fi.IsDir() && isExecutable(p, fi) {
				return p, ""
			}
		}
	}
	if !ok {
		return "", fmt.Sprintf("command not found: %s (the environment has no PATH; searched %s)", command, pathVar)
	}
	return "", fmt.Sprintf("command not found: %s (searched the tool's PATH: %s)", command, pathVar)
}

// startProblem turns an error of cmd.Start that means "this program cannot
// run" into the message for a 127 result. Other errors (no more processes,
// no more file descriptors) are rye's problem and stay Go errors.
func startProblem(command, path string, err error) (string, bool) {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// The file was there a moment ago (resolveCommand saw it), so it
		// is its #! interpreter or loader that is missing, or it just went.
		if _, serr := os.Stat(path); serr == nil {
			return fmt.Sprintf("cannot execute %s: its interpreter (#! line) or loader was not found", command), true
		}
		return "command not found: " + command, true
	case errors.Is(err, fs.ErrPermission):
		return fmt.Sprintf("cannot execute %s: permission denied", command), true
	case isExecFormatError(err):
		return fmt.Sprintf("cannot execute %s: not a program this system can run (a script without a #! line?)", command), true
	}
	return "", false
}

// outCapture keeps the first max bytes read from a pipe and discards the rest,
// noting that it did. It keeps reading to the end, so the program never
// blocks on a full pipe because of the cap.
type outCapture struct {
	mu        sync.Mutex
	buf       bytes.Buffer
	max       int
	truncated bool
	closed    bool // result was taken: later reads are dropped
}

func (c *outCapture) readFrom(r io.Reader, wg *sync.WaitGroup) {
	defer wg.Done()
	b := make([]byte, 32<<10)
	for {
		n, err := r.Read(b)
		if n > 0 {
			c.mu.Lock()
			if !c.closed {
				room := c.max - c.buf.Len()
				if room >= n {
					c.buf.Write(b[:n])
				} else {
					c.buf.Write(b[:max(room, 0)])
					c.truncated = true
				}
			}
			c.mu.Unlock()
		}
		if err != nil {
			return
		}
	}
}

// result returns what was captured. The reader may still be blocked (on
// systems where closing a pipe does not interrupt a read), so it is told to
// drop whatever it reads from now on.
func (c *outCapture) result() ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	return bytes.Clone(c.buf.Bytes()), c.truncated
}

// envListLookup is the value of key in env, the last one winning as in exec.Cmd
// (names compared as the platform does).
func envListLookup(env []string, key string) (string, bool) {
	val, found := "", false
	for _, kv := range env {
		k, v, ok := strings.Cut(kv, "=")
		if ok && envKeyEqual(k, key) {
			val, found = v, true
		}
	}
	return val, found
}

// envListSet replaces key in env (every occurrence) or appends it.
func envListSet(env []string, key, val string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if k, _, ok := strings.Cut(kv, "="); ok && envKeyEqual(k, key) {
			continue
		}
		out = append(out, kv)
	}
	return append(out, key+"="+val)
}

// SubprocessConfigFrom decodes the rendered config of the subprocess
// primitive: command (required string), args (list; scalars as text, other
// values as JSON), cwd (string, relative to defaultDir; default defaultDir),
// env (map of scalars, set over baseEnv), timeout (seconds, default 300) and
// input_data (stdin: a string as it is, anything else as JSON). Values are
// the plain ones of the rendered config (string, int64, float64, bool, []any,
// map[string]any; int, []string and map[string]string are accepted too).
// Other keys are ignored: the merged config also carries keys meant for
// templates and for param_env, which the caller turns into baseEnv entries
// with ParamEnv.
//
// No ${VAR} or {name} is expanded here: rendering did that already, and a
// second expansion would let a parameter's value inject variables.
func SubprocessConfigFrom(cfg map[string]any, baseEnv []string, defaultDir string) (subprocessConfig, error) {
	c := subprocessConfig{Dir: defaultDir, Timeout: defaultSubprocessTimeout}

	switch v := cfg["command"].(type) {
	case nil:
		return c, errors.New("subprocess config: command is required (the program to run, a string)")
	case string:
		if strings.TrimSpace(v) == "" {
			return c, errors.New("subprocess config: command is empty (it must name the program to run)")
		}
		c.Command = v
	default:
		return c, fmt.Errorf("subprocess config: command must be a string (the program to run), not %s; arguments go in args", jsonvalue.Describe(v))
	}

	switch v := cfg["args"].(type) {
	case nil:
	case []string:
		c.Args = slices.Clone(v)
	case []any:
		c.Args = make([]string, len(v))
		for i, a := range v {
			c.Args[i] = jsonvalue.Text(a)
		}
	default:
		return c, fmt.Errorf("subprocess config: args must be a list, not %s", jsonvalue.Describe(v))
	}

	switch v := cfg["cwd"].(type) {
	case nil:
	case string:
		if v != "" {
			if filepath.IsAbs(v) || defaultDir == "" {
				c.Dir = v
			} else {
				c.Dir = filepath.Join(defaultDir, v)
			}
		}
	default:
		return c, fmt.Errorf("subprocess config: cwd must be a string (a directory), not %s", jsonvalue.Describe(v))
	}

	c.Env = slices.Clone(baseEnv)
	if c.Env == nil {
		c.Env = []string{}
	}
	switch v := cfg["env"].(type) {
	case nil:
	case map[string]string:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			if err := checkEnvVarName(k); err != nil {
				return c, err
			}
			c.Env = envListSet(c.Env, k, v[k])
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			if err := checkEnvVarName(k); err != nil {
				return c, err
			}
			val := v[k]
			if !jsonvalue.IsScalar(val) {
				return c, fmt.Errorf("subprocess config: env.%s must be a string, number or boolean, not %s", k, jsonvalue.Describe(val))
			}
			c.Env = envListSet(c.Env, k, jsonvalue.Text(val))
		}
	default:
		return c, fmt.Errorf("subprocess config: env must be a map of names to values, not %s", jsonvalue.Describe(v))
	}

	if v, ok := cfg["timeout"]; ok && v != nil {
		d, err := primSeconds(v)
		if err != nil {
			return c, fmt.Errorf("subprocess config: timeout %s", err)
		}
		c.Timeout = d
	}

	switch v := cfg["input_data"].(type) {
	case nil:
	case string:
		c.Stdin = []byte(v)
	default:
		b, err := jsonvalue.Marshal(v)
		if err != nil {
			return c, fmt.Errorf("subprocess config: input_data cannot be written as JSON: %v", err)
		}
		c.Stdin = b
	}
	return c, nil
}

func checkEnvVarName(k string) error {
	if k == "" || strings.ContainsAny(k, "=\x00") {
		return fmt.Errorf("subprocess config: env has an invalid variable name %q (it must be non-empty, without '=')", k)
	}
	return nil
}

// primSeconds decodes a timeout given in seconds: a positive number, at most a
// year (anything longer is a mistake, and would overflow time.Duration).
func primSeconds(v any) (time.Duration, error) {
	var f float64
	switch n := v.(type) {
	case int64:
		f = float64(n)
	case int:
		f = float64(n)
	case float64:
		f = n
	default:
		return 0, fmt.Errorf("must be a number of seconds, not %s", jsonvalue.Describe(v))
	}
	if math.IsNaN(f) || f <= 0 {
		return 0, fmt.Errorf("must be a positive number of seconds, not %s", jsonvalue.Text(v))
	}
	if f > 365*24*3600 {
		return 0, fmt.Errorf("of %s seconds is longer than a year", jsonvalue.Text(v))
	}
	return time.Duration(f * float64(time.Second)), nil
}

// ParamEnv implements param_env: every top-level parameter becomes the
// variable <prefix><NAME>, NAME upper-cased with every character other than
// A-Z, 0-9 and _ replaced by _ (so "dry-run" is RYE_PARAM_DRY_RUN), its value
// as text for scalars (strings as they are, numbers in plain decimal,
// true/false) and as JSON for lists, maps and null; plus RYE_PARAMS_JSON with
// the whole object, for a tool that wants the types. The result is sorted by
// parameter name so that runs are reproducible; when two names map to the
// same variable, the one sorted last wins (and only it is listed), and
// RYE_PARAMS_JSON always wins over a parameter that maps to it. A value JSON
// cannot encode (NaN) is written as null.
func ParamEnv(prefix string, params map[string]any) []string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(params)) {
		key := paramEnvName(prefix + strings.ToUpper(name))
		var val string
		if v := params[name]; jsonvalue.IsScalar(v) {
			val = jsonvalue.Text(v)
		} else {
			b, err := jsonvalue.Marshal(v)
			if err != nil {
				b = []byte("null")
			}
			val = string(b)
		}
		out = envListSet(out, key, val)
	}
	all := any(params)
	if params == nil {
		all = map[string]any{}
	}
	b, err := jsonvalue.Marshal(all)
	if err != nil {
		b = []byte("null")
	}
	return envListSet(out, "RYE_PARAMS_JSON", string(b))
}

// paramEnvName makes s a portable variable name: A-Z, a-z, 0-9 and _, not
// starting with a digit (a shell could not read it otherwise).
func paramEnvName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			b[i] = '_'
		}
	}
	if len(b) == 0 || b[0] >= '0' && b[0] <= '9' {
		return "_" + string(b)
	}
	return string(b)
}
