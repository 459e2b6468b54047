package cli

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/ryekit/rye/config"
	"github.com/ryekit/rye/gitrepo"
	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/report"
	"github.com/ryekit/rye/sign"
	"github.com/ryekit/rye/space"
	"github.com/ryekit/rye/verify"
)

func (a *app) signCommand() *cobra.Command {
	var formatFlag, spaceFlag, changedSince string
	var force, dryRun, allowContent bool
	cmd := &cobra.Command{
		Use:   "sign [KIND] PATTERN...",
		Short: "Sign items with your key (ids, globs or file paths)",
		Long: `rye sign signs the items that the patterns select in the project (or --space
user): an id (hello/greet), a glob (* and ? within a segment, ** across
segments: "my-project/*", "my-project/**"), or a file path as pre-commit
passes it (.ai/tools/hello/greet.py). Without KIND, all three kinds.

Metadata is validated first; an invalid item is refused with the reason and
the others are still signed. An item already validly signed by your key in
the requested format is left byte for byte alone (no timestamp churn)
unless --force. Each file is replaced atomically. SOURCE_DATE_EPOCH, when
set, is the signing time, so that signing is reproducible.

With --changed-since REF only the selected items whose content differs from
git commit REF (new or edited since) are signed: rye sign --changed-since
main "**" signs what a branch changed and leaves the rest alone.

An item with an error-level finding of rye's content rules (hidden Unicode
text, bidi controls, hidden instructions, downloaded code that is run, a
credential) is refused, and the finding is shown with what is hidden made
visible: a signature must not vouch for bytes the signer was never shown.
--allow-content-findings signs it anyway, and the output says so.`,
		Args:              cobra.MinimumNArgs(1),
		ValidArgsFunction: a.completeKindOrID(projectItems),
		RunE: func(cmd *cobra.Command, args []string) error {
			kinds, patterns := splitKind(args)
			if len(patterns) == 0 {
				return usageError("no PATTERN: name the items to sign (an id, a glob such as \"my-project/**\", or a file path)")
			}
			when, err := signingTime()
			if err != nil {
				return err
			}
			groups, err := a.signGroups(spaceFlag, kinds, patterns)
			if err != nil {
				return err
			}
			// Each project's items are signed in its format, checked by its
			// extractor rules: file paths in several projects (pre-commit,
			// from the repository's root) sign each in its own project,
			// through one sign.Run each; the key is loaded once.
			var key *sign.Key
			loadKey := func() (*sign.Key, error) {
				if key == nil {
					k, err := a.signingKey()
					if err != nil {
						return nil, err
					}
					key = k
				}
				return key, nil
			}
			var results []sign.Result
			var format sign.Format
			skipped, selected := 0, 0
			for i, g := range groups {
				f, err := signFormat(formatFlag, g.settings.SignFormat())
				if err != nil {
					return err
				}
				if i == 0 {
					format = f
				}
				rules, err := g.spaces.Extractors()
				if err != nil {
					return asUsage(err)
				}
				req := sign.Request{Space: g.space, Kinds: kinds, Patterns: g.patterns, WorkDir: a.workDir(), Key: loadKey,
					Format: f, Time: when, Force: force, DryRun: dryRun, Rules: rules, Progress: a.progress("signing"), AllowContent: allowContent}
				if changedSince != "" {
					sp := g.space
					req.Changed = func(items []space.Found) ([]space.Found, error) { return changedItems(sp, items, changedSince) }
				}
				out, err := sign.Run(req)
				if err != nil {
					return asUsage(err)
				}
				if a.verbose {
					for _, s := range out.Skipped {
						a.info("skipped %s: not an item", s)
					}
				}
				skipped += len(out.Skipped)
				selected += out.Selected
				results = append(results, out.Results...)
			}
			switch {
			case selected == 0:
				a.info("nothing to sign: no item among the %d paths given", skipped)
				return nil
			case changedSince != "" && len(results) == 0:
				a.info("nothing to sign: none of the %s changed since %s", report.Plural(selected, "item"), changedSince)
				return nil
			case changedSince != "":
				a.info("%s of %s changed since %s", report.Plural(len(results), "item"), report.Count(selected), changedSince)
			}
			if key == nil { // every item failed before the key was needed
				return a.reportSigning(results, &sign.Key{}, format, dryRun, allowContent)
			}
			return a.reportSigning(results, key, format, dryRun, allowContent)
		},
	}
	cmd.Flags().StringVar(&formatFlag, "format", "", "signature format `v1|v2` (default: sign.format of .ai/config/rye.yaml, else v2)")
	cmd.Flags().StringVar(&spaceFlag, "space", "project", "sign items of `SPACE`: project or user")
	cmd.RegisterFlagCompletionFunc("format", fixedValues("v1", "v2"))
	cmd.RegisterFlagCompletionFunc("space", fixedValues("project", "user"))
	cmd.Flags().BoolVar(&force, "force", false, "re-sign items that are already validly signed")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "list what would be signed; write nothing")
	cmd.Flags().StringVar(&changedSince, "changed-since", "", "sign only the selected items whose content differs from git commit `REF`")
	cmd.Flags().BoolVar(&allowContent, "allow-content-findings", false, "sign items that have error-level content findings (hidden text, downloaded code run, credentials); the output lists them")
	a.keyFlag(cmd)
	return cmd
}

