package cli

import (
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/ryekit/rye/internal/cachedir"
	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/project"
	"github.com/ryekit/rye/report"
	"github.com/ryekit/rye/verify"
)

// verifyOptions are the flags of rye verify and rye check.
type verifyOptions struct {
	space        string
	trustRef     string
	trustUser    bool
	changedSince string
	staged       bool
	require      string
	noCache      bool
	allProjects  bool
}

func (o *verifyOptions) flags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&o.space, "space", "project", "verify the items of `SPACE`: project, user, system or all")
	f.StringVar(&o.trustRef, "trust-ref", "", "trust the project keys of git commit `REF` (e.g. the pull request's base), not the working tree")
	f.BoolVar(&o.trustUser, "trust-user", false, "with --trust-ref: also trust the user space's keys")
	f.StringVar(&o.changedSince, "changed-since", "", "verify only items whose content differs from git commit `REF`")
	f.BoolVar(&o.staged, "staged", false, "verify the staged (index) content, as a pre-commit hook must")
	f.StringVar(&o.require, "require", "", "`v2`: fail v1 signatures (also min_signature_version: 2)")
	f.BoolVar(&o.noCache, "no-cache", false, "verify every item, ignoring the verdict cache")
	allProjectsFlag(cmd, &o.allProjects)
	cmd.RegisterFlagCompletionFunc("space", fixedValues("project", "user", "system", "all"))
	cmd.RegisterFlagCompletionFunc("require", fixedValues("v2"))
}

// allProjectsFlag is --all-projects, and the annotation that lets the verb
// take several -C folders.
func allProjectsFlag(cmd *cobra.Command, v *bool) {
	cmd.Flags().BoolVar(v, "all-projects", false, "check every project of the repository (each folder with a .ai/ folder that git tracks; every such folder below the working directory outside git)")
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	cmd.Annotations[severalProjects] = "yes"
}

func (a *app) verifyCommand() *cobra.Command {
	o := &verifyOptions{}
	cmd := &cobra.Command{
		Use:   "verify [KIND] [PATTERN...]",
		Short: "Verify items' signatures against the trust store",
		Long: `rye verify gives every item one verdict: verified, or why not (unsigned,
malformed-signature, duplicate-signature, modified, untrusted-key,
bad-signature, moved, key-expired, key-out-of-scope, legacy-format,
unreadable). Without patterns it verifies every project item; patterns are
ids, globs or file paths, as for rye sign. A file path is verified in the
project that holds it; -C DIR (repeatable) and --all-projects check several
projects in one run, with one report and one exit code.

In CI, use --trust-ref with the base of the change (the pull request's base
commit): the project's trusted keys are then read from that commit, so a
change cannot add its own key and sign itself in. In a pre-commit hook use
--staged, which verifies what is about to be committed.

--format sets the format on stdout (text, json, sarif, github) and
--output FORMAT=FILE (or --sarif FILE) writes more formats in the same run.
In json, sarif and github output, paths are relative to the repository's
top level (--path-prefix to change that); in text, to the working
directory.

Exit status: 0 when everything verified, 1 when any item failed, 2 for
usage or configuration errors.`,
		ValidArgsFunction: a.completeKindOrID(projectItems),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.useOutputs(cmd); err != nil {
				return err
			}
			s := a.openReport()
			rep, sum, err := a.verifyAll(o, args, s)
			if err != nil {
				return a.failReport(s, err)
			}
			return a.closeReport(s, rep, sum.Line(), sum)
		},
	}
	o.flags(cmd)
	a.out.flags(cmd)
	return cmd
}

// useOutputs reads the output flags of the verb being run (--json
// included), so that even the errors that follow are rendered in the
// formats asked for.
func (a *app) useOutputs(cmd *cobra.Command) error {
	a.tool, a.out.prefixSet = cmd.CommandPath(), cmd.Flags().Changed("path-prefix")
	outs, err := a.out.list(a.json)
	if err != nil {
		return err
	}
	a.outs = outs
	return nil
}

// listsItems reports whether an output of the verb lists every item
// (JSON, --json included), not only the problems.
func (a *app) listsItems() bool {
	for _, o := range a.outs {
		if o.Format == "json" {
			return true
		}
	}
	return false
}

