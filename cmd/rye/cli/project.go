package cli

import (
	"errors"
	"fmt"

	"github.com/ryekit/rye/config"
	"github.com/ryekit/rye/project"
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
	switch {
	case all && (len(a.dirs) > 1 || a.projectDir != ""):
		return nil, usageError("--all-projects finds the projects itself: it takes no --project and at most one -C")
	case len(a.dirs) > 1 && a.projectDir != "":
		return nil, usageError("--project names one project: with several -C folders, each -C names its project")
	case len(a.dirs) > 1:
		r.Dirs = a.dirs
	}
	r.Dir, r.All, r.Options.Root = a.workDir(), all, a.projectDir
	parts, err := project.OpenRun(r)
	if err != nil {
		return nil, a.requestError(err)
	}
	return parts, nil
}

// userRoot is the user space's root ("" when there is none).
func (a *app) userRoot() string {
	ss, err := a.spaces()
	if err != nil || ss.User == nil {
		return ""
	}
	return ss.User.Root
}

// openSpace opens the project of the run (open, with o) and the space a
// verb writes into: the project's, or with user your user space
// (project.Writable).
func (a *app) openSpace(o project.Options, user bool) (*project.Project, *space.Space, error) {
	p, err := a.open(o)
	if err != nil {
		return nil, nil, err
	}
	name := "project"
	if user {
		name = "user"
	}
	sp, err := p.Writable(name)
	if err != nil {
		return nil, nil, a.requestError(err)
	}
	return p, sp, nil
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
// says how to make one, and which projects verify, check and lint could
// check instead).
func (a *app) requestError(err error) error {
	var np *project.NoProjectError
	if errors.As(err, &np) && np.Exact {
		return usageError("--project %s: %v (rye init --project %s makes one)", np.Dir, np, np.Dir)
	}
	if errors.As(err, &np) || errors.Is(err, verify.ErrNoProject) {
		if np == nil {
			np = &project.NoProjectError{Dir: a.workDir()}
		}
		msg := fmt.Sprintf("%v (run 'rye init' to create one, or use -C DIR)", np)
		if len(np.Below) == 0 || (a.tool != "rye verify" && a.tool != "rye check" && a.tool != "rye lint") {
			return usageError("%s", msg)
		}
		return usageError("%s; the repository has %s: check them with --all-projects, or -C DIR for each", msg, np.BelowText(a.workDir()))
	}
	var fp *space.ForeignProjectError
	var re *verify.RequestError
	switch {
	case errors.As(err, &re) && re.Field == project.FieldDirs && errors.As(err, &fp):
		return usageError("-C %v: pass --project %s to use it anyway", re.Err, fp.Dir)
	case errors.As(err, &fp) && !errors.As(err, &re):
		return usageError("%v: pass --project %s to use it anyway", err, fp.Dir)
	}
	if errors.As(err, &re) {
		if re.Field == project.FieldDirs {
			return usageError("-C %v", re.Err) // names its folder
		}
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
	project.FieldDestination: "--destination",
	project.FieldAll:         "--all-projects",
}

// warnTrust prints what a project ignored (settings rye did not take,
// trusted-key files), for the verbs whose output is not a report (a
// report lists them as findings).
func (a *app) warnTrust(p *project.Project) {
	for _, n := range notes(p.Settings) {
		fmt.Fprintf(a.stderr, "rye: warning: %s\n", n)
	}
	a.warnTrustProblems(p.Trust)
}

// notes say what the reader should know of the settings rye did not take,
// and how to give them instead.
func notes(s *config.Settings) []string {
	var out []string
	for _, i := range s.Ignored() {
		n := i.String()
		if i.Key == config.KeyTrustRef {
			n += fmt.Sprintf("; pass --trust-ref %s, or set it in your own configuration", i.Value)
		}
		out = append(out, n)
	}
	return out
}

// warnTrustProblems prints the trusted-key files that were ignored.
func (a *app) warnTrustProblems(ts *verify.TrustStore) {
	for _, p := range ts.Problems {
		fmt.Fprintf(a.stderr, "rye: warning: %s: %s\n", p.Path, p.Reason)
	}
}
