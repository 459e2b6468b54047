package executor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ryekit/rye/chain"
	"github.com/ryekit/rye/confine"
	"github.com/ryekit/rye/executor/prim"
	"github.com/ryekit/rye/internal/jsonvalue"
	"github.com/ryekit/rye/verify"
)

// Result is what rye execute prints (spec 3.8): one JSON object.
type Result struct {
	Status string `json:"status"` // "success" or "error"
	Type   string `json:"type"`   // "tool", "directive", "knowledge"
	ItemID string `json:"item_id"`
	DryRun bool   `json:"dry_run,omitempty"`
	Data   any    `json:"data,omitempty"`
	Error  string `json:"error,omitempty"`
	Chain  []Link `json:"chain,omitempty"`
	// DeclaredInputs are what the item takes, when it refused the
	// parameters or inputs it was given (set by Execute).
	DeclaredInputs []DeclaredInput `json:"declared_inputs,omitempty"`
	// Verification is a directive's or knowledge entry's verdict, with its
	// warnings (a legacy format, a key about to expire); a tool's are in
	// its chain.
	Verification *verify.Result `json:"verification,omitempty"`
	// Confinement says what a tool's run was confined to: "none" for a
	// tool without a sandbox block, else the Landlock ABI, the
	// filesystem grants, the network, subprocesses and the verdict
	// (enforced, enforceable in a dry run, unenforceable when refused).
	Confinement *confine.Report `json:"confinement,omitempty"`
	Metadata    resultMeta      `json:"metadata"`
	// Ran is true when the primitive was started: Error is then about the
	// run, not about the item.
	Ran bool `json:"-"`
}

// resultMeta is the result's metadata.
type resultMeta struct {
	DurationMS      int64  `json:"duration_ms"`
	LockfileUsed    bool   `json:"lockfile_used"`
	LockfileCreated bool   `json:"lockfile_created"`
	Lockfile        string `json:"lockfile,omitempty"` // the lockfile used or created
	// LockfileError says why a lockfile could not be written after a
	// successful run (the run still succeeded).
	LockfileError string `json:"lockfile_error,omitempty"`
}

// Succeeded reports whether the status is success.
func (r *Result) Succeeded() bool { return r.Status == "success" }

// failure is the result of a tool that did not run because Prepare failed,
// or of an item that did not verify or validate.
func failure(kind, id string, p *plan, err error, started time.Time) *Result {
	r := &Result{Status: "error", Type: kind, ItemID: id, Error: err.Error(), Metadata: resultMeta{DurationMS: time.Since(started).Milliseconds()}}
	if p != nil {
		r.Chain = p.Links
		r.Confinement = p.Confinement
	}
	return r
}

// DryRun is the result of --dry-run: the chain verified and validated,
// the lockfile checked, the parameters prepared; nothing ran.
func (p *plan) DryRun(started time.Time) *Result {
	r := &Result{Status: "success", Type: "tool", ItemID: string(p.Chain.Tool().ID()), DryRun: true,
		Data: map[string]any{"params": p.Params}, Chain: p.Links, Confinement: p.Confinement,
		Metadata: resultMeta{DurationMS: time.Since(started).Milliseconds(), LockfileUsed: p.Lockfile != nil}}
	if p.Lockfile != nil {
		r.Metadata.Lockfile = p.Lockfile.Path
	}
	return r
}

// runOptions vary one run.
type runOptions struct {
	// Timeout, when set (rye execute --timeout), replaces the configured
	// timeout of the subprocess or of each HTTP attempt.
	Timeout time.Duration
}

// Run does steps 6–8 of spec 3.4 for a prepared plan: the environment,
// the templates, the primitive on the verified bytes, the result, and the
// lockfile when the tool had none and the run succeeded.
func (x *Executor) Run(ctx context.Context, p *plan, o runOptions) *Result {
	defer p.release()
	started := time.Now()
	tool := p.Chain.Tool()
	r := &Result{Type: "tool", ItemID: string(tool.ID()), Chain: p.Links, Ran: true, Confinement: p.Confinement}
	r.Metadata.LockfileUsed = p.Lockfile != nil
	if p.Lockfile != nil {
		r.Metadata.Lockfile = p.Lockfile.Path
	}
	data, err := x.run(ctx, p, o, r)
	r.Data = data
	if err != nil {
		r.Status, r.Error = "error", err.Error()
	} else {
		r.Status = "success"
		if p.Lockfile == nil && x.Spaces.Project != nil {
			path, err := x.Lock(p)
			if err != nil {
				r.Metadata.LockfileError = err.Error()
			} else {
				r.Metadata.LockfileCreated, r.Metadata.Lockfile = true, path
			}
		}
	}
	r.Metadata.DurationMS = time.Since(started).Milliseconds()
	return r
}

