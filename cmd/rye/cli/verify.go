package cli

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ryekit/rye/config"
	"github.com/ryekit/rye/internal/cachedir"
	"github.com/ryekit/rye/report"
	"github.com/ryekit/rye/space"
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
			run, err := a.verifyAll(o, args)
			if err != nil {
				return err
			}
			return a.renderReport(run.rep, verifyLine(run.sum), run.sum)
		},
	}
	o.flags(cmd)
	a.out.flags(cmd)
	return cmd
}

// useOutputs reads the output flags of the verb being run, so that even
// the errors that follow are rendered in the formats asked for.
func (a *app) useOutputs(cmd *cobra.Command) error {
	a.out.prefixSet = cmd.Flags().Changed("path-prefix")
	return a.listOutputs(cmd)
}

// listOutputs reads the outputs a.out names (--json included).
func (a *app) listOutputs(cmd *cobra.Command) error {
	a.tool = cmd.CommandPath()
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
		if o.format == "json" {
			return true
		}
	}
	return false
}

// useFormat is useOutputs for a verb with --format only (bundle verify).
func (a *app) useFormat(cmd *cobra.Command, format string) error {
	a.out = outputOptions{format: format}
	return a.listOutputs(cmd)
}

// verifySummary is the summary object of the JSON output.
type verifySummary struct {
	Projects int `json:"projects"`
	Items    int `json:"items"`
	Verified int `json:"verified"`
	Failed   int `json:"failed"`
	Warnings int `json:"warnings"`
}

// verifyRun is a finished verification: its report and its counts.
type verifyRun struct {
	rep *report.Report
	sum verifySummary
}

// verifyProjects turns the options into a run of the verify pipeline over
// the project, or the projects (-C DIR..., --all-projects, file paths in
// several projects), after the checks that only flags can get wrong.
func (a *app) verifyProjects(o *verifyOptions, args []string) (verify.Projects, error) {
	kinds, patterns := splitKind(args)
	if o.staged && o.changedSince != "" {
		return verify.Projects{}, usageError("--staged and --changed-since do not go together")
	}
	switch o.require {
	case "", "v1", "v2":
	default:
		return verify.Projects{}, usageError("--require %q: the only requirement is v2", o.require)
	}
	ss, err := a.getSpaces()
	if err != nil {
		return verify.Projects{}, err
	}
	roots, err := a.projectRoots(o.allProjects)
	if err != nil {
		return verify.Projects{}, err
	}
	req := verify.Request{
		Spaces: ss, Tier: o.space, Kinds: kinds, Patterns: patterns, WorkDir: a.workDir(),
		Trust:  verify.TrustOptions{User: o.trustUser},
		Staged: o.staged, ChangedSince: o.changedSince,
		Policy:   verify.Policy{RequireV2: o.require == "v2", Now: time.Now().UTC()},
		RunFiles: true,
		Progress: a.progress("verifying"),
		// A report that is not JSON (nor -v) shows only problems.
		CountPassed: !a.verbose && !a.listsItems(),
	}
	if !o.noCache {
		req.Cache, req.CacheSecret = a.verifyCache()
	}
	return verify.Projects{Request: req, Roots: roots, Settings: verify.SettingsOptions{TrustRef: o.trustRef, Gate: true, Staged: o.staged}}, nil
}

