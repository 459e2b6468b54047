package cli

import (
	"fmt"

	"github.com/spf13/cobra"

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
	vreq, settings, err := a.verifyRequest(vo, args)
	if err != nil {
		return err
	}
	analyzers, severity, err := lintSettings(lo, settings)
	if err != nil {
		return err
	}
	res, err := lint.Check(lint.CheckRequest{Verify: vreq, Options: lint.Options{Analyzers: analyzers, Severity: severity}})
	if err != nil {
		return requestError(err)
	}
	if res.Verify.CacheErr != nil && a.verbose {
		a.info("verdict cache not saved: %v", res.Verify.CacheErr)
	}
	run := a.verifyReport(res.Verify, settings)
	rep := lintReport(res.Lint, "rye check")
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
