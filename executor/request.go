package executor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/ryekit/rye/chain"
	"github.com/ryekit/rye/config"
	"github.com/ryekit/rye/internal/cachedir"
	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/item/syntax"
	"github.com/ryekit/rye/params"
	"github.com/ryekit/rye/space"
	"github.com/ryekit/rye/verify"
)

// New assembles the Executor that rye's verbs and its MCP server run: the
// spaces, the trust store and policy every element is verified against,
// the settings (only the user's own configuration lets a project choose
// its interpreter, and never one that git tracks), and the process's own
// side effects (its environment, PATH look-ups). Run folders go in the
// user's cache (internal/cachedir), never in a shared /tmp; when there is
// no user cache folder they go in the system's temporary folder and
// noCache says why, for the caller to tell the user. workDir is
// {project_path} when there is no project; nil settings allow no project
// interpreter.
func New(ss *space.Spaces, ts *verify.TrustStore, p verify.Policy, s *config.Settings, workDir string) (x *Executor, noCache error, err error) {
	project := workDir
	if ss.Project != nil {
		project = ss.Project.Root
	}
	x = &Executor{
		Spaces:              ss,
		Trust:               ts,
		Policy:              p,
		ProjectPath:         project,
		Environ:             withoutSecrets(os.Environ()),
		LookPath:            exec.LookPath,
		Exists:              func(p string) bool { _, err := os.Stat(p); return err == nil },
		ProjectInterpreters: s != nil && s.ProjectInterpreters(),
		RequireSandbox:      s != nil && s.RequireSandbox(),
		Tracked:             verify.Tracker(project),
		WorkTree: sync.OnceValue(func() error {
			_, _, err := verify.OpenRepo(project)
			return err
		}),
	}
	cache, noCache := cachedir.Dir()
	if noCache != nil {
		return x, noCache, nil
	}
	if x.TempDir, err = runRoot(filepath.Join(cache, "run")); err != nil {
		return nil, nil, fmt.Errorf("run directory: %v", err)
	}
	return x, nil, nil
}

// Request is one call of execute: the command line's rye execute and rye
// thread and the MCP server's execute tool build one, and Execute is the
// one pipeline they all run.
type Request struct {
	Kind item.Kind
	ID   item.ID
	// Params are the tool's parameters, or the directive's inputs, as JSON
	// values (the MCP server's "parameters"). They are checked against the
	// verified schema or declarations, never before.
	Params map[string]any
	// ToolParams, when set, builds a tool's parameters from its verified
	// schema instead of Params: the command line types its flags by it.
	ToolParams func(schema *syntax.Node) (map[string]any, error)
	// Inputs, when set, builds a directive's inputs from its verified
	// metadata instead of Params.
	Inputs func(md *item.Metadata) (map[string]any, error)
	// DryRun verifies and validates, and runs nothing.
	DryRun bool
	// Timeout, when set, replaces the configured timeout of the run.
	//
	// For a tool, DryRun and Timeout are read after ToolParams has run: the
	// command line finds its --dry-run and --timeout among the tool's flags.
	Timeout time.Duration
}

// Execute runs one request (spec 3.4 and 3.8). A tool is prepared
// (every element verified, the chain validated, the lockfile checked, the
// parameters validated) and run, or with DryRun only prepared; a directive
// or knowledge entry is verified, parsed and returned.
//
// The result is never nil. When the item did not get as far as running,
// err is the reason, typed as Prepare and ExecuteItem type it, and the
// result is the failure to report: the partial chain, and for parameters
// or inputs that the item does not take, the declared ones
// (DeclaredInputs). A tool that ran and failed is a result with status
// "error" and a nil err. ctx ends a running tool: its process group is
// killed.
func (x *Executor) Execute(ctx context.Context, req *Request) (*Result, error) {
	started := time.Now()
	if req.Kind != item.Tool {
		inputs := req.Inputs
		if inputs == nil && req.Params != nil {
			inputs = func(*item.Metadata) (map[string]any, error) { return req.Params, nil }
		}
		r, err := x.ExecuteItem(req.Kind, req.ID, inputs, req.DryRun)
		if err != nil {
			r = failure(string(req.Kind), string(req.ID), nil, err, started)
			var ie *InputError
			if errors.As(err, &ie) {
				r.DeclaredInputs = ie.Declared
			}
			var ue *uncoveredError
			if errors.As(err, &ue) {
				r.Verification = &ue.Result
			}
			return r, err
		}
		return r, nil
	}
	given := req.ToolParams
	if given == nil {
		given = func(*syntax.Node) (map[string]any, error) { return req.Params, nil }
	}
	p, err := x.Prepare(req.ID, prepareOptions{Params: given})
	if err != nil {
		defer p.release()
	}
	var ce *chain.Error
	var nf *space.NotFoundError
	if errors.As(err, &ce) && len(ce.Path) == 0 && errors.As(err, &nf) {
		err = nf // the tool itself is nowhere: resolution's own error
	}
	if err != nil {
		r := failure("tool", string(req.ID), p, err, started)
		var pe *params.Error
		if errors.As(err, &pe) && p.Chain != nil {
			r.DeclaredInputs = declaredParams(p.Chain.Tool().Meta.Schema())
		}
		return r, err
	}
	defer p.release()
	if req.DryRun {
		return p.DryRun(started), nil
	}
	return x.Run(ctx, p, runOptions{Timeout: req.Timeout}), nil
}

// DeclaredInput is one input a directive declares, or one parameter a
// tool's schema declares: what a caller whose inputs were refused needs
// to call again (the reference's declared_inputs).
type DeclaredInput struct {
	Name        string `json:"name"`
	Type        string `json:"type,omitempty"`
	Required    bool   `json:"required"`
	Default     any    `json:"default,omitempty"`
	Description string `json:"description,omitempty"`
}

// declaredInputs lists a directive's declared inputs, in their order.
func declaredInputs(md *item.Metadata) []DeclaredInput {
	out := []DeclaredInput{}
	for _, in := range md.Get("inputs").ListItems() {
		d := DeclaredInput{Name: in.Get("name").String(), Type: in.Get("type").String(), Required: in.Get("required").IsTrue(), Description: in.Get("description").String()}
		if def := in.Get("default"); def != nil {
			d.Default = def.Plain()
		}
		out = append(out, d)
	}
	return out
}

// declaredParams lists the top-level properties of a tool's parameter
// schema, in the schema's order.
func declaredParams(schema *syntax.Node) []DeclaredInput {
	out := []DeclaredInput{}
	required := map[string]bool{}
	for _, r := range schema.Get("required").ListItems() {
		required[r.String()] = true
	}
	for _, f := range schema.Get("properties").EffectiveFields() {
		p := f.Value
		d := DeclaredInput{Name: f.Key, Type: typeText(p.Get("type")), Required: required[f.Key], Description: p.Get("description").String()}
		if def := p.Get("default"); def != nil {
			d.Default = def.Plain()
		}
		out = append(out, d)
	}
	return out
}

// typeText is a schema's "type": one name, or several joined by "|".
func typeText(n *syntax.Node) string {
	if items := n.ListItems(); items != nil {
		names := make([]string, len(items))
		for i, it := range items {
			names[i] = it.String()
		}
		return strings.Join(names, "|")
	}
	return n.String()
}
