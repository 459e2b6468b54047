package lint

import (
	"path"
	"strings"

	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/report"
	"github.com/ryekit/rye/space"
	"github.com/ryekit/rye/verify"
)

// CheckRequest is one run of rye check: the verify pipeline, then the
// analyzers over the very bytes it verified.
type CheckRequest struct {
	Verify  verify.Request
	Options options
}

// checkResult is a finished check: the verification and the lint run,
// each with its own findings.
type checkResult struct {
	Verify *verify.Results
	Lint   *Result
}

// Check verifies what req selects and lints the same bytes. Verification
// findings come from the verification run, whatever the lint options say:
// disabling or softening the signature analyzer must never let an
// unverified item pass rye check. The analyzer still looks for misplaced
// signature lines (it verifies nothing without Env.Verify).
func Check(req CheckRequest) (*checkResult, error) {
	if err := req.Options.validate(); err != nil {
		return nil, err
	}
	ss := req.Verify.Spaces
	extractors, err := ss.Extractors()
	if err != nil {
		return nil, err
	}
	env := &Env{Spaces: ss, Extractors: extractors}
	if t, g := req.Verify.Trust, req.Verify.Git; t != nil && t.Ref() != "" && g != nil && ss.Project != nil {
		req.Options.Baseline, req.Options.BaselineRef = atRef(g, t.Ref(), ss.Project), t.Ref()
	}
	var lr *run
	var byIndex []*file
	chunks := 0
	vreq := req.Verify
	chunkSize := req.Options.chunk()
	vreq.ChunkSize = chunkSize
	// Each chunk is linted as soon as it is verified, from the bytes its
	// verdicts are about: the tree is read once and never held whole.
	vreq.Each = func(srcs []verify.Source, first, n int, _ []verify.Result) error {
		if lr == nil {
			env.Files, byIndex = filesOf(srcs)
			chunks = (len(srcs)+chunkSize-1)/chunkSize + 1
			if lr, err = newRun(env, req.Options); err != nil {
				return err
			}
		}
		var files []*file
		for _, f := range byIndex[first : first+n] {
			if f != nil {
				files = append(files, f)
			}
		}
		return lr.chunk(files, nil, first/chunkSize, chunks)
	}
	vres, err := verify.Run(vreq)
	if err != nil {
		return nil, err
	}
	if lr == nil { // nothing was selected
		if lr, err = newRun(env, req.Options); err != nil {
			return nil, err
		}
	}
	r := req.Verify
	whole := len(r.Patterns) == 0 && (r.Kinds == nil || len(r.Kinds) == len(item.Kinds)) &&
		!r.Staged && r.ChangedSince == "" && (r.Tier == "" || r.Tier == string(space.Project))
	var odd, others []*file
	if whole && ss.Project != nil {
		// A whole-project check also looks at what is not an item (the
		// items themselves were read once, for verification).
		all, rest, err := loadExtras(ss.Project, nil)
		if err != nil {
			return nil, err
		}
		for _, f := range all {
			if !f.Oddity.Symlink {
				odd = append(odd, f)
			}
		}
		others = rest
	}
	if err := lr.chunk(odd, others, max(chunks-1, 0), chunks); err != nil {
		return nil, err
	}
	return &checkResult{Verify: vres, Lint: lr.res}, nil
}

// atRef reads the files of the project space sp as they are at git ref
// ref, a folder at a time (files of other spaces are not under review:
// they are read from disk as they are).
func atRef(g *verify.Git, ref string, sp *space.Space) func(f *file) ([]byte, bool, error) {
	folders := map[string]map[string][]byte{}
	return func(f *file) ([]byte, bool, error) {
		if f.Space != sp {
			src, err := f.bytes()
			return src, err == nil, nil
		}
		dir := path.Dir(f.Rel)
		files, ok := folders[dir]
		if !ok {
			tree, err := g.Repo.Tree(ref, path.Join(g.AIPrefix, dir), maxBaseline)
			if err != nil {
				return nil, false, err
			}
			files = map[string][]byte{}
			for name, gf := range tree {
				if !strings.Contains(name, "/") && !gf.Symlink && !gf.TooLarge {
					files[name] = gf.Data
				}
			}
			folders[dir] = files
		}
		src, ok := files[path.Base(f.Rel)]
		return src, ok, nil
	}
}

// maxBaseline is the largest file read at the trust ref for suppressions.
const maxBaseline = 16 << 20

// filesOf turns verification sources into lint files, each reading
// through its source (during its chunk: the bytes verified), aligned with
// sources (nil for a source lint does not look at).
func filesOf(sources []verify.Source) (files, byIndex []*file) {
	byIndex = make([]*file, len(sources))
	for i, s := range sources {
		if s.In == nil {
			continue
		}
		f := &file{Name: s.Path, Space: s.In, Rel: s.Rel, Kind: s.Kind, ID: s.ID, read: func() ([]byte, error) { return sources[i].Bytes() }}
		if s.Symlink {
			f.Oddity = &space.Oddity{Space: s.In, Kind: s.Kind, Rel: s.Rel, Symlink: true, ID: s.ID, Reason: "symbolic link"}
			f.read = nil
		}
		files = append(files, f)
		byIndex[i] = f
	}
	return files, byIndex
}

// Report is the check's one report: the verification's items, notes and
// findings with the lint run's findings (notes: the settings' notes).
func (c *checkResult) Report(notes []string, project *space.Space, listVerified bool) *report.Report {
	vrep := c.Verify.Report(notes, project, listVerified)
	rep := c.Lint.Report("rye check")
	rep.Items, rep.Passed, rep.Notes, rep.Groups = vrep.Items, vrep.Passed, vrep.Notes, vrep.Groups
	for _, f := range vrep.Findings {
		rep.Add(f)
		rep.AddRule(vrep.Rules[f.Rule])
	}
	return rep
}
