package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/ryekit/rye/executor"
	"github.com/ryekit/rye/internal/tty"
	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/item/syntax"
	"github.com/ryekit/rye/params"
	"github.com/ryekit/rye/project"
	"github.com/ryekit/rye/space"
)

func (a *app) executeCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "execute KIND ID [params]",
		Short: "Run a tool, or return a directive or knowledge entry, after verifying it",
		Long: `rye execute verifies before anything runs: every element of a tool's chain
(the tool, its runtimes, the primitive), its verify_deps files and its
runtime_lib files must be verified, or nothing starts. Then the chain is
validated, the lockfile checked, the parameters validated against the tool's
schema, and the tool runs from a private copy of its verified bytes. The
result is one JSON object on stdout.

Parameters come from the tool's schema: --name value, --name=value, bare
--flag for booleans, repeated flags or JSON for arrays, JSON for objects,
one positional for the primary parameter, --params JSON|@file underneath.
'rye execute tool ID --help' lists them.`,
	}
	cmd.AddCommand(a.executeToolCommand(), a.executeItemCommand(item.Directive), a.executeItemCommand(item.Knowledge))
	verbGroup(cmd)
	return cmd
}

// addExecFlags declares rye's flags (before the id; after it, params.Own
// finds them) and stops flag parsing at the first positional, so that the
// tool's flags reach it untouched.
func addExecFlags(cmd *cobra.Command, o *params.Own) {
	cmd.Flags().BoolVar(&o.DryRun, "dry-run", false, "verify and validate, print the chain, run nothing")
	cmd.Flags().StringVar(&o.Params, "params", "", "parameters as a JSON object, or @FILE")
	cmd.Flags().DurationVar(&o.Timeout, "timeout", 0, "kill the tool after `DURATION` (e.g. 30s), replacing its configured timeout")
	cmd.Flags().SetInterspersed(false)
}

func (a *app) executeToolCommand() *cobra.Command {
	var o params.Own
	cmd := &cobra.Command{
		Use:               "tool ID [params]",
		Short:             "Run a tool after verifying its whole chain",
		Args:              cobra.MinimumNArgs(1),
		ValidArgsFunction: a.completeToolParams,
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := item.ParseID(args[0])
			if err != nil {
				return usageError("%v", err)
			}
			x, err := a.executor()
			if err != nil {
				return err
			}
			loc, err := x.Spaces.Resolve(item.Tool, id, nil)
			if err != nil {
				return resolveError(err)
			}
			if params.WantsHelp(args[1:]) {
				return a.toolHelp(x, loc)
			}
			// The flags are typed by the tool's schema as it verified.
			parse := func(schema *syntax.Node) (map[string]any, error) {
				rest, err := o.Split(args[1:], schema.Get("properties").Get("timeout") != nil)
				if err != nil {
					return nil, asUsage(err)
				}
				ps, err := params.Parse(schema, rest, o.Params, os.ReadFile)
				return ps, asUsage(err)
			}
			return a.runTool(cmd.Context(), x, id, parse, &o)
		},
	}
	addExecFlags(cmd, &o)
	return cmd
}

// resolveError: an item that is nowhere is a usage error (exit 2); one
// that is refused (a symbolic link, unreadable) is a finding (exit 1).
func resolveError(err error) error {
	var nf *space.NotFoundError
	if errors.As(err, &nf) {
		return asUsage(err)
	}
	return findings("%v", err)
}

// prepareUsage is the usage error (exit 2) that a failed Prepare is, or
// nil when it is a finding (exit 1) or no error: bad flags or parameters,
// and a tool that is nowhere (as opposed to a link of its chain, whose
// partial chain is not empty, that is missing).
func prepareUsage(links []executor.Link, err error) error {
	var pe *params.Error
	var ee *exitError
	var nf *space.NotFoundError
	switch {
	case errors.As(err, &ee):
		return err
	case errors.As(err, &pe), errors.As(err, &nf) && len(links) == 0:
		return asUsage(err)
	}
	return nil
}

