// Package cli is the rye command line: one file per verb or verb group,
// holding flags and rendering only. Everything a test of a package could
// reach lives in that package, not here.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ryekit/rye/confine"
	"github.com/ryekit/rye/project"
	"github.com/ryekit/rye/report"
)

// Exit codes (spec 4.3): the same in every output format.
const (
	ExitOK       = 0 // nothing to report at error level
	ExitFindings = 1 // lint errors, failed verification, a failed tool run
	ExitUsage    = 2 // bad flags, unknown item, unreadable key or trust store
)

// exitError carries an exit code with the message that explains it.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// usageError is a mistake of the caller: exit 2.
func usageError(format string, args ...any) error {
	return &exitError{code: ExitUsage, err: fmt.Errorf(format, args...)}
}

// asUsage marks an error as a usage or configuration error.
func asUsage(err error) error {
	if err == nil {
		return nil
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return err
	}
	return &exitError{code: ExitUsage, err: err}
}

// errReported is the outcome of a command that found problems and has
// printed them already: exit 1, with nothing more to say.
var errReported = &exitError{code: ExitFindings, err: errors.New("findings reported")}

// findings reports that the command ran and found problems: exit 1. The
// problems themselves have been printed already; msg is the summary.
func findings(format string, args ...any) error {
	return &exitError{code: ExitFindings, err: fmt.Errorf(format, args...)}
}

// app is the state shared by all verbs: the global flags and the streams.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer

	dirs       []string // -C (several: verify, check and lint take one project each)
	projectDir string   // --project
	json       bool
	quiet      bool
	verbose    bool
	noColor    bool
	keyFile    string // --key, of the verbs that sign or show your key

	// spacesOnly is the run's project opened for its spaces alone (spaces).
	spacesOnly *project.Project

	// out and outs are the output flags of verify, check and lint and
	// the outputs they name, once the verb has read them; rendered is set
	// when a report has been written (a later error is not rendered again).
	out      outputOptions
	outs     []report.Output
	tool     string
	rendered bool
	cmdName  string // how messages name rye (hint)
	// progressDelay is how long a walk runs before its progress line
	// shows: a quick run prints nothing.
	progressDelay time.Duration
}

// Main runs rye with args and returns the exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == confine.HelperArg {
		confine.HelperMain() // rye as its own confinement helper: never returns
	}
	return (&app{stdin: stdin, stdout: stdout, stderr: stderr, progressDelay: time.Second}).main(args)
}

// Command is rye's command tree, for tests that walk every verb.
func Command() *cobra.Command { return (&app{}).rootCommand() }

func (a *app) main(args []string) int {
	stdin, stdout, stderr := a.stdin, a.stdout, a.stderr
	root := a.rootCommand()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(context.Background())
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee == errReported {
			return ee.code
		}
		msg := a.hint(ee.err.Error())
		fmt.Fprintln(stderr, "rye: "+msg)
		a.renderError(root, args, msg, ee.code)
		return ee.code
	}
	// Errors that cobra produces itself (unknown command, bad flag, wrong
	// number of arguments) are usage errors.
	fmt.Fprintln(stderr, "rye: "+err.Error())
	if !strings.Contains(err.Error(), "--help") {
		fmt.Fprintln(stderr, "Run 'rye --help' for usage.")
	}
	a.renderError(root, args, err.Error(), ExitUsage)
	return ExitUsage
}

// renderError renders an error that ended a run of verify, check or lint
// in the formats the run asked for, unless a report was written already.
// Before the verb has read its flags (a bad flag), they are read from the
// raw arguments.
func (a *app) renderError(root *cobra.Command, args []string, msg string, code int) {
	if a.rendered {
		return
	}
	outs, tool := a.outs, a.tool
	if outs == nil {
		verb, o, ok := formatsOf(root, args)
		if !ok {
			return
		}
		a.out, tool = o, "rye "+verb
		if outs, _ = o.list(false); outs == nil {
			// A bad --output: render on stdout alone.
			outs, _ = (&outputOptions{format: o.format}).list(false)
		}
	}
	a.renderFailure(tool, outs, msg, code)
}

