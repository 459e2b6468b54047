package cli

import (
	"github.com/spf13/cobra"
)

func (a *app) checkCommand() *cobra.Command {
	o := &verifyOptions{}
	cmd := &cobra.Command{
		Use:   "check [KIND] [PATTERN...]",
		Short: "Verify (and lint) items: the one command for CI and pre-commit",
		Long: `rye check verifies the selected items (all project items by default) and
reports everything in one report with one exit code. It takes the flags of
rye verify: in CI, --trust-ref <base commit> --format github; in a
pre-commit hook, --staged.`,
		ValidArgsFunction: a.completeKindOrID,
		RunE: func(cmd *cobra.Command, args []string) error {
			rep, summary, err := a.runVerify(o, args)
			if err != nil {
				return err
			}
			rep.Tool = "rye check"
			return a.writeReport(rep, summary, o.format)
		},
	}
	o.flags(cmd)
	return cmd
}