// toolHelp prints a tool's parameters from its schema (the executor's help:
// read without running anything; labelled when the tool does not verify).
func (a *app) toolHelp(x *executor.Executor, loc *space.Located) error {
	h, err := x.Help(loc)
	if err != nil {
		return findings("%v", err)
	}
	if r := h.Verification; r.Verdict.Failed() {
		fmt.Fprintf(a.stderr, "rye: warning: NOT VERIFIED: %s (%s): %s: %s\n", h.Item.ID, h.Item.Path, r.Verdict, r.Reason)
	}
	fmt.Fprintf(a.stdout, "usage: rye execute tool %s [params] [--dry-run] [--params JSON|@FILE] [--timeout DURATION]\n\n", h.Item.ID)
	if d := h.Metadata.Str("description"); d != "" {
		fmt.Fprintf(a.stdout, "%s\n\n", d)
	}
	fmt.Fprintf(a.stdout, "%s (%s)\n\nparameters:\n%s", h.Item.Path, loc.Space.Label, params.Usage(h.Metadata.Schema()))
	return nil
}

// executor assembles the Executor over the project's spaces, its trust
// store of the working tree and its policy (executor.New).
func (a *app) executor() (*executor.Executor, error) {
	p, err := a.open(project.Options{})
	if err != nil {
		return nil, err
	}
	a.warnTrust(p)
	x, noCache, err := executor.New(p.Spaces, p.Trust, p.Policy, p.Settings, a.workDir())
	if err != nil {
		return nil, usageError("%v", err)
	}
	if noCache != nil {
		fmt.Fprintf(a.stderr, "rye: warning: no user cache folder (%v): run directories go in %s\n", noCache, os.TempDir())
	}
	return x, nil
}

// runTool runs a tool through the execute pipeline (executor.Execute) and
// prints the result; given builds the parameters from the verified
// schema. Usage mistakes (bad flags, parameters) are exit 2; everything
// else that stops the tool, or a tool that fails, is exit 1 with the
// result JSON on stdout.
func (a *app) runTool(ctx context.Context, x *executor.Executor, id item.ID, given func(*syntax.Node) (map[string]any, error), o *params.Own) error {
	if err := scrubSecrets(); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	req := &executor.Request{Kind: item.Tool, ID: id}
	req.ToolParams = func(schema *syntax.Node) (map[string]any, error) {
		ps, err := given(schema) // reads rye's own flags among the tool's
		req.DryRun, req.Timeout = o.DryRun, o.Timeout
		return ps, err
	}
	r, err := x.Execute(ctx, req)
	if uerr := prepareUsage(r.Chain, err); uerr != nil {
		return uerr
	}
	return a.printResult(r)
}

// printResult writes the result JSON on stdout, a one-line summary on a
// terminal's stderr, and turns a failure into exit 1.
func (a *app) printResult(r *executor.Result) error {
	if err := writeJSON(a.stdout, r); err != nil {
		return err
	}
	if tty.IsTerminal(a.stderr) && !a.quiet {
		what := "ran"
		if r.DryRun {
			what = "verified and validated (dry run; nothing ran)"
		}
		if r.Succeeded() {
			fmt.Fprintf(a.stderr, "✓ %s %s %s in %d ms\n", r.Type, r.ItemID, what, r.Metadata.DurationMS)
		}
		if r.Confinement != nil {
			fmt.Fprintf(a.stderr, "  %s\n", r.Confinement.Summary())
		}
	}
	if !r.Succeeded() {
		if !r.Ran {
			return findings("%s", r.Error) // names the item already
		}
		return findings("%s %s: %s", r.Type, r.ItemID, r.Error)
	}
	return nil
}

func (a *app) executeItemCommand(k item.Kind) *cobra.Command {
	var o params.Own
	use := string(k) + " ID"
	short := "Verify a knowledge entry and return it"
	if k == item.Directive {
		use += " [inputs]"
		short = "Verify a directive, validate its inputs and return it with the inputs interpolated"
	}
	cmd := &cobra.Command{
		Use:               use,
		Short:             short,
		Args:              cobra.MinimumNArgs(1),
		ValidArgsFunction: positional(a.ids(allItems, k)),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, rest, x, err := a.itemCall(args, &o)
			if err != nil {
				return err
			}
			r, err := x.Execute(cmd.Context(), &executor.Request{Kind: k, ID: id, Inputs: a.itemInputs(k, rest, o.Params), DryRun: o.DryRun})
			if err != nil {
				return a.itemError(r, err)
			}
			return a.printResult(r)
		},
	}
	addExecFlags(cmd, &o)
	return cmd
}

