package cli

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/ryekit/rye/report"
	"github.com/ryekit/rye/search"
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
	format       string
	noCache      bool
}

func (o *verifyOptions) flags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&o.space, "space", "project", "verify the items of `SPACE`: project, user, system or all")
	f.StringVar(&o.trustRef, "trust-ref", "", "trust the project keys of git commit `REF` (e.g. the pull request's base), not the working tree")
	f.BoolVar(&o.trustUser, "trust-user", false, "with --trust-ref: also trust the user space's keys")
	f.StringVar(&o.changedSince, "changed-since", "", "verify only items whose content differs from git commit `REF`")
	f.BoolVar(&o.staged, "staged", false, "verify the staged (index) content, as a pre-commit hook must")
	f.StringVar(&o.require, "require", "", "`v2`: fail v1 signatures (also min_signature_version: 2)")
	f.StringVar(&o.format, "format", "text", "output `FORMAT`: text, json, sarif or github")
	f.BoolVar(&o.noCache, "no-cache", false, "verify every item, ignoring the verdict cache")
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
ids, globs or file paths, as for rye sign.

In CI, use --trust-ref with the base of the change (the pull request's base
commit): the project's trusted keys are then read from that commit, so a
change cannot add its own key and sign itself in. In a pre-commit hook use
--staged, which verifies what is about to be committed.

