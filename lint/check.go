package lint

import (
	"errors"

	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/space"
	"github.com/ryekit/rye/verify"
)

// CheckRequest is one run of rye check: the verify pipeline, then the
// analyzers over the very bytes it verified.
type CheckRequest struct {
	Verify  verify.Request
	Options Options
}

// CheckResult is a finished check: the verification and the lint run,
// each with its own findings.
type CheckResult struct {
	Verify *verify.Results
	Lint   *Result
}

// Check verifies what req selects and lints the same bytes. Verification
// findings come from the verification run, whatever the lint options say:
// disabling or softening the signature analyzer must never let an
// unverified item pass rye check. The analyzer still looks for misplaced
// signature lines (it verifies nothing without Env.Verify).
func Check(req CheckRequest) (*CheckResult, error) {
	if err := req.Options.validate(); err != nil {
		return nil, err
	}
	vreq := req.Verify
	vreq.KeepBytes = true // lint reads the very bytes that were verified
	vres, err := verify.Run(vreq)
	if err != nil {
		return nil, err
	}
	ss := req.Verify.Spaces
	extractors, err := ss.Extractors()
	if err != nil {
		return nil, err
	}
	env := &Env{Spaces: ss, Files: filesOf(vres.Sources), Extractors: extractors}
	r := req.Verify
	whole := len(r.Patterns) == 0 && (r.Kinds == nil || len(r.Kinds) == len(item.Kinds)) &&
		!r.Staged && r.ChangedSince == "" && (r.Tier == "" || r.Tier == string(space.Project))
	if whole && ss.Project != nil {
		// A whole-project check also looks at what is not an item (the
		// items themselves were read once, for verification).
		odd, others, err := LoadExtras(ss.Project, item.Kinds)
		if err != nil {
			return nil, err
		}
		for _, f := range odd {
			if !f.Oddity.Symlink {
				env.Files = append(env.Files, f)
			}
		}
		env.Others = others
	}
	lres, err := Lint(env, req.Options)
	if err != nil {
		return nil, err
	}
	return &CheckResult{Verify: vres, Lint: lres}, nil
}

// filesOf turns verification sources into lint files: rye check lints
// exactly what it verified, the same bytes.
func filesOf(sources []verify.Source) []*File {
	var out []*File
	for _, s := range sources {
		if s.In == nil {
			continue
		}
		f := &File{Name: s.Path, Space: s.In, Rel: s.Rel, Kind: s.Kind, ID: s.ID}
		f.Src, f.ReadErr = s.Read()
		if errors.Is(f.ReadErr, space.ErrSymlink) {
			f.Oddity = &space.Oddity{Space: s.In, Kind: s.Kind, Rel: s.Rel, Symlink: true, ID: s.ID, Reason: "symbolic link"}
		}
		out = append(out, f)
	}
	return out
}