func (x *Executor) run(ctx context.Context, p *plan, o runOptions, r *Result) (any, error) {
	rd, err := newRunDir(x.TempDir)
	if err != nil {
		return nil, fmt.Errorf("cannot make the run directory: %v", err)
	}
	defer rd.remove()
	m, err := rd.materialise(p.Chain.Tool(), p.files)
	if err != nil {
		return nil, fmt.Errorf("cannot write the verified files for the run: %v", err)
	}
	// {run_dir}: an empty folder of this run, the place a confined tool
	// declares writable for its scratch files; removed with the run.
	runDir := filepath.Join(rd.root, "work")
	if err := os.Mkdir(runDir, 0o700); err != nil {
		return nil, fmt.Errorf("cannot make the run directory: %v", err)
	}
	paramsJSON, err := json.Marshal(p.Params)
	if err != nil {
		return nil, fmt.Errorf("parameters: %v", err)
	}
	vars := map[string]any{
		"tool_path":    m.toolPath,
		"tool_dir":     m.toolDir,
		"tool_parent":  m.toolParent,
		"anchor_path":  m.anchorPath,
		"project_path": x.ProjectPath,
		"user_space":   "",
		"system_space": "",
		"params_json":  string(paramsJSON),
		"run_dir":      runDir,
	}
	if m.runtimeLib != "" {
		vars["runtime_lib"] = m.runtimeLib
	}
	if x.Spaces.User != nil {
		vars["user_space"] = x.Spaces.User.Root
	}
	for _, sp := range x.Spaces.System {
		if !sp.Embedded() {
			vars["system_space"] = sp.Root
			break
		}
	}
	eo := envOptions{ProjectPath: x.ProjectPath, LookPath: x.LookPath, Exists: x.Exists, ProjectInterpreters: x.ProjectInterpreters, Tracked: x.Tracked, WorkTree: x.WorkTree}
	callerEnv := withoutSecrets(x.Environ) // whoever built x: no secret reaches a tool
	base := newEnv(callerEnv)
	base.Set("RYE_RUN_DIR", runDir)
	env, err := resolveEnv(p.Chain, base, eo)
	if err != nil {
		return nil, err
	}
	// Looked for (and its git status read) only for a chain that names
	// it: a tracked node_modules must not stop a shell tool.
	if chain.UsesPlaceholder(p.Chain, "node_modules") {
		if vars["node_modules"], err = projectNodeModules(eo); err != nil {
			return nil, err
		}
	} else {
		vars["node_modules"] = ""
	}
	// An applied anchor (spec 6.6) edits path lists after the chain's
	// environment, before templates (which may read them through ${VAR}),
	// and may set the working directory.
	cwd := ""
	if a := p.files.anchor; a != nil {
		ctx := anchorContext(vars)
		if err := applyAnchorEnv(a, env, ctx, rd); err != nil {
			return nil, err
		}
		if a.Cwd != "" {
			if cwd, err = anchorCwd(a, ctx, rd, x.ProjectPath); err != nil {
				return nil, err
			}
		}
	}
	cfg, err := render(chain.MergedConfig(p.Chain), env, vars, p.Params)
	if err != nil {
		return nil, err
	}
	if cwd != "" && p.Chain.Root().ID() == "rye/core/primitives/subprocess" {
		cfg["cwd"] = cwd
	}
	switch root := p.Chain.Root().ID(); root {
	case "rye/core/primitives/subprocess":
		userSpace, _ := vars["user_space"].(string)
		l, rep, err := x.launcher(p, rd, m, runDir, userSpace)
		if err != nil {
			return nil, err
		}
		r.Confinement = rep
		nodeModules, _ := vars["node_modules"].(string)
		check := func(final []string) ([]string, error) {
			caller := newEnv(callerEnv)
			final = dropEmptyLoadPathEntries(final, caller)
			return final, checkLoadPaths(final, caller, rd, nodeModules)
		}
		data, err := x.runSubprocess(ctx, p, cfg, env, check, o, l)
		if err != nil {
			// Before the run folder goes: a file the tool looked for there
			// in vain is named, with why it was not given to the run.
			if why := rd.explainMissing(p.Chain.Tool(), p.files, data); why != "" {
				err = errors.New(why)
			}
		}
		return data, err
	case "rye/core/primitives/http_client":
		return x.runHTTP(ctx, p, cfg, o)
	default:
		return nil, fmt.Errorf("unknown primitive %s", root) // Validate stops this earlier
	}
}

