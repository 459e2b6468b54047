package lint

import (
	"fmt"
	"path/filepath"

	"github.com/ryekit/rye/config"
	"github.com/ryekit/rye/internal/atomicfile"
	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/report"
	"github.com/ryekit/rye/space"
	"github.com/ryekit/rye/verify"
)

// CheckProjectsRequest is rye check over one project or several: the
// verify run (verify.Projects) and, for each project, the analyzers its
// own settings choose with the command line's Enable and Disable over them.
type CheckProjectsRequest struct {
	Verify          verify.Projects
	Enable, Disable []string
	// Progress is Options.Progress of each project's lint run.
	Progress func(done, total int)
}

// ProjectCheck is one project's finished check.
type ProjectCheck struct {
	verify.Part
	*CheckResult
}

// CheckProjects runs Check for each project of req, in order.
func CheckProjects(req CheckProjectsRequest) ([]ProjectCheck, error) {
	parts, err := req.Verify.Parts()
	if err != nil {
		return nil, err
	}
	out := make([]ProjectCheck, 0, len(parts))
	for _, part := range parts {
		opts, err := optionsFor(part.Settings, req.Enable, req.Disable)
		if err != nil {
			return nil, err
		}
		opts.Progress = req.Progress
		res, err := Check(CheckRequest{Verify: part.Request, Options: opts})
		if err != nil {
			return nil, err
		}
		out = append(out, ProjectCheck{Part: part, CheckResult: res})
	}
	return out, nil
}

// optionsFor is the lint options of one project's settings (Settings: a
// tree under check can only make them stricter), with the command line's
// analyzers, which are the runner's own.
func optionsFor(s *config.Settings, enable, disable []string) (Options, error) {
	base, tighten := s.Lint()
	base.Enable = append(append([]string(nil), base.Enable...), enable...)
	base.Disable = append(append([]string(nil), base.Disable...), disable...)
	analyzers, severity, err := Settings(base, tighten)
	if err != nil {
		return Options{}, err
	}
	return Options{Analyzers: analyzers, Severity: severity}, nil
}

// FixMode says what rye lint does with the suggested fixes.
type FixMode int

const (
	NoFix      FixMode = iota
	DiffFixes          // compute them (ProjectLint.Fixed), write nothing
	WriteFixes         // write them atomically, then lint what was written
)

// LintRequest is rye lint over one project or several.
type LintRequest struct {
	// Projects selects the projects and their items (Request: kinds,
	// patterns, the working directory, ChangedSince) and the policy the
	// signature analyzer verifies with, against each project's working
	// tree trust store.
	Projects        verify.Projects
	Enable, Disable []string
	// NoVerify leaves signatures to rye verify (the rye-lint and rye-verify
	// pre-commit hooks run side by side): the signature analyzer then only
	// reports misplaced signature lines.
	NoVerify bool
	Fix      FixMode
	// Progress is Options.Progress of each lint run.
	Progress func(done, total int)
}

// ProjectLint is one project's finished lint run.
type ProjectLint struct {
	verify.Part
	*Result
	// Files is how many files were linted.
	Files int
	// Fixed are the fixes computed (DiffFixes) or written (WriteFixes).
	Fixed []Fixed
	// Trust is the store items were verified against (nil with NoVerify);
	// its Problems are the trusted-key files that were ignored.
	Trust *verify.TrustStore
	// Notes are lines for the reader: what changed since a commit.
	Notes []string
}

// WriteError is a fixed file that could not be written.
type WriteError struct {
	Path string
	Err  error
}

func (e *WriteError) Error() string { return "writing " + e.Path + ": " + e.Err.Error() }
func (e *WriteError) Unwrap() error { return e.Err }

// LintProjects lints each project of req in turn: its selected files (those
// that changed since a commit with ChangedSince), its trust store and
// policy for the signature analyzer, its settings' analyzers; and applies
// the fixes as req.Fix says. Fixes that were not applied come back as
// findings (ApplyFixes).
func LintProjects(req LintRequest) ([]ProjectLint, error) {
	parts, err := req.Projects.Parts()
	if err != nil {
		return nil, err
	}
	out := make([]ProjectLint, 0, len(parts))
	for _, part := range parts {
		pl, err := lintPart(req, part)
		if err != nil {
			return nil, err
		}
		out = append(out, pl)
	}
	return out, nil
}