// verifyParts opens the projects of a run of rye verify or rye check
// (openRun) with their trust, and the request each is verified with,
// after the checks that only flags can get wrong; the items go to s as
// they are verified.
func (a *app) verifyParts(o *verifyOptions, args []string, s *report.Stream) ([]project.Part, verify.Request, error) {
	kinds, patterns := splitKind(args)
	if o.staged && o.changedSince != "" {
		return nil, verify.Request{}, usageError("--staged and --changed-since do not go together")
	}
	switch o.require {
	case "", "v1", "v2":
	default:
		return nil, verify.Request{}, usageError("--require %q: the only requirement is v2", o.require)
	}
	parts, err := a.openRun(o.allProjects, project.Run{Kinds: kinds, Patterns: patterns, Tier: o.space,
		Options: project.Options{TrustRef: o.trustRef, TrustUser: o.trustUser, Staged: o.staged, Gate: true, RequireV2: o.require == "v2"}})
	if err != nil {
		return nil, verify.Request{}, err
	}
	req := verify.Request{
		Tier: o.space, Kinds: kinds, WorkDir: a.workDir(),
		Staged: o.staged, ChangedSince: o.changedSince, FromChange: fromHook(),
		RunFiles: true, NestedProjects: true,
		Copies:   &verify.SeenCopies{}, // a copy across the run's projects is one too
		Progress: a.progress("verifying"),
		// The report shows only problems but with -v; JSON lists every
		// item as it comes.
		CountPassed: !a.verbose,
	}
	if a.listsItems() {
		req.Sink = verify.Stream(s)
	}
	if !o.noCache {
		req.Cache, req.CacheSecret = a.verifyCache()
	}
	return parts, req, nil
}

// request is req for one project of a run: its spaces, patterns, trust,
// repository and policy, and the roots the run checks.
func request(req verify.Request, p project.Part, parts []project.Part) verify.Request {
	req.Spaces, req.Patterns, req.Trust, req.Git, req.Policy = p.Spaces, p.Patterns, p.Trust, p.Git, p.Policy
	for _, q := range parts {
		req.InRun = append(req.InRun, q.Root())
	}
	return req
}

// verifyCache is the verdict cache file and the secret that authenticates
// it; without either, verification runs without a cache (and -v says why).
func (a *app) verifyCache() (string, []byte) {
	dir, secret, err := cachedir.Keyed()
	if err != nil {
		if a.verbose {
			a.info("no verdict cache: %v", err)
		}
		return "", nil
	}
	return filepath.Join(dir, "verify.cache"), secret
}

// verifyAll runs the verify pipeline for rye verify and turns its results
// into one report (its items go to s).
func (a *app) verifyAll(o *verifyOptions, args []string, s *report.Stream) (*report.Report, report.VerifySummary, error) {
	parts, req, err := a.verifyParts(o, args, s)
	if err != nil {
		return nil, report.VerifySummary{}, err
	}
	rep, err := a.merged("rye verify", parts, func(p project.Part) (*report.Report, error) {
		r, err := verify.Run(request(req, p, parts))
		if err != nil {
			return nil, err
		}
		a.cacheNotSaved(r.CacheErr)
		return r.Report(notes(p.Settings), p.Spaces.Project, a.verbose), nil
	})
	if err != nil {
		return nil, report.VerifySummary{}, err
	}
	return rep, rep.VerifyCounts(len(parts)), nil
}

// merged runs one project's pipeline for each part and merges their
// reports (project.Merge).
func (a *app) merged(tool string, parts []project.Part, run func(project.Part) (*report.Report, error)) (*report.Report, error) {
	rep, err := project.Merge(tool, parts, run)
	if err != nil {
		return nil, a.requestError(err)
	}
	return rep, nil
}

// cacheNotSaved says with -v that the verdict cache could not be saved.
func (a *app) cacheNotSaved(err error) {
	if err != nil && a.verbose {
		a.info("verdict cache not saved: %v", err)
	}
}

// splitKind reads the optional leading KIND of "[KIND] PATTERN...": none
// is every kind of the project (nil).
func splitKind(args []string) ([]item.Kind, []string) {
	if len(args) > 0 {
		if k, err := item.ParseKind(args[0]); err == nil {
			return []item.Kind{k}, args[1:]
		}
	}
	return nil, args
}
