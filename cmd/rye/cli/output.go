package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ryekit/rye/internal/tty"
	"github.com/ryekit/rye/project"
	"github.com/ryekit/rye/report"
)

// outputOptions are the output flags of verify, check and lint: one format
// on stdout and any number of files, so that one run gives GitHub
// annotations and a SARIF file (golangci-lint's --output.FORMAT.path).
type outputOptions struct {
	format     string   // --format: stdout
	outputs    []string // --output FORMAT=FILE
	sarif      string   // --sarif FILE
	pathPrefix string   // --path-prefix
	prefixSet  bool
}

func (o *outputOptions) flags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&o.format, "format", "text", "output `FORMAT` on stdout: text, json, sarif or github")
	f.StringArrayVar(&o.outputs, "output", nil, "also write `FORMAT=FILE` (repeatable), e.g. --output sarif=rye.sarif")
	f.StringVar(&o.sarif, "sarif", "", "also write a SARIF log to `FILE` (--output sarif=FILE)")
	f.StringVar(&o.pathPrefix, "path-prefix", "", "in json, sarif and github output, paths are `PREFIX` joined to the path from the working directory, instead of paths from the repository's top level")
	cmd.RegisterFlagCompletionFunc("format", fixedValues(report.Formats...))
	cmd.RegisterFlagCompletionFunc("output", func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if i := strings.IndexByte(toComplete, '='); i >= 0 {
			return nil, cobra.ShellCompDirectiveDefault // the file
		}
		out := make([]string, len(report.Formats))
		for i, f := range report.Formats {
			out[i] = f + "="
		}
		return out, cobra.ShellCompDirectiveNoSpace
	})
}

// list is the outputs the flags ask for (json: the global --json),
// checked (report.ParseOutputs).
func (o *outputOptions) list(json bool) ([]report.Output, error) {
	format := o.format
	if json {
		format = "json"
	}
	specs := append([]string(nil), o.outputs...)
	if o.sarif != "" {
		specs = append(specs, "sarif="+o.sarif)
	}
	outs, err := report.ParseOutputs(format, specs)
	var oe *report.OutputError
	switch {
	case errors.As(err, &oe) && oe.Spec == "":
		return nil, usageError("--format %q: %v", format, err)
	case errors.As(err, &oe):
		return nil, usageError("--output %q: %v", oe.Spec, err)
	}
	return outs, err
}

// renderReport writes a report to every output (summary is the JSON
// summary object, line the one-line summary of the other formats) and
// turns its error findings into exit code 1. Machine formats get paths
// relative to the repository's top level (see pathMapper); text keeps
// them relative to the working directory.
func (a *app) renderReport(rep *report.Report, line string, summary any) error {
	return a.closeReport(a.openReport(), rep, line, summary)
}

// openReport begins the report of the verb being run on its outputs: the
// run hands its items to the stream as it verifies them (verify.Stream).
func (a *app) openReport() *report.Stream {
	version, _, _ := Version()
	return a.outputs(a.outs).Open(a.tool, version)
}

// closeReport ends a report begun with openReport with the rest of rep
// (renderReport).
func (a *app) closeReport(s *report.Stream, rep *report.Report, line string, summary any) error {
	a.rendered = true
	rep.Version, _, _ = Version()
	rep = rep.Named(a.commandName())
	if a.verbose {
		rep.Groups = nil // -v: every finding on its own line
	}
	if err := s.Close(rep, line, summary); err != nil {
		return asUsage(outputError(err))
	}
	if rep.ExitCode() != 0 {
		return errReported
	}
	return nil
}

// failReport ends a report whose run stopped with err after it began
// writing items: the JSON begun on stdout ends with the error, files get
// the error's document (report.Stream.Fail). A report not begun is left
// to main, which renders err as every error (renderError).
func (a *app) failReport(s *report.Stream, err error) error {
	if !s.Begun() {
		return err
	}
	msg, code := err.Error(), ExitUsage
	var ee *exitError
	if errors.As(err, &ee) {
		msg, code = a.hint(ee.err.Error()), ee.code
	}
	a.rendered = true
	for _, err := range s.Fail(a.failure(msg, code)) {
		fmt.Fprintln(a.stderr, "rye: "+outputError(err).Error())
	}
	return err
}

// outputs are the destinations of a report, with how this run writes.
func (a *app) outputs(list []report.Output) report.Outputs {
	return report.Outputs{List: list, Stdout: a.stdout, Color: a.color(), Quiet: a.quiet, Paths: a.pathMapper(), StepSummary: os.Getenv("GITHUB_STEP_SUMMARY")}
}

// outputError names the flag of an output file that could not be written.
func outputError(err error) error {
	var fe *report.FileError
	if errors.As(err, &fe) {
		return fmt.Errorf("--output %v", fe)
	}
	return err
}

// renderFailure writes a run that could not report findings (a usage or
// configuration error) to the machine-format outputs, so that CI shows why
// it failed (report.Outputs.WriteFailure).
func (a *app) renderFailure(tool string, outs []report.Output, msg string, code int) {
	if !report.Machine(outs) {
		return
	}
	rep := a.failure(msg, code)
	rep.Tool = tool
	for _, err := range a.outputs(outs).WriteFailure(rep) {
		fmt.Fprintln(a.stderr, "rye: "+outputError(err).Error())
	}
}

// failure is the report of a run of the verb that could not report.
func (a *app) failure(msg string, code int) *report.Report {
	rep := &report.Report{Tool: a.tool, Failure: &report.Failure{Message: a.hint(msg), ExitCode: code}}
	rep.Version, _, _ = Version()
	return rep
}

// color reports whether text on stdout may be coloured: a terminal, and
// neither --no-color nor NO_COLOR (https://no-color.org).
func (a *app) color() bool {
	return !a.noColor && os.Getenv("NO_COLOR") == "" && tty.IsTerminal(a.stdout)
}

// pathMapper says how machine formats name files (project.Paths).
func (a *app) pathMapper() report.Paths {
	return project.Paths(a.workDir(), a.out.pathPrefix, a.out.prefixSet)
}

// formatsOf reads the output flags of verify, check or lint from the raw
// arguments, for an error that stops the run before cobra has parsed them
// (an unknown flag): the error is still rendered in the formats asked for.
// Flags it does not know are skipped with their values; what it cannot
// read is left out (the error is on stderr in any case).
func formatsOf(root *cobra.Command, args []string) (string, outputOptions, bool) {
	o := outputOptions{}
	verb, _, err := root.Find(args)
	if err != nil || (verb.Name() != "verify" && verb.Name() != "check" && verb.Name() != "lint") {
		return "", o, false
	}
	scan := &cobra.Command{}
	o.flags(scan)
	json := scan.Flags().Bool("json", false, "")
	scan.Flags().ParseErrorsAllowlist.UnknownFlags = true
	scan.Flags().SetOutput(io.Discard)
	scan.Flags().Parse(args)
	o.prefixSet = scan.Flags().Changed("path-prefix")
	if *json {
		o.format = "json"
	}
	return verb.Name(), o, true
}
