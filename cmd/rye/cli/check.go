package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/lint"
	"github.com/ryekit/rye/report"
)

func (a *app) checkCommand() *cobra.Command {
	vo := &verifyOptions{}
	lo := &lintOptions{}
	cmd := &cobra.Command{
		Use:   "check [KIND] [PATTERN...]",
		Short: "Verify and lint items: the one command for CI and pre-commit",
		Long: `rye check verifies the selected items (all project items by default) and
lints the very bytes it verified, in one report with one exit code. It takes
the flags of rye verify and of rye lint: in CI, --trust-ref <base commit>
--format github; in a pre-commit hook, --staged.`,
		ValidArgsFunction: a.completeKindOrID,
		RunE: func(cmd *cobra.Command, args []string) error {
			if lo.fix || lo.diff {
				return usageError("rye check does not change files: use rye lint --fix or --diff")
			}
			return a.runCheck(vo, lo, args)
		},
	}
	vo.flags(cmd)
	lo.flags(cmd, false)
	cmd.Flags().MarkHidden("fix")
	cmd.Flags().MarkHidden("diff")
	return cmd
}

// checkSummary is the summary object of check's JSON output.
type checkSummary struct {
	verifySummary
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
}

func (a *app) runCheck(vo *verifyOptions, lo *lintOptions, args []string) error {
	analyzers, severity, err := a.lintSettings(lo)
	if err != nil {
		return err
	}
	run, err := a.verifyAll(vo, args)
	if err != nil {
		return err
	}
	ss, err := a.getSpaces()
	if err != nil {
		return err
	}
	extractors, err := ss.Extractors()
	if err != nil {
		return usageError("%v", err)
	}
	env := &lint.Env{Spaces: ss, Files: itemFiles(run.sources), Extractors: extractors}
	if len(args) == 0 && !vo.staged && vo.changedSince == "" && vo.space == "project" && ss.Project != nil {
		// A whole-project check also looks at what is not an item (the
		// items themselves were read once, for verification).
		odd, others, err := lint.LoadExtras(ss.Project, item.Kinds)
		if err != nil {
			return usageError("%v", err)
		}
		for _, f := range odd {
			if !f.Oddity.Symlink {
				env.Files = append(env.Files, f)
			}
		}
		env.Others = others
	}
	// Verification findings come from the verification run, whatever the
	// lint configuration says: disabling or softening the signature
	// analyzer must never let an unverified item pass rye check. The
	// analyzer still looks for misplaced signature lines (it verifies
	// nothing without env.Verify).
	res, err := lint.Lint(env, lint.Options{Analyzers: analyzers, Severity: severity})
	if err != nil {
		return usageError("%v", err)
	}
	rep := lintReport(res, "rye check")
	rep.Items, rep.Notes = run.rep.Items, run.rep.Notes
	for _, f := range run.rep.Findings {
		rep.Add(f)
		rep.AddRule(run.rep.Rules[f.Rule])
	}
	sum := checkSummary{verifySummary: run.sum, Errors: rep.Count(report.Error), Warnings: rep.Count(report.Warning)}
	line := fmt.Sprintf("%s: %s; %s", report.Plural(sum.Items, "item"),
		report.Join(report.Count(sum.Verified)+" verified", report.Count(sum.Failed)+" failed"),
		report.Join(report.Plural(sum.Errors, "error"), report.Plural(sum.Warnings, "warning")))
	if sum.Errors+sum.Warnings == 0 {
		line = fmt.Sprintf("%s: %s verified; no problems", report.Plural(sum.Items, "item"), report.Count(sum.Verified))
	}
	return a.renderReport(rep, line, sum, vo.format)
}