// projectRoots are the projects named by several -C folders (each one's
// project, found upwards as for one) or by --all-projects; none for one
// -C, or none, where the project of the working directory is the one.
func (a *app) projectRoots(all bool) ([]string, error) {
	ss, err := a.getSpaces()
	if err != nil {
		return nil, err
	}
	userRoot := ""
	if ss.User != nil {
		userRoot = ss.User.Root
	}
	switch {
	case all && (len(a.dirs) > 1 || a.projectDir != ""):
		return nil, usageError("--all-projects finds the projects itself: it takes no --project and at most one -C")
	case all:
		roots, err := verify.AllProjects(a.workDir(), userRoot)
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
			root, err := space.FindProjectRoot(dir, userRoot)
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

// verifyCache is the verdict cache file and the secret that authenticates
// it; without either, verification runs without a cache (and -v says why).
func (a *app) verifyCache() (string, []byte) {
	dir, err := cachedir.Dir()
	if err != nil {
		if a.verbose {
			a.info("no verdict cache: %v", err)
		}
		return "", nil
	}
	secret, err := cachedir.Secret()
	if err != nil {
		if a.verbose {
			a.info("no verdict cache: %v", err)
		}
		return "", nil
	}
	return filepath.Join(dir, "verify.cache"), secret
}

// settings reads the configuration a run relies on (verify.LoadSettings).
func (a *app) settings(o verify.SettingsOptions) (*config.Settings, error) {
	ss, err := a.getSpaces()
	if err != nil {
		return nil, err
	}
	s, err := verify.LoadSettings(ss, o)
	if err != nil {
		return nil, a.requestError(err)
	}
	return s, nil
}

// requestError turns an error of a request function into a usage error
// that names the flag at fault ("no project" says how to make one).
func (a *app) requestError(err error) error {
	if errors.Is(err, verify.ErrNoProject) {
		_, perr := a.project()
		if perr == nil {
			return usageError("%v", err)
		}
		return a.projectsBelow(perr)
	}
	var re *verify.RequestError
	if errors.As(err, &re) {
		if flag := requestFlags[re.Field]; flag != "" {
			return usageError("%s: %v", flag, re.Err)
		}
		return usageError("%v", re.Err)
	}
	return asUsage(err)
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
	userRoot := ""
	if ss, _ := a.getSpaces(); ss != nil && ss.User != nil {
		userRoot = ss.User.Root
	}
	roots, lerr := verify.AllProjects(a.workDir(), userRoot)
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

// requestFlags are the flags that set each field of a verify.Request.
var requestFlags = map[string]string{
	verify.FieldTier:         "--space",
	verify.FieldTrustRef:     "--trust-ref",
	verify.FieldTrustUser:    "--trust-user",
	verify.FieldChangedSince: "--changed-since",
}

// verifyAll runs the verify pipeline for rye verify and turns its results
// into one report.
func (a *app) verifyAll(o *verifyOptions, args []string) (*verifyRun, error) {
	p, err := a.verifyProjects(o, args)
	if err != nil {
		return nil, err
	}
	runs, err := verify.RunProjects(p)
	if err != nil {
		return nil, a.requestError(err)
	}
	reps := make([]*report.Report, len(runs))
	for i, r := range runs {
		r.Sources = nil // the report needs only the results: let the sources go
		if r.CacheErr != nil && a.verbose {
			a.info("verdict cache not saved: %v", r.CacheErr)
		}
		reps[i] = a.verifyReport(r.Results, r.Settings, r.Request.Spaces.Project)
		inProject(reps[i], r.Request.Spaces.Project)
		projectNotes(reps[i], r.Request.Spaces.Project, len(runs))
	}
	rep := report.Merge("rye verify", reps...)
	return &verifyRun{rep: rep, sum: verifyCounts(rep, len(runs))}, nil
}

// projectNotes names the project in front of each note when a run has
// several ("sub/a: 3 items of 10 changed since main").
func projectNotes(rep *report.Report, p *space.Space, projects int) {
	if projects < 2 || p == nil {
		return
	}
	for i, n := range rep.Notes {
		rep.Notes[i] = p.Shown + ": " + n
	}
}

// verifyCounts are the counts of a verification's report.
func verifyCounts(rep *report.Report, projects int) verifySummary {
	sum := verifySummary{Projects: projects, Items: len(rep.Items) + rep.Passed, Failed: rep.Failed(), Warnings: rep.Count(report.Warning)}
	sum.Verified = sum.Items - sum.Failed
	return sum
}

// verifyReport renders one project's verification as a report.
func (a *app) verifyReport(res *verify.Results, s *config.Settings, project *space.Space) *report.Report {
	rep := &report.Report{Tool: "rye verify", Notes: append(s.Notes(), res.Notes...)}
	rep.Version, _, _ = Version()
	addVerdicts(rep, res.Items, a.verbose)
	rep.Passed = res.Passed
	for _, p := range res.Trust.Problems {
		rep.Add(report.Finding{Rule: "verify/trust-store", Severity: report.Warning, Path: p.Path, Message: p.Reason})
	}
	for _, f := range res.RunFiles {
		rule := "verify/tracked-run-file"
		rep.AddRule(report.Rule{ID: rule, Short: "Git tracks a file outside .ai/ that rye execute would use without verifying it.", Help: "Interpreters, packages and .env files are not items: nothing signs them. See the URL.", URL: docsBase + "execute.md#what-a-project-can-and-cannot-choose"})
		rep.Add(report.Finding{Rule: rule, Severity: report.Error, Path: project.ShownRootPath(f.Path), Line: 1, Col: 1,
			Message: fmt.Sprintf("%s is tracked by git: %s unverified, so rye execute refuses it; remove it from git (git rm -r --cached %s) and list it in .gitignore", f.Path, f.Why, f.Path)})
	}
	for _, k := range res.Trust.Changed() {
		rule := "verify/key-changed"
		rep.AddRule(report.Rule{ID: rule, Short: "The change edits a trusted key's entry; the trusted ref's entry governs.", Help: "A key's scopes, expiry and owner come from the trusted ref until the change is merged. See the URL.", URL: docsBase + "verify.md#keys-added-by-a-change"})
		rep.Add(report.Finding{Rule: rule, Severity: report.Warning, Path: k.Path, Line: 1, Col: 1,
			Message: fmt.Sprintf("this change edits the entry of trusted key %s%s (owner, scopes or expiry); %s's entry governs until the change is merged", k.Fingerprint, ownerText(k.Owner), res.Trust.Ref())})
	}
	for _, k := range res.Trust.Added() {
		rule := "verify/key-added"
		rep.AddRule(report.Rule{ID: rule, Short: "The change adds a trusted key that the trusted ref does not have.", Help: "A key added by the change under review is not trusted until it is merged. See the URL.", URL: docsBase + "verify.md#keys-added-by-a-change"})
		rep.Add(report.Finding{Rule: rule, Severity: report.Warning, Path: k.Path, Line: 1, Col: 1,
			Message: fmt.Sprintf("this change adds key %s%s, which %s does not trust: items it signed fail until the key is reviewed and merged into %s", k.Fingerprint, ownerText(k.Owner), res.Trust.Ref(), res.Trust.Ref())})
	}
	return rep
}

// verification is what a verb that verifies needs: the trust store of the
// tiers its options name and the configured policy.
type verification struct {
	trust    *verify.TrustStore
	policy   verify.Policy
	settings *config.Settings
}

// verification loads the trust store and the policy the same way for every
// verb that verifies without the verify pipeline (load, lint, execute,
// bundle): settings, then the trust tiers (verify.LoadTrust). gate marks
// the verbs whose answer gates a change (bundle verify): the user's
// verify.trust_ref then applies when the options name no ref. Problems
// with trusted-key files are left in the store, and notes about the
// settings, for the caller to report (warnTrust).
func (a *app) verification(o *verifyOptions, gate bool) (*verification, error) {
	s, err := a.settings(verify.SettingsOptions{TrustRef: o.trustRef, Gate: gate, Staged: o.staged})
	if err != nil {
		return nil, err
	}
	ss, err := a.getSpaces()
	if err != nil {
		return nil, err
	}
	ts, _, err := verify.LoadTrust(ss, verify.TrustOptions{Ref: s.TrustRef, User: o.trustUser, Staged: o.staged}, false)
	if err != nil {
		return nil, a.requestError(err)
	}
	return &verification{trust: ts, settings: s, policy: verify.Policy{RequireV2: o.require == "v2" || s.MinSignatureVersion() == 2, Now: time.Now().UTC()}}, nil
}

// warnTrust prints the trusted-key files that were ignored, for the verbs
// whose output is not a report (a report lists them as findings).
func (a *app) warnTrust(v *verification) {
	for _, n := range v.settings.Notes() {
		fmt.Fprintf(a.stderr, "rye: warning: %s\n", n)
	}
	a.warnTrustProblems(v.trust)
}

// warnTrustProblems prints the trusted-key files that were ignored.
func (a *app) warnTrustProblems(ts *verify.TrustStore) {
	for _, p := range ts.Problems {
		fmt.Fprintf(a.stderr, "rye: warning: %s: %s\n", p.Path, p.Reason)
	}
}

const docsBase = "https://github.com/ryekit/rye/blob/main/docs/"

// groupLegacy puts a legacy-format warning (verify's, or lint's signature
// analyzer's) into its format's group: the same warning on many items is
// one line in text.
func groupLegacy(rep *report.Report, f *report.Finding, format string) {
	f.Group = "legacy-" + format
	rep.AddGroup(report.Group{Key: f.Group, Summary: "%s verified with " + format + " signatures, which leave parts of each item unsigned (" + docsBase + "verify.md#what-v1-does-not-catch; -v or --format json lists them); re-sign them with your key: rye sign --format v2 \"**\""})
}

// addVerdicts turns results into report items and findings.
func addVerdicts(rep *report.Report, results []verify.Result, listVerified bool) {
	rep.Items = slices.Grow(rep.Items, len(results))
	for i := range results {
		r := &results[i] // a pointer in the item: a copy would be 180 bytes more per item
		rep.Items = append(rep.Items, report.Item{Failed: r.Verdict.Failed(), Value: r})
		if r.Verdict.Failed() {
			rule := "verify/" + string(r.Verdict)
			rep.AddRule(report.Rule{ID: rule, Short: r.Verdict.Description(), Help: r.Verdict.Description() + " See the URL for the fix.", URL: docsBase + "verify.md#" + string(r.Verdict)})
			rep.Add(report.Finding{Rule: rule, Severity: report.Error, Path: r.Path, Line: max(r.Line, 1), Col: 1, Message: string(r.Verdict) + ": " + r.Reason, Kind: string(r.Kind), ID: string(r.ID)})
		}
		for _, w := range r.Warnings {
			rule := "verify/warning"
			rep.AddRule(report.Rule{ID: rule, Short: "Verified, with something to act on: a key that expires soon, or a legacy signature format.", URL: docsBase + "verify.md#warnings"})
			f := report.Finding{Rule: rule, Severity: report.Warning, Path: r.Path, Line: max(r.Line, 1), Col: 1, Message: w, Kind: string(r.Kind), ID: string(r.ID)}
			if r.IsLegacyWarning(w) {
				groupLegacy(rep, &f, r.Format)
			}
			rep.Add(f)
		}
		if listVerified && !r.Verdict.Failed() {
			note := "verified"
			if r.Embedded {
				note = "verified (embedded)"
			} else if r.Fingerprint != "" {
				note += fmt.Sprintf(" (%s, key %s%s)", r.Format, r.Fingerprint, ownerText(r.Owner))
			}
			rep.Notes = append(rep.Notes, fmt.Sprintf("%s: %s %s: %s", r.Path, r.Kind, r.ID, note))
		}
	}
}

func verifyLine(sum verifySummary) string {
	line := fmt.Sprintf("%s: %s", report.Plural(sum.Items, "item"), report.Join(report.Count(sum.Verified)+" verified", report.Count(sum.Failed)+" failed"))
	if sum.Verified == 0 && sum.Failed == 0 {
		line = report.Plural(sum.Items, "item")
	}
	line = projectsPrefix(sum.Projects) + line
	if sum.Warnings > 0 {
		line += ", " + report.Plural(sum.Warnings, "warning")
	}
	return line
}

// projectsPrefix starts a summary line of a run over several projects.
func projectsPrefix(n int) string {
	if n < 2 {
		return ""
	}
	return report.Plural(n, "project") + ", "
}