// itemInputs reads a directive's inputs from the command line, typed by
// its declared inputs once it has verified (knowledge takes none).
func (a *app) itemInputs(k item.Kind, rest []string, paramsFlag string) func(*item.Metadata) (map[string]any, error) {
	return func(md *item.Metadata) (map[string]any, error) {
		if k != item.Directive {
			if len(rest) > 0 || paramsFlag != "" {
				return nil, usageError("a knowledge entry takes no inputs, found %s", strings.Join(rest, " "))
			}
			return nil, nil
		}
		inputs, err := params.Parse(executor.InputSchema(md), rest, paramsFlag, os.ReadFile)
		return inputs, asUsage(err)
	}
}

// itemError maps the failure of a directive or knowledge call: usage
// mistakes and unknown items are exit 2, anything else (an item that does
// not verify or parse) is its result on stdout and exit 1.
func (a *app) itemError(r *executor.Result, err error) error {
	var ie *executor.InputError
	var nf *space.NotFoundError
	var ee *exitError
	switch {
	case errors.As(err, &ee):
		return err
	case errors.As(err, &ie), errors.As(err, &nf):
		return asUsage(err)
	}
	return a.printResult(r)
}

func (a *app) lockCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "lock tool ID",
		Short: "Write or refresh a tool's lockfile (its verified chain, pinned by hash)",
		Long: `rye lock builds and verifies a tool's chain and writes
.ai/lockfiles/<id>@<version>.lock.json in the project, replacing any lockfile
there. rye execute then refuses to run the tool when an element of its chain
changes, moves to another space or is shadowed, until the lock is refreshed.`,
		Args:              cobra.ExactArgs(2),
		ValidArgsFunction: positional(words("tool"), a.ids(runnableTools, item.Tool)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if args[0] != "tool" {
				return usageError("rye lock %s: only tools have lockfiles (rye lock tool ID)", args[0])
			}
			id, err := item.ParseID(args[1])
			if err != nil {
				return usageError("%v", err)
			}
			x, err := a.executor()
			if err != nil {
				return err
			}
			if x.Spaces.Project == nil {
				return a.requestError(&project.NoProjectError{Dir: a.workDir()})
			}
			path, p, err := x.LockTool(id)
			if err != nil {
				if uerr := prepareUsage(p.Links, err); uerr != nil {
					return uerr
				}
				return findings("%v", err)
			}
			if a.json {
				return writeJSON(a.stdout, map[string]any{"lockfile": path, "chain": p.Links})
			}
			fmt.Fprintln(a.stdout, path)
			a.info("locked %s: %d elements pinned", id, len(p.Links))
			return nil
		},
	}
}

// completeToolParams completes tool ids, then the tool's parameter names
// and rye's own flags.
func (a *app) completeToolParams(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) == 0 {
		return a.itemIDs(cmd, runnableTools, []item.Kind{item.Tool}, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
	if !strings.HasPrefix(toComplete, "-") {
		return nil, cobra.ShellCompDirectiveDefault
	}
	ss, err := a.spaces()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	id, err := item.ParseID(args[0])
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	loc, err := ss.Resolve(item.Tool, id, nil)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var schema *syntax.Node
	if h, err := (&executor.Executor{}).Help(loc); err == nil {
		schema = h.Metadata.Schema()
	}
	var out []string
	for _, name := range append(params.Names(schema), "--dry-run", "--params", "--timeout", "--help") {
		if strings.HasPrefix(name, toComplete) {
			out = append(out, name)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// itemCall reads the arguments of a directive or knowledge call: the id,
// then the caller's inputs with rye's own flags taken out, and the
// executor.
func (a *app) itemCall(args []string, o *params.Own) (item.ID, []string, *executor.Executor, error) {
	id, err := item.ParseID(args[0])
	if err != nil {
		return "", nil, nil, usageError("%v", err)
	}
	rest, err := o.Split(args[1:], false)
	if err != nil {
		return "", nil, nil, asUsage(err)
	}
	x, err := a.executor()
	return id, rest, x, err
}