func lintPart(req LintRequest, part verify.Part) (ProjectLint, error) {
	pl := ProjectLint{Part: part}
	opts, err := optionsFor(part.Settings, req.Enable, req.Disable)
	if err != nil {
		return pl, err
	}
	opts.Progress = req.Progress
	opts.Fixes = req.Fix != NoFix
	r := part.Request
	if !req.NoVerify {
		if pl.Trust, _, err = verify.LoadTrust(r.Spaces, verify.TrustOptions{}, false); err != nil {
			return pl, err
		}
	}
	load := func() (*Env, error) {
		env, err := Load(r.Spaces, r.Spaces.Project, kindsOf(r), r.Patterns, r.WorkDir)
		if err != nil {
			return nil, verify.RequestErrorOf(verify.FieldPatterns, err)
		}
		if r.ChangedSince != "" {
			if pl.Notes, err = keepChanged(env, r.ChangedSince, kindsOf(r)); err != nil {
				return nil, err
			}
		}
		if pl.Trust != nil {
			ts, policy := pl.Trust, r.Policy
			env.Verify = func(f *File, md *item.Metadata) verify.Result {
				return verify.Check(verify.Input{Kind: f.Kind, ID: f.ID, Space: f.Space.Label, Path: f.Name, Embedded: f.Space.Embedded(), Data: f.Src, ReadErr: f.ReadErr, Meta: md}, ts, policy)
			}
		}
		return env, nil
	}
	env, err := load()
	if err != nil {
		return pl, err
	}
	res, err := Lint(env, opts)
	if err != nil {
		return pl, err
	}
	if req.Fix != NoFix {
		fixed, skipped := ApplyFixes(res)
		pl.Fixed = fixed
		if req.Fix == WriteFixes && len(fixed) > 0 {
			if err := writeFixed(fixed); err != nil {
				return pl, err
			}
			// Report what is left, on the files as they are now.
			if env, err = load(); err != nil {
				return pl, err
			}
			if res, err = Lint(env, opts); err != nil {
				return pl, err
			}
		}
		res.Findings = append(res.Findings, skipped...)
	}
	pl.Result, pl.Files = res, len(env.Files)
	return pl, nil
}

func kindsOf(r verify.Request) []item.Kind {
	if r.Kinds == nil {
		return item.Kinds
	}
	return r.Kinds
}

// keepChanged keeps the files of env whose bytes differ from those of git
// commit ref (the comparison of rye verify --changed-since) and returns the
// notes about it.
func keepChanged(env *Env, ref string, kinds []item.Kind) ([]string, error) {
	sp := env.Spaces.Project
	repo, aiPrefix, err := verify.OpenRepo(sp.Root)
	if err != nil {
		return nil, verify.RequestErrorOf(verify.FieldChangedSince, err)
	}
	keep := func(files []*File) ([]*File, []verify.Deleted, error) {
		srcs := make([]verify.Source, len(files))
		for i, f := range files {
			f := f
			srcs[i] = verify.Source{Rel: f.Rel, Read: f.bytes}
		}
		changed, deleted, err := verify.ChangedSince(repo, ref, aiPrefix, srcs, kinds, sp, false)
		if err != nil {
			return nil, nil, verify.RequestErrorOf(verify.FieldChangedSince, err)
		}
		byRel := map[string]bool{}
		for _, c := range changed {
			byRel[c.Rel] = true
		}
		var out []*File
		for _, f := range files {
			if byRel[f.Rel] {
				out = append(out, f)
			}
		}
		return out, deleted, nil
	}
	all := len(env.Files)
	files, deleted, err := keep(env.Files)
	if err != nil {
		return nil, err
	}
	others, _, err := keep(env.Others)
	if err != nil {
		return nil, err
	}
	env.Files, env.Others = files, others
	var notes []string
	for _, d := range deleted {
		notes = append(notes, d.Note(ref, sp))
	}
	notes = append(notes, fmt.Sprintf("%s of %s changed since %s", report.Plural(len(files), "file"), report.Count(all), ref))
	return notes, nil
}

// writeFixed writes fixed files atomically, each with its mode kept
// (atomicfile.WriteFile keeps an existing file's permission bits).
func writeFixed(fixed []Fixed) error {
	for _, fx := range fixed {
		file := filepath.Join(fx.File.Space.AI(), filepath.FromSlash(fx.File.Rel))
		if err := space.CheckNoSymlinks(fx.File.Space.AI(), fx.File.Rel); err != nil {
			return &WriteError{Path: fx.File.Name, Err: err}
		}
		if err := atomicfile.WriteFile(file, fx.New, 0o644); err != nil {
			return &WriteError{Path: fx.File.Name, Err: err}
		}
	}
	return nil
}