func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "rye",
		Short: "Check, sign, verify and run RYE items",
		Long: `rye works on the AI-agent items of a RYE project (the .ai/ folder):
directives, tools and knowledge, each carrying an embedded Ed25519 signature.`,
		SilenceUsage:      true,
		SilenceErrors:     true,
		CompletionOptions: cobra.CompletionOptions{DisableDefaultCmd: true},
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			for _, dir := range a.dirs {
				if info, err := os.Stat(dir); err != nil || !info.IsDir() {
					return usageError("-C %s: not a directory", dir)
				}
			}
			if len(a.dirs) > 1 && cmd.Annotations[severalProjects] == "" {
				return usageError("-C is given %d times: only rye verify, check and lint take several projects (-C DIR each, or --all-projects)", len(a.dirs))
			}
			return nil
		},
	}
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return usageError("%v\nRun '%s --help' for usage.", err, cmd.CommandPath())
	})
	f := root.PersistentFlags()
	f.StringArrayVarP(&a.dirs, "dir", "C", nil, "run as if rye was started in `DIR` (verify, check and lint: repeat it to check several projects)")
	f.StringVar(&a.projectDir, "project", "", "use `DIR` as the project root (no search upwards)")
	f.BoolVar(&a.json, "json", false, "machine-readable output on stdout")
	f.BoolVar(&a.noColor, "no-color", false, "no colour in text output on a terminal (also NO_COLOR)")
	f.BoolVarP(&a.quiet, "quiet", "q", false, "print only errors")
	f.BoolVarP(&a.verbose, "verbose", "v", false, "print more detail")
	a.versionFlag(root)

	root.AddCommand(
		a.initCommand(),
		a.newCommand(),
		a.loadCommand(),
		a.searchCommand(),
		a.keysCommand(),
		a.trustCommand(),
		a.signCommand(),
		a.verifyCommand(),
		a.checkCommand(),
		a.lintCommand(),
		a.executeCommand(),
		a.threadCommand(),
		a.lockCommand(),
		a.bundleCommand(),
		a.versionCommand(),
		a.completionCommand(),
		a.mcpCommand(),
	)
	root.SetHelpCommand(helpCommand(root))
	return root
}

// helpCommand is rye help [VERB...]: help for a verb, and for one rye
// does not have a usage error (exit 2) with what was meant, as for a
// mistyped verb.
func helpCommand(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		RunE: func(_ *cobra.Command, args []string) error {
			cmd, rest, err := root.Find(args)
			if err == nil && len(rest) == 0 {
				return cmd.Help()
			}
			if cmd == nil || err != nil {
				cmd = root
			}
			unknown := args[len(args)-1]
			if len(rest) > 0 {
				unknown = rest[0]
			}
			return unknownVerb(cmd, "no help topic", unknown, strings.TrimPrefix(cmd.CommandPath()+" ", "rye "))
		},
	}
}

// verbGroup makes a verb of sub-verbs (rye trust, keys, bundle, execute)
// print its help when given none, and refuse one it does not have: a
// mistyped sub-verb is a usage error (exit 2) that says what was meant,
// never help and success, which scripts and agents would take for done.
func verbGroup(cmd *cobra.Command) {
	cmd.SuggestionsMinimumDistance = 2
	cmd.Args = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return nil
		}
		return unknownVerb(cmd, "unknown command", args[0], cmd.Name()+" ")
	}
	cmd.RunE = func(cmd *cobra.Command, args []string) error { return cmd.Help() }
}

// unknownVerb is the usage error (exit 2) of a verb that cmd does not
// have: what was meant when cobra can tell, and the help that lists the
// verbs there are (rye HELP--help).
func unknownVerb(cmd *cobra.Command, what, name, help string) error {
	msg := fmt.Sprintf("%s %q for %q", what, name, cmd.CommandPath())
	if s := cmd.SuggestionsFor(name); len(s) > 0 {
		msg += "; did you mean " + strings.Join(s, " or ") + "?"
	}
	return usageError("%s (rye %s--help lists them)", msg, help)
}

// severalProjects is the annotation of the verbs that take several -C
// folders.
const severalProjects = "several-projects"

// workDir is where rye acts: -C DIR, else the process's directory (also
// with several -C folders, which name projects: paths are then shown from
// where rye was started).
func (a *app) workDir() string {
	if len(a.dirs) == 1 {
		return a.dirs[0]
	}
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	return wd
}

// info prints a human message on stderr unless -q.
func (a *app) info(format string, args ...any) {
	if !a.quiet {
		fmt.Fprintln(a.stderr, a.hint(fmt.Sprintf(format, args...)))
	}
}
