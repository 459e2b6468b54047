package cli

import (
	"errors"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ryekit/rye/executor"
	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/item/syntax"
	"github.com/ryekit/rye/params"
	"github.com/ryekit/rye/space"
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
		ValidArgsFunction: a.completeFirstID(item.Directive),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, rest, x, err := a.itemCall(args, &o)
			if err != nil {
				return err
			}
			if _, err := x.Spaces.Resolve(item.Tool, executor.ThreadRunner, nil); err != nil {
				var nf *space.NotFoundError
				if errors.As(err, &nf) {
					return usageError("no thread runner is installed: rye thread runs the tool %s, which is in no space (searched %s); install a bundle that provides it, or follow the directive yourself: rye execute directive %s",
						executor.ThreadRunner, strings.Join(nf.Searched, ", "), id)
				}
				return findings("%v", err)
			}
			// The directive must verify and take these inputs before any
			// thread starts; the flags are read against its verified
			// declarations.
			var runnerParams map[string]any
			inputsOf := func(md *item.Metadata) (map[string]any, error) {
				parsed, err := params.Parse(executor.ThreadSchema(md), rest, o.Params, os.ReadFile)
				if err != nil {
					return nil, asUsage(err)
				}
				inputs, runner, err := executor.SplitThreadArgs(md, id, parsed)
				runnerParams = runner
				return inputs, asUsage(err)
			}
			if r, err := x.Execute(cmd.Context(), &executor.Request{Kind: item.Directive, ID: id, Inputs: inputsOf, DryRun: true}); err != nil {
				return a.itemError(r, err)
			}
			runner := func(*syntax.Node) (map[string]any, error) { return runnerParams, nil }
			return a.runTool(cmd.Context(), x, executor.ThreadRunner, runner, &o)
		},
	}
	addExecFlags(cmd, &o)
	return cmd
}
