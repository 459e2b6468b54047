package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/project"
	"github.com/ryekit/rye/report"
	"github.com/ryekit/rye/sign"
)

func (a *app) signCommand() *cobra.Command {
	var formatFlag, spaceFlag, changedSince string
	var force, dryRun, allowContent, replaceOthers bool
	cmd := &cobra.Command{
		Use:   "sign [KIND] PATTERN...",
		Short: "Sign items with your key (ids, globs or file paths)",
		Long: `rye sign signs the items that the patterns select in the project (or --space
user): an id (hello/greet), a glob (* and ? within a segment, ** across
segments: "my-project/*", "my-project/**"), or a file path as pre-commit
passes it (.ai/tools/hello/greet.py). Without KIND, every kind of the
project (in a RyeOS 0.2+ project, its fifteen kinds and its manifest).

Metadata is validated first; an invalid item is refused with the reason and
the others are still signed. An item already validly signed by your key in
the requested format is left byte for byte alone (no timestamp churn)
unless --force. An item validly signed by another trusted key (a
teammate's, in any format) is kept and reported; --replace-other-signers
signs it with your key instead. Your key is loaded (and its passphrase
asked for) only when something needs signing, never for --dry-run. Each
file is replaced atomically. SOURCE_DATE_EPOCH, when set, is the signing
time, so that signing is reproducible.

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
			parts, err := a.signParts(spaceFlag, kinds, patterns)
			if err != nil {
				return err
			}
			res, err := project.Sign(parts, project.SignRun{Signing: project.Signing{Space: spaceFlag, Format: formatFlag}, Kinds: kinds,
				Force: force, DryRun: dryRun, ChangedSince: changedSince, FromChange: fromHook(), Key: a.signingKey, PublicKey: a.publicHalf,
				ReplaceOthers: replaceOthers, Progress: a.progress("signing"), AllowContent: allowContent})
			if err != nil {
				return a.requestError(err)
			}
			if a.verbose {
				for _, s := range res.Skipped {
					a.info("skipped %s: not an item", s)
				}
			}
			results, selected := res.Results, res.Selected
			switch {
			case selected == 0:
				a.info("nothing to sign: no item among the %d paths given", len(res.Skipped))
				return nil
			case changedSince != "" && len(results) == 0:
				a.info("nothing to sign: none of the %s changed since %s", report.Plural(selected, "item"), changedSince)
				return nil
			case changedSince != "":
				a.info("%s of %s changed since %s", report.Plural(len(results), "item"), report.Count(selected), changedSince)
			}
			return a.reportSigning(results, res.Fingerprint, res.Format, dryRun, allowContent)
		},
	}
	cmd.Flags().StringVar(&formatFlag, "format", "", "signature format `v1|v2|ryeos|r1` (default: sign.format of .ai/config/rye.yaml, else ryeos in a RyeOS 0.2+ project, v2 elsewhere)")
	cmd.Flags().StringVar(&spaceFlag, "space", "project", "sign items of `SPACE`: project or user")
	cmd.RegisterFlagCompletionFunc("format", fixedValues("v1", "v2", "ryeos", "r1"))
	cmd.RegisterFlagCompletionFunc("space", fixedValues("project", "user"))
	cmd.Flags().BoolVar(&force, "force", false, "re-sign items that are already validly signed")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "list what would be signed; write nothing (needs no passphrase)")
	cmd.Flags().BoolVar(&replaceOthers, "replace-other-signers", false, "sign with your key the items validly signed by another trusted key, which are otherwise kept")
	cmd.Flags().StringVar(&changedSince, "changed-since", "", "sign only the selected items whose content differs from git commit `REF`")
	cmd.Flags().BoolVar(&allowContent, "allow-content-findings", false, "sign items that have error-level content findings (hidden text, downloaded code run, credentials); the output lists them")
	a.keyFlag(cmd)
	return cmd
}

// signParts are the projects a signing run acts in: those that hold the
// patterns (file paths, as pre-commit passes them from a repository's
// root, name their own project), or the user space with --space user.
func (a *app) signParts(spaceFlag string, kinds []item.Kind, patterns []string) ([]project.Part, error) {
	if spaceFlag != "" && spaceFlag != "project" {
		p, err := a.open(project.Options{})
		if err != nil {
			return nil, err
		}
		if _, err := a.writable(p, "--space", spaceFlag); err != nil {
			return nil, err
		}
		return []project.Part{{Project: p, Patterns: patterns}}, nil
	}
	return a.openRun(false, project.Run{Kinds: kinds, Patterns: patterns})
}

// listed is how many items of one outcome rye sign lists before it
// counts the rest (-v lists them all).
const listed = 10

// reportSigning prints what a signing run did: every failure, the items
// kept for another signer (by signer), up to ten signed items (-v: all,
// and the unchanged ones), then the summary; any failure is exit 1.
func (a *app) reportSigning(results []sign.Result, fp string, format sign.Format, dryRun, allowContent bool) error {
	t := sign.Count(results)
	counts, over := t.Counts, 0 // over: items signed over content findings
	for _, r := range results {
		if r.Outcome != sign.OutcomeFailed && len(r.Content) > 0 {
			over++
		}
	}
	if a.json {
		if err := writeJSON(a.stdout, sign.Summarize(fp, format, results, allowContent)); err != nil {
			return err
		}
	} else {
		shown := 0
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
			case r.Outcome == sign.OutcomeKept, a.quiet, r.Outcome == sign.OutcomeUnchanged && !a.verbose:
			case r.Outcome == sign.OutcomeUnchanged || a.verbose || shown < listed:
				note := ""
				if r.Note != "" {
					note = ": " + r.Note
				}
				fmt.Fprintf(a.stdout, "%-10s %s %s (%s)%s\n", r.Outcome, r.Kind, r.ID, r.Display, note)
				shown++
			}
		}
		if more := counts[sign.OutcomeSigned] + counts[sign.OutcomeWouldSign] - shown; more > 0 && !a.quiet {
			fmt.Fprintf(a.stdout, "… and %s more (-v lists them)\n", report.Count(more))
		}
		for _, who := range t.Signers {
			rs := t.Kept[who]
			if len(rs) == 1 || a.verbose {
				for _, r := range rs {
					fmt.Fprintf(a.stdout, "kept       %s %s (%s): signed by %s; kept — pass --replace-other-signers to sign it yourself\n", r.Kind, r.ID, r.Display, who)
				}
				continue
			}
			fmt.Fprintf(a.stdout, "kept       %s signed by %s (%s %s, …; -v lists them); kept — pass --replace-other-signers to sign them yourself\n", report.Plural(len(rs), "item"), who, rs[0].Kind, rs[0].ID)
		}
		verb := "signed"
		if dryRun {
			verb = "would sign"
		}
		if !a.quiet {
			keptText := ""
			if n := counts[sign.OutcomeKept]; n > 0 {
				keptText = ", " + report.Count(n) + " kept"
			}
			fmt.Fprintf(a.stdout, "%s: %s %s, %s unchanged%s, %s failed (key %s, %s)\n", report.Plural(len(results), "item"),
				report.Count(counts[sign.OutcomeSigned]+counts[sign.OutcomeWouldSign]), verb, report.Count(counts[sign.OutcomeUnchanged]), keptText, report.Count(counts[sign.OutcomeFailed]), orDash(fp), format)
		}
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
