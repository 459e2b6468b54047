package executor

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/ryekit/rye/chain"
	"github.com/ryekit/rye/confine"
	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/item/syntax"
	"github.com/ryekit/rye/lockfile"
	"github.com/ryekit/rye/params"
	"github.com/ryekit/rye/space"
	"github.com/ryekit/rye/verify"
)

// Executor runs tools (spec 3.4): build the chain, read and verify every
// element once, validate, check the lockfile, prepare the parameters, then
// resolve the environment and templates and run the primitive on the
// verified bytes. There is no way to skip verification.
type Executor struct {
	Spaces *space.Spaces
	Trust  *verify.TrustStore
	Policy verify.Policy
	// ProjectPath is {project_path} and the default working directory: the
	// project root, or the working directory when there is no project.
	ProjectPath string
	// Environ is the process environment the run starts from, less
	// SecretVars, which no run ever sees.
	Environ []string
	// LookPath finds interpreters on PATH (system_binary).
	LookPath func(string) (string, error)
	// Exists reports whether an interpreter file exists.
	Exists func(string) bool
	// ProjectInterpreters and Tracked decide whether an interpreter may
	// come from the project (envOptions).
	ProjectInterpreters bool
	Tracked             func(path string) (bool, error)
	WorkTree            func() error
	// HTTPClient is used by the http_client primitive (nil: a default).
	HTTPClient *http.Client
	// TempDir is where run directories are made ("": the system's).
	TempDir string
	// Now stamps lockfiles.
	Now func() time.Time

	// RequireSandbox refuses a tool that declares no sandbox block (the
	// user's own execute.require_sandbox; never the project's).
	RequireSandbox bool
	// Kernel says what the system can enforce (nil: confine.Probe).
	// Tests give a lower Landlock ABI here.
	Kernel func() confine.Kernel
	// Helper finds the confinement helper (nil: confine.FindHelper:
	// rye-confine beside rye, else rye itself).
	Helper func() (confine.Helper, error)
	// Home is {home}, and a folder an interpreter's installation may not
	// hold when rye grants it to a confined tool ("": the user's home).
	Home string

	// beforeStart, when set (tests), runs after verification and
	// materialisation and just before the primitive starts.
	beforeStart func(*plan)
}

// Link is one chain element as the result reports it (spec 3.8).
type Link struct {
	ItemID     string  `json:"item_id"`
	Space      string  `json:"space"`
	ToolType   string  `json:"tool_type,omitempty"`
	ExecutorID *string `json:"executor_id"`
	Integrity  string  `json:"integrity,omitempty"` // empty for an element that did not verify
	Verdict    string  `json:"verdict"`
	Path       string  `json:"path"`
	// Warnings are the element's verification warnings (a legacy
	// signature format and what it leaves uncovered, a key about to
	// expire).
	Warnings []string `json:"warnings,omitempty"`
}

// plan is a tool ready to run: its chain verified and validated, its
// lockfile checked, its parameters prepared.
type plan struct {
	Chain    *chain.Chain
	Links    []Link
	Params   map[string]any
	Lockfile *lockfile.Found // nil when the tool has none
	// Confinement is what the run will be confined to ("none" without a
	// sandbox block), with the verdict; set once the chain is valid.
	Confinement *confine.Report
	integrity   []string
	files       *runFiles
	confine     *confinement // nil: the tool runs unconfined
	early       *earlyRuleset
}

// prepareOptions vary Prepare.
type prepareOptions struct {
	// ForLock prepares for rye lock: the existing lockfile (which is being
	// replaced) and the parameters are not checked.
	ForLock bool
	// Params builds the parameters from the tool's schema once the tool has
	// verified (the command line's flags are typed by it); nil means none.
	// Its errors are returned as they are.
	Params func(schema *syntax.Node) (map[string]any, error)
}

// chainInvalidError is a chain that was built and verified but does not
// hold together (spec 3.3).
type chainInvalidError struct {
	Problems []chain.Problem
}

func (e *chainInvalidError) Error() string {
	msgs := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		msgs[i] = p.String()
	}
	return "the chain is not valid: " + strings.Join(msgs, "; ")
}