// changedItems keeps the items whose bytes differ from those of git
// commit ref: new and edited ones, and any that cannot be read, so that the
// signer still refuses a link with its reason. The comparison is
// gitrepo.ChangedSince's, as for rye verify --changed-since.
func changedItems(sp *space.Space, items []space.Found, ref string) ([]space.Found, error) {
	repo, prefix, err := gitrepo.OpenAt(sp.Root)
	if err != nil {
		return nil, usageError("--changed-since: %v", err)
	}
	cands := gitrepo.Candidates{
		Rels: make([]string, len(items)),
		Read: func(i int) ([]byte, error) { return items[i].Space.ReadFile(items[i].Rel) },
		File: func(i int) string { return filepath.Join(items[i].Space.AI(), filepath.FromSlash(items[i].Rel)) },
	}
	for i, f := range items {
		cands.Rels[i] = f.Rel
	}
	changed, _, err := repo.ChangedSince(ref, path.Join(prefix, space.AIDir), cands, true)
	if err != nil {
		return nil, usageError("--changed-since: %v", err)
	}
	out := make([]space.Found, len(changed))
	for i, c := range changed {
		out[i] = items[c.Index]
	}
	return out, nil
}

func signFormat(flag, configured string) (sign.Format, error) {
	if flag == "" {
		flag = configured
	}
	if flag == "" {
		return sign.V2, nil
	}
	f, err := sign.ParseFormat(flag)
	return f, asUsage(err)
}

// signingTime is SOURCE_DATE_EPOCH when set (reproducible builds), else now.
func signingTime() (time.Time, error) {
	t, err := sign.SigningTime(os.Getenv)
	if err != nil {
		return time.Time{}, usageError("%v", err)
	}
	return t, nil
}

// writableSpace is the project or the user space, for verbs that write.
func (a *app) writableSpace(flag, name string) (*space.Space, error) {
	switch name {
	case "", "project":
		return a.project()
	case "user":
		ss, err := a.getSpaces()
		if err != nil {
			return nil, err
		}
		if ss.User == nil {
			return nil, usageError("no user space: set USER_SPACE or HOME")
		}
		return ss.User, nil
	}
	return nil, usageError("%s %q: use project or user (the system space is read-only)", flag, name)
}

// signGroup is one project's share of a signing run (or the user space's).
type signGroup struct {
	spaces   *space.Spaces
	space    *space.Space
	patterns []string
	settings *config.Settings
}

// signGroups splits the patterns among the projects that hold them (file
// paths, as pre-commit passes them from a repository's root, name their
// own project: verify.Projects), or gives them all to the user space.
func (a *app) signGroups(spaceFlag string, kinds []item.Kind, patterns []string) ([]signGroup, error) {
	ss, err := a.getSpaces()
	if err != nil {
		return nil, err
	}
	if spaceFlag != "" && spaceFlag != "project" {
		sp, err := a.writableSpace("--space", spaceFlag)
		if err != nil {
			return nil, err
		}
		s, err := a.settings(verify.SettingsOptions{})
		if err != nil {
			return nil, err
		}
		return []signGroup{{spaces: ss, space: sp, patterns: patterns, settings: s}}, nil
	}
	parts, err := verify.Projects{Request: verify.Request{Spaces: ss, Kinds: kinds, Patterns: patterns, WorkDir: a.workDir()}}.Parts()
	if err != nil {
		return nil, a.requestError(err)
	}
	out := make([]signGroup, len(parts))
	for i, p := range parts {
		out[i] = signGroup{spaces: p.Request.Spaces, space: p.Request.Spaces.Project, patterns: p.Request.Patterns, settings: p.Settings}
	}
	return out, nil
}

