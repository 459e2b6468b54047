package cli

import (
	"errors"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/ryekit/rye/executor"
	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/item/syntax"
	"github.com/ryekit/rye/params"
)

func (a *app) threadCommand() *cobra.Command {
	var o params.Own
	cmd := &cobra.Command{
		Use:   "thread DIRECTIVE [inputs] [--model M] [--max-spend N] [--max-turns N] [--async]",
		Short: "Run a directive in an agent thread (needs a thread runner bundle)",
		Long: `rye thread verifies a directive, validates its inputs, and executes the tool
rye/agent/threads/thread_directive with {directive_id, inputs, model,
max_spend, max_turns, async}, through the same verified executor as
rye execute tool. Flags named like the directive's declared inputs are
inputs; --model, --max-spend, --max-turns and --async are the thread's
(unless the directive declares an input of that name). rye itself ships no
thread runner: a bundle that provides rye/agent/threads/thread_directive
must be installed, or rye thread fails saying so.`,
		Args:              cobra.MinimumNArgs(1),
		ValidArgsFunction: positional(a.ids(allItems, item.Directive)),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, rest, x, err := a.itemCall(args, &o)
			if err != nil {
				return err
			}
			parse := func(schema *syntax.Node) (map[string]any, error) {
				ps, err := params.Parse(schema, rest, o.Params, os.ReadFile)
				return ps, asUsage(err)
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			r, err := x.Thread(ctx, id, parse, o.DryRun, o.Timeout)
			var nt *executor.NoThreadRunnerError
			switch {
			case errors.As(err, &nt):
				return usageError("%v", err)
			case err != nil && r != nil && r.Type == string(item.Directive):
				return a.itemError(r, err)
			case err != nil:
				if uerr := prepareUsage(r.Chain, err); uerr != nil {
					return uerr
				}
			}
			return a.printResult(r)
		},
	}
	addExecFlags(cmd, &o)
	return cmd
}
