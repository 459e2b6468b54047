package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/ryekit/rye/executor"
	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/item/syntax"
	"github.com/ryekit/rye/params"
	"github.com/ryekit/rye/space"
	"github.com/ryekit/rye/verify"
)

// execFlags are rye's own flags of rye execute. Before the item id they
// are ordinary flags; after it, everything belongs to the tool except
// --dry-run, --params, --help and --timeout (the last only when the tool
// declares no parameter called timeout: then it is the tool's).
type execFlags struct {
	dryRun  bool
	params  string
	timeout time.Duration
	help    bool
}

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
	return cmd
}

// addExecFlags declares rye's flags (before the id) and stops flag parsing
// at the first positional, so that the tool's flags reach it untouched.
func addExecFlags(cmd *cobra.Command, o *execFlags) {
	cmd.Flags().BoolVar(&o.dryRun, "dry-run", false, "verify and validate, print the chain, run nothing")
	cmd.Flags().StringVar(&o.params, "params", "", "parameters as a JSON object, or @FILE")
	cmd.Flags().DurationVar(&o.timeout, "timeout", 0, "kill the tool after `DURATION` (e.g. 30s), replacing its configured timeout")
	cmd.Flags().SetInterspersed(false)
}

// splitRyeFlags takes rye's flags out of the arguments after the id.
func splitRyeFlags(rest []string, o *execFlags, toolHasTimeout bool) ([]string, error) {
	var out []string
	for i := 0; i < len(rest); i++ {
		arg := rest[i]
		if arg == "--" {
			out = append(out, rest[i:]...)
			break
		}
		name, value, hasValue := strings.Cut(arg, "=")
		takeValue := func() (string, error) {
			if hasValue {
				return value, nil
			}
			if i+1 >= len(rest) {
				return "", usageError("%s needs a value", name)
			}
			i++
			return rest[i], nil
		}
		switch {
		case name == "--dry-run" && !hasValue:
			o.dryRun = true
		case (name == "--help" || name == "-h") && !hasValue:
			o.help = true
		case name == "--params":
			v, err := takeValue()
			if err != nil {
				return nil, err
			}
			if o.params != "" {
				return nil, usageError("--params given twice")
			}
			o.params = v
		case name == "--timeout" && !toolHasTimeout:
			v, err := takeValue()
			if err != nil {
				return nil, err
			}
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				return nil, usageError("--timeout %q: give a positive duration such as 30s or 2m", v)
			}
			o.timeout = d
		default:
			out = append(out, arg)
		}
	}
	return out, nil
}

func (a *app) executeToolCommand() *cobra.Command {
	var o execFlags
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
			if wantsHelp(args[1:]) {
				return a.toolHelp(x, loc)
			}
			// The flags are typed by the tool's schema as it verified.
			parse := func(schema *syntax.Node) (map[string]any, error) {
				rest, err := splitRyeFlags(args[1:], &o, schema.Get("properties").Get("timeout") != nil)
				if err != nil {
					return nil, err
				}
				ps, err := params.Parse(schema, rest, o.params, os.ReadFile)
				return ps, asUsage(err)
			}
			return a.runTool(cmd.Context(), x, id, parse, &o)
		},
	}
	addExecFlags(cmd, &o)
	return cmd
}

// wantsHelp reports whether the arguments after the tool id ask for its
// help (before any "--").
func wantsHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "--help", "-h":
			return true
		}
	}
	return false
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

// toolSchema reads a tool's parameter schema without verifying it, for
// --help (labelled when the tool does not verify) and completion, which
// run nothing.
func toolSchema(loc *space.Located) (*syntax.Node, error) {
	it, err := loc.Load()
	if err != nil {
		return nil, err
	}
	md, err := it.Metadata()
	if err != nil {
		return nil, err
	}
	return md.Schema(), nil
}

