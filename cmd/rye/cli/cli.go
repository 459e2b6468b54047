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
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/ryekit/rye/space"
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

	dir        string // -C
	projectDir string // --project
	json       bool
	quiet      bool
	verbose    bool
	keyFile    string // --key, of the verbs that sign or show your key

	spaces *space.Spaces
}

// Main runs rye with args and returns the exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr}
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
		if ee != errReported {
			fmt.Fprintln(stderr, "rye: "+ee.err.Error())
		}
		return ee.code
	}
	// Errors that cobra produces itself (unknown command, bad flag, wrong
	// number of arguments) are usage errors.
	fmt.Fprintln(stderr, "rye: "+err.Error())
	if !strings.Contains(err.Error(), "--help") {
		fmt.Fprintln(stderr, "Run 'rye --help' for usage.")
	}
	return ExitUsage
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
			if a.dir != "" {
				if info, err := os.Stat(a.dir); err != nil || !info.IsDir() {
					return usageError("-C %s: not a directory", a.dir)
				}
			}
			return nil
		},
	}
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return usageError("%v\nRun '%s --help' for usage.", err, cmd.CommandPath())
	})
	f := root.PersistentFlags()
	f.StringVarP(&a.dir, "dir", "C", "", "run as if rye was started in `DIR`")
	f.StringVar(&a.projectDir, "project", "", "use `DIR` as the project root (no search upwards)")
	f.BoolVar(&a.json, "json", false, "machine-readable output on stdout")
	// rye prints no colour anywhere; the flag (spec 4) is accepted so that
	// scripts written for it work, and NO_COLOR needs no handling.
	f.Bool("no-color", false, "no colour (rye prints none; accepted for scripts, like NO_COLOR)")
	f.BoolVarP(&a.quiet, "quiet", "q", false, "print only errors")
	f.BoolVarP(&a.verbose, "verbose", "v", false, "print more detail")

	root.AddCommand(
		a.initCommand(),
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
	return root
}

// workDir is where rye acts: -C DIR, else the process's directory.
func (a *app) workDir() string {
	if a.dir != "" {
		return a.dir
	}
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	return wd
}

// getSpaces discovers the spaces once per run.
func (a *app) getSpaces() (*space.Spaces, error) {
	if a.spaces != nil {
		return a.spaces, nil
	}
	projectDir := a.projectDir
	if projectDir != "" && a.dir != "" && !filepath.IsAbs(projectDir) {
		projectDir = filepath.Join(a.dir, projectDir)
	}
	ss, err := space.Discover(space.Options{WorkDir: a.workDir(), ProjectDir: projectDir, Getenv: os.Getenv})
	if err != nil {
		return nil, asUsage(err)
	}
	a.spaces = ss
	return ss, nil
}

// project returns the project space, or a usage error that says how to
// make one.
func (a *app) project() (*space.Space, error) {
	ss, err := a.getSpaces()
	if err != nil {
		return nil, err
	}
	if ss.Project == nil {
		return nil, usageError("no project: no .ai/ folder in %s or any folder above it (run 'rye init' to create one, or use -C DIR)", a.workDir())
	}
	return ss.Project, nil
}

// info prints a human message on stderr unless -q.
func (a *app) info(format string, args ...any) {
	if !a.quiet {
		fmt.Fprintf(a.stderr, format+"\n", args...)
	}
}

// isTerminal reports whether w is a terminal (colour, progress).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
