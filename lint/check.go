package lint

import (
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
	vreq.Sums = true // lint reads each item again, and refuses other bytes than those verified
	vres, err := verify.Run(vreq)
	if err != nil {
		return nil, err
	}
	ss := req.Verify.Spaces
	extractors, err := ss.Extractors()
	if err != nil {
		return nil, err
	}
	env := &Env{Spaces: ss, Files: filesOf(vres.Sources, vres.Sums), Extractors: extractors}
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
// exactly what it verified. Each file is read again when lint gets to its
// chunk, and bytes whose SHA-256 is not the verified bytes' are refused
// (the file changed in between): lint never reports on other bytes than
// those the verdict is about, and a whole tree is never held in memory.
func filesOf(sources []verify.Source, sums [][32]byte) []*File {
	var out []*File
	for i, s := range sources {
		if s.In == nil {
			continue
		}
		f := &File{Name: s.Path, Space: s.In, Rel: s.Rel, Kind: s.Kind, ID: s.ID, read: s.Read}
		if s.Symlink {
			f.Oddity = &space.Oddity{Space: s.In, Kind: s.Kind, Rel: s.Rel, Symlink: true, ID: s.ID, Reason: "symbolic link"}
			f.read = nil
		} else if i < len(sums) && sums[i] != [32]byte{} {
			f.want = &sums[i]
		}
		out = append(out, f)
	}
	return out
}