// toolHelp prints a tool's parameters from its schema.
func (a *app) toolHelp(x *executor.Executor, loc *space.Located) error {
	it, err := loc.Load()
	if err != nil {
		return findings("%v", err)
	}
	md, err := it.Metadata()
	if err != nil {
		return findings("%s: %v", it.Path, err)
	}
	in := verify.Input{Kind: it.Kind, ID: it.ID, Space: loc.Space.Label, Path: it.Path, Embedded: loc.Space.Embedded(), Data: it.Bytes}
	if r := verify.Check(in, x.Trust, x.Policy); r.Verdict.Failed() {
		fmt.Fprintf(a.stderr, "rye: warning: NOT VERIFIED: %s (%s): %s: %s\n", it.ID, it.Path, r.Verdict, r.Reason)
	}
	w := a.stdout
	fmt.Fprintf(w, "usage: rye execute tool %s [params] [--dry-run] [--params JSON|@FILE] [--timeout DURATION]\n\n", it.ID)
	if d := md.Str("description"); d != "" {
		fmt.Fprintf(w, "%s\n\n", d)
	}
	fmt.Fprintf(w, "%s (%s)\n\nparameters:\n%s", it.Path, loc.Space.Label, params.Usage(md.Schema()))
	return nil
}

// executor assembles the Executor over the discovered spaces, the trust
// store of the working tree and the configured policy (executor.New).
func (a *app) executor() (*executor.Executor, error) {
	ss, err := a.getSpaces()
	if err != nil {
		return nil, err
	}
	v, err := a.verification(&verifyOptions{}, false)
	if err != nil {
		return nil, err
	}
	a.warnTrust(v)
	x, noCache, err := executor.New(ss, v.trust, v.policy, v.settings, a.workDir())
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
func (a *app) runTool(ctx context.Context, x *executor.Executor, id item.ID, given func(*syntax.Node) (map[string]any, error), o *execFlags) error {
	if err := scrubSecrets(); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	req := &executor.Request{Kind: item.Tool, ID: id}
	req.ToolParams = func(schema *syntax.Node) (map[string]any, error) {
		ps, err := given(schema) // reads rye's own flags among the tool's
		req.DryRun, req.Timeout = o.dryRun, o.timeout
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
	if isTerminal(a.stderr) && !a.quiet {
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
	var o execFlags
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
		ValidArgsFunction: a.completeFirstID(k),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, rest, x, err := a.itemCall(args, &o)
			if err != nil {
				return err
			}
			r, err := x.Execute(cmd.Context(), &executor.Request{Kind: k, ID: id, Inputs: a.itemInputs(k, rest, o.params), DryRun: o.dryRun})
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
		Args: cobra.ExactArgs(2),
		ValidArgsFunction: func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			switch len(args) {
			case 0:
				return []string{"tool"}, cobra.ShellCompDirectiveNoFileComp
			case 1:
				return a.itemIDs(cmd, runnableTools, []item.Kind{item.Tool}, toComplete), cobra.ShellCompDirectiveNoFileComp
			}
			return nil, cobra.ShellCompDirectiveNoFileComp
		},
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
				_, err := a.project()
				return err
			}
			p, err := x.Prepare(id, executor.PrepareOptions{ForLock: true})
			if err != nil {
				if uerr := prepareUsage(p.Links, err); uerr != nil {
					return uerr
				}
				return findings("%v", err)
			}
			path, err := x.Lock(p)
			if err != nil {
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
	ss, err := a.getSpaces()
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
	schema, _ := toolSchema(loc)
	var out []string
	for _, name := range append(params.Names(schema), "--dry-run", "--params", "--timeout", "--help") {
		if strings.HasPrefix(name, toComplete) {
			out = append(out, name)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeFirstID completes the id of an item of kind k as the first
// argument, and nothing after it.
func (a *app) completeFirstID(k item.Kind) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if len(args) == 0 {
			filter := allItems
			if k == item.Tool {
				filter = runnableTools
			}
			return a.itemIDs(cmd, filter, []item.Kind{k}, toComplete), cobra.ShellCompDirectiveNoFileComp
		}
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
}

// itemCall reads the arguments of a directive or knowledge call: the id,
// then the caller's inputs with rye's own flags taken out, and the
// executor.
func (a *app) itemCall(args []string, o *execFlags) (item.ID, []string, *executor.Executor, error) {
	id, err := item.ParseID(args[0])
	if err != nil {
		return "", nil, nil, usageError("%v", err)
	}
	rest, err := splitRyeFlags(args[1:], o, false)
	if err != nil {
		return "", nil, nil, err
	}
	x, err := a.executor()
	return id, rest, x, err
}