// runSubprocess runs the subprocess primitive; check sees its complete
// environment first (checkLoadPaths).
func (x *Executor) runSubprocess(ctx context.Context, p *plan, cfg map[string]any, env *env, check func([]string) ([]string, error), o runOptions, l *confine.Launcher) (any, error) {
	if prefix, ok := cfg["param_env"].(string); ok && prefix != "" {
		for _, kv := range prim.ParamEnv(prefix, p.Params) {
			k, v, _ := strings.Cut(kv, "=")
			env.Set(k, v)
		}
	}
	sc, err := prim.SubprocessConfigFrom(cfg, env.Environ(), x.ProjectPath)
	if err != nil {
		return nil, err
	}
	if sc.Env, err = check(sc.Env); err != nil {
		return nil, err
	}
	if o.Timeout > 0 {
		sc.Timeout = o.Timeout
	}
	if l != nil {
		sc.Launcher = l
	}
	if x.beforeStart != nil {
		x.beforeStart(p)
	}
	res, err := prim.RunSubprocess(ctx, sc)
	if err != nil {
		return nil, err
	}
	return shapeSubprocess(res, sc.Timeout)
}

// shapeSubprocess turns a finished process into the result's data (spec
// 3.8): when the program printed a JSON object or array on stdout, that is
// the data, and an object with "success": false fails the run; otherwise
// the data is {stdout, stderr, return_code}. A non-zero exit, a timeout or
// an interruption fail the run whatever was printed. Only objects and
// arrays count as JSON output: a tool that prints "42" or "true" printed
// text.
func shapeSubprocess(res *prim.SubprocessResult, timeout time.Duration) (any, error) {
	var data any
	if out := bytes.TrimSpace(res.Stdout); len(out) > 0 && (out[0] == '{' || out[0] == '[') && !res.StdoutTruncated {
		if v, err := jsonvalue.Decode(out); err == nil {
			data = v
		}
	}
	if data == nil {
		raw := map[string]any{"stdout": string(res.Stdout), "stderr": string(res.Stderr), "return_code": res.ReturnCode}
		if res.StdoutTruncated {
			raw["stdout_truncated"] = true
		}
		if res.StderrTruncated {
			raw["stderr_truncated"] = true
		}
		data = raw
	}
	switch {
	case res.TimedOut:
		return data, fmt.Errorf("timed out after %s; the process group was killed", timeout)
	case res.Interrupted:
		return data, errors.New("interrupted; the process group was killed")
	case res.ReturnCode != 0:
		return data, fmt.Errorf("exited with status %d%s", res.ReturnCode, lastLine(res.Stderr))
	}
	if obj, ok := data.(map[string]any); ok && obj["success"] == false {
		if msg, ok := obj["error"].(string); ok && msg != "" {
			return data, errors.New(msg)
		}
		return data, errors.New(`the tool reported "success": false`)
	}
	return data, nil
}

// lastLine is ": <the last non-empty line of stderr>", for error messages.
func lastLine(stderr []byte) string {
	lines := strings.Split(strings.TrimSpace(string(stderr)), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	if last == "" {
		return ""
	}
	if len(last) > 200 {
		last = last[:200] + "…"
	}
	return ": " + last
}

func (x *Executor) runHTTP(ctx context.Context, p *plan, cfg map[string]any, o runOptions) (any, error) {
	hc, err := prim.HTTPConfigFrom(cfg)
	if err != nil {
		return nil, err
	}
	if o.Timeout > 0 {
		hc.Timeout = o.Timeout
	}
	if x.beforeStart != nil {
		x.beforeStart(p)
	}
	res, err := prim.RunHTTP(ctx, hc, x.HTTPClient)
	if res == nil {
		return nil, err
	}
	data := map[string]any{"status_code": res.StatusCode, "body": res.Body, "headers": res.Headers, "success": res.Success}
	switch {
	case err != nil:
		return data, err
	case !res.Success:
		return data, fmt.Errorf("HTTP status %d", res.StatusCode)
	}
	return data, nil
}