// reportSigning prints one line per signed, would-be-signed and failed item
// (unchanged ones with -v), then the summary; any failure is exit 1.
func (a *app) reportSigning(results []sign.Result, key *sign.Key, format sign.Format, dryRun, allowContent bool) error {
	counts := map[sign.Outcome]int{}
	over := 0 // items signed over content findings
	for _, r := range results {
		counts[r.Outcome]++
		if r.Outcome != sign.OutcomeFailed && len(r.Content) > 0 {
			over++
		}
	}
	if a.json {
		type findingJSON struct {
			Rule    string `json:"rule"`
			Line    int    `json:"line"`
			Column  int    `json:"column"`
			Message string `json:"message"`
			Shown   string `json:"shown"`
		}
		type resultJSON struct {
			Kind    item.Kind     `json:"kind"`
			ID      item.ID       `json:"id"`
			Path    string        `json:"path"`
			Result  string        `json:"result"`
			Error   string        `json:"error,omitempty"`
			Content []findingJSON `json:"content_findings,omitempty"`
		}
		out := struct {
			Fingerprint  string       `json:"fingerprint"`
			Format       string       `json:"format"`
			AllowContent bool         `json:"allow_content_findings"`
			Results      []resultJSON `json:"results"`
		}{Fingerprint: key.Fingerprint, Format: format.String(), AllowContent: allowContent}
		for _, r := range results {
			rj := resultJSON{Kind: r.Kind, ID: r.ID, Path: r.Display, Result: r.Outcome.String()}
			if r.Err != nil {
				rj.Error = r.Err.Error()
			}
			for _, f := range r.Content {
				rj.Content = append(rj.Content, findingJSON{Rule: f.Rule, Line: f.Line, Column: f.Col, Message: f.Message, Shown: f.Shown})
			}
			out.Results = append(out.Results, rj)
		}
		if err := writeJSON(a.stdout, out); err != nil {
			return err
		}
	} else {
		for _, r := range results {
			switch {
			case r.Outcome == sign.OutcomeFailed && errors.Is(r.Err, sign.ErrContent):
				fmt.Fprintf(a.stdout, "failed     %s %s (%s): not signed: %s a signature would vouch for unseen (fix them, or sign with --allow-content-findings):\n", r.Kind, r.ID, r.Display, report.Plural(len(r.Content), "error-level content finding"))
				a.printContent(r)
			case r.Outcome == sign.OutcomeFailed:
				fmt.Fprintf(a.stdout, "failed     %s %s (%s): %v\n", r.Kind, r.ID, r.Display, r.Err)
			case len(r.Content) > 0:
				fmt.Fprintf(a.stdout, "%-10s %s %s (%s) over %s (--allow-content-findings):\n", r.Outcome, r.Kind, r.ID, r.Display, report.Plural(len(r.Content), "error-level content finding"))
				a.printContent(r)
			case r.Outcome != sign.OutcomeUnchanged || a.verbose:
				fmt.Fprintf(a.stdout, "%-10s %s %s (%s)\n", r.Outcome, r.Kind, r.ID, r.Display)
			}
		}
		verb := "signed"
		if dryRun {
			verb = "would sign"
		}
		fmt.Fprintf(a.stdout, "%s: %s %s, %s unchanged, %s failed (key %s, %s)\n", report.Plural(len(results), "item"),
			report.Count(counts[sign.OutcomeSigned]+counts[sign.OutcomeWouldSign]), verb, report.Count(counts[sign.OutcomeUnchanged]), report.Count(counts[sign.OutcomeFailed]), key.Fingerprint, format)
	}
	if over > 0 && !a.json {
		fmt.Fprintf(a.stdout, "--allow-content-findings: %s signed over error-level content findings\n", report.Plural(over, "item"))
	}
	if n := counts[sign.OutcomeFailed]; n > 0 {
		return findings("%s not signed", report.Plural(n, "item"))
	}
	return nil
}

// printContent lists the content findings of a signing result, each with
// its line as it reads once what is hidden is made visible.
func (a *app) printContent(r sign.Result) {
	for _, f := range r.Content {
		fmt.Fprintf(a.stdout, "    %s:%d:%d: %s [%s]\n      line: %s\n", r.Display, f.Line, f.Col, f.Message, f.Rule, f.Shown)
	}
}