Exit status: 0 when everything verified, 1 when any item failed, 2 for
usage or configuration errors.`,
		ValidArgsFunction: a.completeKindOrID,
		RunE: func(cmd *cobra.Command, args []string) error {
			run, err := a.verifyAll(o, args)
			if err != nil {
				return err
			}
			return a.renderReport(run.rep, verifyLine(run.sum), run.sum, o.format)
		},
	}
	o.flags(cmd)
	return cmd
}

// verifySummary is the summary object of the JSON output.
type verifySummary struct {
	Items    int `json:"items"`
	Verified int `json:"verified"`
	Failed   int `json:"failed"`
	Warnings int `json:"warnings"`
}

// verifyRun is a finished verification: its report and, for rye check,
// what was verified (each source reads its bytes once; later reads are
// served from memory).
type verifyRun struct {
	rep     *report.Report
	sum     verifySummary
	sources []verify.Source
}

func (a *app) verifyAll(o *verifyOptions, args []string) (*verifyRun, error) {
	var sum verifySummary
	kinds, patterns := splitKind(args)
	if o.staged && o.changedSince != "" {
		return nil, usageError("--staged and --changed-since do not go together")
	}
	if o.trustUser && o.trustRef == "" {
		return nil, usageError("--trust-user only makes sense with --trust-ref")
	}
	switch o.require {
	case "", "v1":
	case "v2":
	default:
		return nil, usageError("--require %q: the only requirement is v2", o.require)
	}
	ss, err := a.getSpaces()
	if err != nil {
		return nil, err
	}
	spaces, err := ss.Named(o.space)
	if err != nil {
		return nil, usageError("--space: %v", err)
	}
	vs, err := a.verification(o, true)
	if err != nil {
		return nil, err
	}
	trust, policy, repo, aiPrefix := vs.trust, vs.policy, vs.repo, vs.aiPrefix
	rep := &report.Report{Tool: "rye verify"}
	rep.Version, _, _ = Version()
	var sources []verify.Source
	switch {
	case o.staged:
		p, _ := a.project()
		pats, err := space.ParsePatterns(p, patterns, a.workDir())
		if err != nil {
			return nil, usageError("%v", err)
		}
		if sources, err = verify.StagedSources(repo, aiPrefix, p, kinds, pats); err != nil {
			return nil, usageError("%v", err)
		}
	default:
		// A pattern need only match in one of the spaces.
		sels, err := space.SelectAll(spaces, kinds, patterns, a.workDir())
		if err != nil {
			return nil, usageError("%v", err)
		}
		for _, sel := range sels {
			sp := sel.Space
			srcs := verify.SelectionSources(sel)
			if o.changedSince != "" && sp.Name == space.Project {
				rels := make([]string, 0, len(srcs))
				for _, f := range sel.Items {
					rels = append(rels, f.Rel)
				}
				for _, l := range sel.Links {
					rels = append(rels, l.Rel)
				}
				exists := func(rel string) bool {
					_, err := os.Lstat(filepath.Join(sp.AI(), filepath.FromSlash(rel)))
					return err == nil
				}
				changed, deleted, err := verify.ChangedSince(repo, o.changedSince, aiPrefix, srcs, rels, kinds, exists)
				if err != nil {
					return nil, usageError("%v", err)
				}
				for _, d := range deleted {
					rep.Notes = append(rep.Notes, fmt.Sprintf("deleted since %s: %s %s (%s)", o.changedSince, d.Kind, d.ID, sp.DisplayPath(d.Rel)))
				}
				rep.Notes = append(rep.Notes, fmt.Sprintf("%s of %s changed since %s", report.Plural(len(changed), "item"), report.Count(len(srcs)), o.changedSince))
				srcs = changed
			}
			sources = append(sources, srcs...)
		}
	}
	for i := range sources {
		sources[i].Read = readOnce(sources[i].Read)
	}
	v := &verify.Verifier{Trust: trust, Policy: policy}
	var cache *verify.Cache
	if !o.noCache {
		if dir, err := search.DefaultCacheDir(); err == nil {
			cache = verify.OpenCache(filepath.Join(dir, "verify.cache"))
			v.Cache = cache
		}
	}
	results := v.Run(sources)
	if cache != nil {
		if err := cache.Save(); err != nil && a.verbose {
			a.info("verdict cache not saved: %v", err)
		}
	}
	addVerdicts(rep, results, a.verbose)
	for _, p := range trust.Problems {
		rep.Add(report.Finding{Rule: "verify/trust-store", Severity: report.Warning, Path: p.Path, Message: p.Reason})
	}
	sum = verifySummary{Items: len(results), Failed: rep.Failed(), Warnings: rep.Count(report.Warning)}
	sum.Verified = sum.Items - sum.Failed
	return &verifyRun{rep: rep, sum: sum, sources: sources}, nil
}

// readOnce remembers what read returns, so that a second reader (lint in
// rye check) gets the very bytes that were verified.
func readOnce(read func() ([]byte, error)) func() ([]byte, error) {
	var once sync.Once
	var data []byte
	var err error
	return func() ([]byte, error) {
		once.Do(func() { data, err = read() })
		return data, err
	}
}

// verification is what a verb that verifies needs: the trust store of the
// tiers its options name, the configured policy and, for the options that
// read git (--trust-ref, --staged, --changed-since), the repository and the
// project's .ai/ folder in it.
type verification struct {
	trust    *verify.TrustStore
	policy   verify.Policy
	repo     *verify.Repo
	aiPrefix string
}

// verification loads the trust store and the policy the same way for every
// verb: config, then git when the options need it, then the trust tiers
// (verify.TrustTiers). The config's verify.trust_ref applies when the
// options name no ref and configRef is set: the verbs whose answer gates a
// change (verify, check, bundle verify). Problems with trusted-key files are
// left in the store for the caller to report (warnTrust).
func (a *app) verification(o *verifyOptions, configRef bool) (*verification, error) {
	cfg, err := a.config()
	if err != nil {
		return nil, err
	}
	ss, err := a.getSpaces()
	if err != nil {
		return nil, err
	}
	if o.trustRef == "" && configRef {
		o.trustRef = cfg.Verify.TrustRef
	}
	v := &verification{policy: verify.Policy{RequireV2: o.require == "v2" || cfg.MinSignatureVersion == 2, Now: time.Now().UTC()}}
	var project *verify.TrustSource
	if o.trustRef != "" || o.staged || o.changedSince != "" {
		p, err := a.project()
		if err != nil {
			return nil, err
		}
		if v.repo, v.aiPrefix, err = verify.OpenSpaceRepo(p.Root); err != nil {
			return nil, usageError("%v", err)
		}
		switch {
		case o.trustRef != "":
			src, err := v.repo.TrustAtRef(o.trustRef, path.Dir(v.aiPrefix))
			if err != nil {
				return nil, usageError("--trust-ref: %v", err)
			}
			project = &src
		case o.staged:
			src, err := v.repo.TrustInIndex(path.Dir(v.aiPrefix))
			if err != nil {
				return nil, usageError("%v", err)
			}
			project = &src
		}
	}
	v.trust, err = verify.LoadTrustStore(verify.TrustTiers(ss, project, o.trustRef == "" || o.trustUser))
	return v, asUsage(err)
}

// warnTrust prints the trusted-key files that were ignored, for the verbs
// whose output is not a report (a report lists them as findings).
func (a *app) warnTrust(ts *verify.TrustStore) {
	for _, p := range ts.Problems {
		fmt.Fprintf(a.stderr, "rye: warning: %s: %s\n", p.Path, p.Reason)
	}
}

// verdictRules describes each verdict for SARIF and the JSON output.
var verdictRules = map[verify.Verdict]string{
	verify.Unsigned:      "The item has no signature line (or only a placeholder).",
	verify.Malformed:     "The signature line does not parse, or has an unsupported version.",
	verify.Duplicate:     "Two signature lines at the top of the file.",
	verify.Modified:      "The content changed after it was signed.",
	verify.UntrustedKey:  "The signing key is not in the trust store.",
	verify.BadSignature:  "The signature does not verify (for v2: also an edited timestamp or fingerprint, or a copy under another id).",
	verify.Moved:         "The item's own metadata (name, id, category) disagrees with where the file is.",
	verify.KeyExpired:    "The signing key expired.",
	verify.KeyOutOfScope: "The signing key's scopes do not cover this item.",
	verify.LegacyFormat:  "A v1 signature where v2 is required.",
	verify.Unreadable:    "The file cannot be read: I/O error, symbolic link, over 1 MiB, or not UTF-8 where text is required.",
}

const docsBase = "https://github.com/ryekit/rye/blob/main/docs/"

// addVerdicts turns results into report items and findings.
func addVerdicts(rep *report.Report, results []verify.Result, listVerified bool) {
	for _, r := range results {
		rep.Items = append(rep.Items, report.Item{Failed: r.Verdict.Failed(), Value: r})
		if r.Verdict.Failed() {
			rule := "verify/" + string(r.Verdict)
			rep.AddRule(report.Rule{ID: rule, Short: verdictRules[r.Verdict], Help: verdictRules[r.Verdict] + " See the URL for the fix.", URL: docsBase + "verify.md#" + string(r.Verdict)})
			rep.Add(report.Finding{Rule: rule, Severity: report.Error, Path: r.Path, Line: max(r.Line, 1), Col: 1, Message: string(r.Verdict) + ": " + r.Reason, Kind: string(r.Kind), ID: string(r.ID)})
		}
		for _, w := range r.Warnings {
			rule := "verify/warning"
			rep.AddRule(report.Rule{ID: rule, Short: "Verified, with something to act on: a key that expires soon, or a v1 signature.", URL: docsBase + "verify.md#warnings"})
			rep.Add(report.Finding{Rule: rule, Severity: report.Warning, Path: r.Path, Line: max(r.Line, 1), Col: 1, Message: w, Kind: string(r.Kind), ID: string(r.ID)})
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
	if sum.Warnings > 0 {
		line += ", " + report.Plural(sum.Warnings, "warning")
	}
	return line
}

// renderReport writes a report in a format (summary is the JSON summary
// object, line the one-line summary of the other formats) and turns its
// error findings into exit code 1.
func (a *app) renderReport(rep *report.Report, line string, summary any, format string) error {
	if a.json {
		format = "json"
	}
	var err error
	switch format {
	case "text":
		err = report.WriteText(a.stdout, rep, line)
	case "json":
		err = report.WriteJSON(a.stdout, rep, summary)
	case "sarif":
		err = report.WriteSARIF(a.stdout, rep)
	case "github":
		err = report.WriteGitHub(a.stdout, rep, line, os.Getenv("GITHUB_STEP_SUMMARY"))
	default:
		return usageError("--format %q: use text, json, sarif or github", format)
	}
	if err != nil {
		return err
	}
	if rep.ExitCode() != 0 {
		return &exitError{code: ExitFindings, err: fmt.Errorf("")}
	}
	return nil
}
