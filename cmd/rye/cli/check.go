package cli

import (
	"github.com/spf13/cobra"

	"github.com/ryekit/rye/lint"
	"github.com/ryekit/rye/project"
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
--format github (add --sarif FILE for code scanning, in the same run); in a
pre-commit hook, --staged. A file path is checked in the project that holds
it, so pre-commit can pass the staged files of every project of a
repository; -C DIR (repeatable) and --all-projects check several projects.`,
		ValidArgsFunction: a.completeKindOrID(projectItems),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.useOutputs(cmd); err != nil {
				return err
			}
			if lo.fix || lo.diff {
				return usageError("rye check does not change files: use rye lint --fix or --diff")
			}
			s := a.openReport()
			rep, sum, err := a.runCheck(vo, lo, args, s)
			if err != nil {
				return a.failReport(s, err)
			}
			return a.closeReport(s, rep, sum.Line(), sum)
		},
	}
	vo.flags(cmd)
	lo.flags(cmd, false)
	a.out.flags(cmd)
	cmd.Flags().MarkHidden("fix")
	cmd.Flags().MarkHidden("diff")
	return cmd
}

// runCheck verifies and lints the projects of a run into one report (its
// items go to s).
func (a *app) runCheck(vo *verifyOptions, lo *lintOptions, args []string, s *report.Stream) (*report.Report, report.CheckSummary, error) {
	parts, req, err := a.verifyParts(vo, args, s)
	if err != nil {
		return nil, report.CheckSummary{}, err
	}
	rep, err := a.merged("rye check", parts, func(p project.Part) (*report.Report, error) {
		opts, err := lint.OptionsFor(p.Settings, lo.enable, lo.disable)
		if err != nil {
			return nil, err
		}
		opts.Progress = a.progress("linting: analyzers")
		c, err := lint.Check(lint.CheckRequest{Verify: request(req, p, parts), Options: opts})
		if err != nil {
			return nil, err
		}
		a.cacheNotSaved(c.Verify.CacheErr)
		return c.Report(notes(p.Settings), p.Spaces.Project, a.verbose), nil
	})
	if err != nil {
		return nil, report.CheckSummary{}, err
	}
	return rep, rep.CheckCounts(len(parts)), nil
}
