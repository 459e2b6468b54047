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

// OptionsFor is the lint options of one project's settings (Settings: a
// tree under check can only make them stricter), with the caller's
// analyzers (the command line's, which are the runner's own) over them.
func OptionsFor(s *config.Settings, enable, disable []string) (options, error) {
	base, tighten := s.Lint()
	base.Enable = append(append([]string(nil), base.Enable...), enable...)
	base.Disable = append(append([]string(nil), base.Disable...), disable...)
	analyzers, severity, err := settings(base, tighten)
	if err != nil {
		return options{}, err
	}
	return options{Analyzers: analyzers, Severity: severity}, nil
}

// fixMode says what rye lint does with the suggested fixes.
type fixMode int

const (
	NoFix      fixMode = iota
	DiffFixes          // compute them (projectResult.Fixed), write nothing
	WriteFixes         // write them atomically, then lint what was written
)

// ProjectRequest is rye lint over one project.
type ProjectRequest struct {
	Spaces   *space.Spaces
	Kinds    []item.Kind // nil: every kind
	Patterns []string    // ids, globs or file paths; none: every file
	WorkDir  string      // path patterns are relative to it
	// ChangedSince lints only the files whose bytes differ from this git
	// commit's.
	ChangedSince string
	// Trust and Policy are what the signature analyzer verifies with; a
	// nil Trust leaves signatures to rye verify (the rye-lint and
	// rye-verify pre-commit hooks run side by side): the analyzer then
	// only reports misplaced signature lines.
	Trust  *verify.TrustStore
	Policy verify.Policy
	// Options are the analyzers and severities (OptionsFor) and the
	// progress callback; Fixes is set from Fix.
	Options options
	Fix     fixMode
	// FromChange says the patterns are a change's file list (the rye-lint
	// pre-commit hook's): a path that is not an item is skipped, as with
	// ChangedSince; otherwise it is an error (space.Selection.NotItems).
	FromChange bool
}

// projectResult is one project's finished lint run.
type projectResult struct {
	*Result
	// Files is how many files were linted.
	Files int
	// Fixed are the fixes computed (DiffFixes) or written (WriteFixes).
	Fixed []Fixed
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

// Project lints the selected files of one project (those that changed
// since a commit with ChangedSince), verifying signatures with its trust
// store and policy, and applies the fixes as req.Fix says. Fixes that were
// not applied come back as findings (applyFixes).
func Project(req ProjectRequest) (*projectResult, error) {
	pl := &projectResult{}
	opts := req.Options
	opts.Fixes = req.Fix != NoFix
	kinds := req.Kinds // nil: every kind of the project's layout
	load := func() (*Env, error) {
		env, err := load(req.Spaces, req.Spaces.Project, kinds, req.Patterns, req.WorkDir)
		if err == nil && !req.FromChange && req.ChangedSince == "" {
			err = env.selection.NotItems()
		}
		if err != nil {
			return nil, verify.RequestErrorOf(verify.FieldPatterns, err)
		}
		if req.ChangedSince != "" {
			if pl.Notes, err = keepChanged(env, req.ChangedSince, kinds); err != nil {
				return nil, err
			}
		}
		if req.Trust != nil {
			ts, policy := req.Trust, req.Policy
			env.Verify = func(f *file, md *item.Metadata) verify.Result {
				return verify.Check(verify.Input{Kind: f.Kind, ID: f.ID, Space: f.Space.Label, Path: f.Name, Embedded: f.Space.Embedded(), Data: f.Src, ReadErr: f.ReadErr, Meta: md}, ts, policy)
			}
		}
		return env, nil
	}
	env, err := load()
	if err != nil {
		return nil, err
	}
	res, err := lint(env, opts)
	if err != nil {
		return nil, err
	}
	if req.Fix != NoFix {
		fixed, skipped := applyFixes(res)
		pl.Fixed = fixed
		if req.Fix == WriteFixes && len(fixed) > 0 {
			if err := writeFixed(fixed); err != nil {
				return pl, err
			}
			// Report what is left, on the files as they are now.
			if env, err = load(); err != nil {
				return pl, err
			}
			if res, err = lint(env, opts); err != nil {
				return pl, err
			}
		}
		res.Findings = append(res.Findings, skipped...)
	}
	pl.Result, pl.Files = res, len(env.Files)
	if sp := req.Spaces.Project; sp != nil && sp.Layout().RyeOS {
		res.RyeOSTree = true
		pl.Notes = append([]string{sp.Layout().Note()}, pl.Notes...)
	}
	return pl, nil
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
	keep := func(files []*file) ([]*file, []verify.Deleted, error) {
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
		var out []*file
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