// Prepare does steps 1–5 of spec 3.4 for tool id, with the parameters that
// o.Params builds (before defaults). Errors: *chain.Error (the chain cannot be built),
// *VerifyError (an element, dependency or library file is not verified),
// *chainInvalidError, *lockfile.MismatchError, *params.Error (bad parameters), or
// a plain error for unreadable files. The partial chain read so far is
// returned with the error when there is one, for the report.
func (x *Executor) Prepare(id item.ID, o prepareOptions) (*plan, error) {
	v := &verifier{trust: x.Trust, policy: x.Policy}
	files := map[*space.Located]*verifiedFile{}
	var early *earlyRuleset
	c, err := chain.Build(x.Spaces, id, func(loc *space.Located) (*item.Item, error) {
		role := "executor"
		if len(files) == 0 {
			role = "tool"
		}
		f, err := v.load(loc, role)
		if err != nil {
			return nil, err
		}
		if role == "tool" && !o.ForLock {
			early = x.startRuleset(f.Item) // while the rest of the chain verifies
		}
		files[loc] = f
		return f.Item, nil
	}, nil)
	p := &plan{Chain: c, early: early}
	if c != nil {
		for _, el := range c.Elements {
			f := files[el.Loc]
			p.integrity = append(p.integrity, f.Integrity)
			p.Links = append(p.Links, linkOf(el, f))
		}
	}
	if err != nil {
		return p, p.refuse(err)
	}
	if probs := chain.Validate(c, chain.Options{}); len(probs) > 0 {
		return p, &chainInvalidError{Problems: probs}
	}
	if p.files, err = collectFiles(v, x.Spaces, c); err != nil {
		return p, p.refuse(err)
	}
	if o.ForLock {
		return p, nil
	}
	if err := x.planConfinement(p); err != nil {
		return p, err
	}
	if p.Lockfile, err = lockfile.Find(x.Spaces, c.Tool().ID(), c.Tool().Version()); err != nil {
		return p, err
	}
	if p.Lockfile != nil {
		if err := p.Lockfile.Check(c, p.integrity); err != nil {
			return p, err
		}
	}
	var given map[string]any
	if o.Params != nil {
		// The caller's parameters are read against the verified schema.
		if given, err = o.Params(c.Tool().Meta.Schema()); err != nil {
			return p, err
		}
	}
	p.Params, err = params.Prepare(c.Tool().Meta.Schema(), given)
	return p, err
}

// refuse returns err; when it is a file that did not verify (an element,
// a dependency or a library file), the report's chain ends with that file
// and its verdict.
func (p *plan) refuse(err error) error {
	var ve *VerifyError
	if errors.As(err, &ve) {
		r := ve.Result
		p.Links = append(p.Links, Link{ItemID: string(r.ID), Space: r.Space, Verdict: string(r.Verdict), Path: r.Path})
		return ve
	}
	return err
}

func linkOf(el *chain.Element, f *verifiedFile) Link {
	l := Link{ItemID: string(el.ID()), Space: string(el.Space()), ToolType: el.ToolType(), Integrity: f.Integrity, Verdict: string(f.Result.Verdict), Path: el.Loc.Path(), Warnings: f.Result.Warnings}
	if x := el.Executor(); x != "" {
		l.ExecutorID = &x
	}
	return l
}

// Lock writes the plan's chain as the tool's lockfile in the project
// space, replacing any there, and returns its path.
func (x *Executor) Lock(p *plan) (string, error) {
	return lockfile.Write(x.Spaces.Project, lockfile.New(p.Chain, p.integrity, x.now()))
}

// LockTool prepares tool id for its lockfile (every element verified, the
// old lockfile not consulted) and writes it (rye lock tool ID). The plan
// is returned also when preparing fails: its Links are the chain read so
// far.
func (x *Executor) LockTool(id item.ID) (string, *plan, error) {
	p, err := x.Prepare(id, prepareOptions{ForLock: true})
	if err != nil {
		return "", p, err
	}
	path, err := x.Lock(p)
	return path, p, err
}

// help is what rye execute tool ID --help shows: the tool's metadata,
// read without running anything, and its verdict (the help of a tool that
// does not verify is labelled, not refused).
type help struct {
	Item         *item.Item
	Metadata     *item.Metadata
	Verification verify.Result
}

// Help reads the tool at loc for its help; its verdict is given under the
// executor's trust (a zero Executor gives none: the schema alone, for
// completion).
func (x *Executor) Help(loc *space.Located) (*help, error) {
	it, err := loc.Load()
	if err != nil {
		return nil, err
	}
	md, err := it.Metadata()
	if err != nil {
		return nil, fmt.Errorf("%s: %v", it.Path, err)
	}
	h := &help{Item: it, Metadata: md}
	if x.Trust != nil {
		h.Verification = verify.Check(verify.Input{Kind: it.Kind, ID: it.ID, Space: loc.Space.Label, Path: it.Path, Embedded: loc.Space.Embedded(), Data: it.Bytes}, x.Trust, x.Policy)
	}
	return h, nil
}

func (x *Executor) now() time.Time {
	if x.Now != nil {
		return x.Now()
	}
	return time.Now()
}
