package cli

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ryekit/rye/project"
	"github.com/ryekit/rye/report"
	"github.com/ryekit/rye/space"
	"github.com/ryekit/rye/verify"
)

// open opens the project of the run (project.Open) with the trust the
// verb asks for: -C DIR is where it looks, --project DIR names the root.
// Its errors are worded with the flags that fix them.
func (a *app) open(o project.Options) (*project.Project, error) {
	o.Root = a.projectDir
	p, err := project.Open(a.workDir(), o)
	if err != nil {
		return nil, a.requestError(err)
	}
	return p, nil
}

// spaces opens the spaces alone, once per run (completion asks often),
// for the verbs that read neither settings nor trust.
func (a *app) spaces() (*space.Spaces, error) {
	if a.spacesOnly == nil {
		p, err := a.open(project.Options{SpacesOnly: true})
		if err != nil {
			return nil, err
		}
		a.spacesOnly = p
	}
	return a.spacesOnly.Spaces, nil
}

// openRun opens the projects of a run of verify, check, lint or sign
// (project.OpenRun): the working directory's, several -C folders' or
// --all-projects', and those that hold the file paths among the patterns.
func (a *app) openRun(all bool, r project.Run) ([]project.Part, error) {
	r.Dir, r.Options.Root = a.workDir(), a.projectDir
	roots, err := a.projectRoots(all)
	if err != nil {
		return nil, err
	}
	r.Roots = roots
	parts, err := project.OpenRun(r)
	if err != nil {
		return nil, a.requestError(err)
	}
	return parts, nil
}

// projectRoots are the projects named by several -C folders (each one's
// project, found upwards as for one) or by --all-projects; none for one
// -C, or none, where the project of the working directory is the one.
func (a *app) projectRoots(all bool) ([]string, error) {
	switch {
	case all && (len(a.dirs) > 1 || a.projectDir != ""):
		return nil, usageError("--all-projects finds the projects itself: it takes no --project and at most one -C")
	case all:
		roots, err := project.All(a.workDir(), a.userRoot())
		if err != nil {
			return nil, usageError("--all-projects: %v", err)
		}
		if len(roots) == 0 {
			return nil, usageError("--all-projects: no project in %s: no folder has a .ai/ folder that git tracks (git add it, or run 'rye init')", a.workDir())
		}
		return roots, nil
	case len(a.dirs) > 1:
		if a.projectDir != "" {
			return nil, usageError("--project names one project: with several -C folders, each -C names its project")
		}
		var roots []string
		for _, dir := range a.dirs {
			root, err := space.FindProjectRoot(dir, a.userRoot())
			if err != nil {
				return nil, usageError("-C %s: %v", dir, err)
			}
			if root == "" {
				return nil, usageError("-C %s: no project: no .ai/ folder in %s or any folder above it", dir, dir)
			}
			roots = append(roots, root)
		}
		return roots, nil
	}
	return nil, nil
}

// userRoot is the user space's root ("" when there is none).
func (a *app) userRoot() string {
	ss, err := a.spaces()
	if err != nil || ss.User == nil {
		return ""
	}
	return ss.User.Root
}

// space is the project space of p, for the verbs that need one.
func (a *app) space(p *project.Project) (*space.Space, error) {
	sp, err := p.Space()
	if err != nil {
		return nil, a.requestError(err)
	}
	return sp, nil
}

// writable is the space a verb that writes names with flag: the project
// or the user space (project.Writable), the system spaces are read-only.
func (a *app) writable(p *project.Project, flag, name string) (*space.Space, error) {
	switch name {
	case "", "project", "user":
	default:
		return nil, usageError("%s %q: use project or user (the system space is read-only)", flag, name)
	}
	sp, err := p.Writable(name)
	if err != nil {
		return nil, a.requestError(err)
	}
	return sp, nil
}

// requestError turns an error of opening a project or of a request
// function into a usage error that names the flag at fault ("no project"
// says how to make one).
func (a *app) requestError(err error) error {
	var np *project.NoProjectError
	if errors.As(err, &np) || errors.Is(err, verify.ErrNoProject) {
		dir := a.workDir()
		if np != nil {
			dir = np.Dir
		}
		return a.projectsBelow(usageError("%v (run 'rye init' to create one, or use -C DIR)", &project.NoProjectError{Dir: dir}))
	}
	var re *verify.RequestError
	if errors.As(err, &re) {
		if flag := requestFlags[re.Field]; flag != "" {
			return usageError("%s: %v", flag, re.Err)
		}
		return a.requestError(re.Err)
	}
	return asUsage(err)
}

// requestFlags are the flags that set each field of a request.
var requestFlags = map[string]string{
	verify.FieldTier:         "--space",
	verify.FieldTrustRef:     "--trust-ref",
	verify.FieldTrustUser:    "--trust-user",
	verify.FieldChangedSince: "--changed-since",
	project.FieldFormat:      "--format",
}

// projectsBelow adds to a "no project" error of verify, check or lint the
// projects there are below the working directory (a repository's root,
// with its projects in subfolders), and how to check them.
func (a *app) projectsBelow(err error) error {
	switch a.tool {
	case "rye verify", "rye check", "rye lint":
	default:
		return err
	}
	roots, lerr := project.All(a.workDir(), a.userRoot())
	if lerr != nil || len(roots) == 0 {
		return err
	}
	shown := make([]string, 0, 3)
	for _, r := range roots[:min(3, len(roots))] {
		if rel, rerr := filepath.Rel(a.workDir(), r); rerr == nil {
			r = rel
		}
		shown = append(shown, r)
	}
	if len(roots) > 3 {
		shown = append(shown, "…")
	}
	return usageError("%v; the repository has %s (%s): check them with --all-projects, or -C DIR for each", err, report.Plural(len(roots), "project"), strings.Join(shown, ", "))
}

// warnTrust prints what a project ignored (settings rye did not take,
// trusted-key files), for the verbs whose output is not a report (a
// report lists them as findings).
func (a *app) warnTrust(p *project.Project) {
	for _, n := range p.Settings.Notes() {
		fmt.Fprintf(a.stderr, "rye: warning: %s\n", n)
	}
	a.warnTrustProblems(p.Trust)
}

// warnTrustProblems prints the trusted-key files that were ignored.
func (a *app) warnTrustProblems(ts *verify.TrustStore) {
	for _, p := range ts.Problems {
		fmt.Fprintf(a.stderr, "rye: warning: %s: %s\n", p.Path, p.Reason)
	}
}
