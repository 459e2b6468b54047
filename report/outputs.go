package report

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
)

// Formats are the output formats of a report.
var Formats = []string{"text", "json", "sarif", "github"}

// Output is one destination of a report: a format, and a file ("" for
// standard output).
type Output struct {
	Format, File string
}

// OutputError is an output a run was asked for that it cannot write:
// Spec is what was asked ("" for the standard output's format).
type OutputError struct {
	Spec, Why string
}

func (e *OutputError) Error() string { return e.Why }

// ParseOutputs is the outputs of a run: format on standard output, then
// each spec ("FORMAT=FILE"), checked: known formats, a file each, and
// each file written once.
func ParseOutputs(format string, specs []string) ([]Output, error) {
	if !slices.Contains(Formats, format) {
		return nil, &OutputError{Why: "use " + orList(Formats)}
	}
	outs := []Output{{Format: format}}
	seen := map[string]bool{}
	for _, spec := range specs {
		f, file, ok := strings.Cut(spec, "=")
		var why string
		switch {
		case !ok || file == "":
			why = "write FORMAT=FILE, e.g. --output sarif=rye.sarif"
		case !slices.Contains(Formats, f):
			why = "the format is one of " + orList(Formats)
		case file == "-":
			why = "standard output has --format; name a file"
		case seen[filepath.Clean(file)]:
			why = file + " is written once"
		}
		if why != "" {
			return nil, &OutputError{Spec: spec, Why: why}
		}
		seen[filepath.Clean(file)] = true
		outs = append(outs, Output{Format: f, File: file})
	}
	return outs, nil
}

// orList is "a, b, c or d".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// Machine reports whether any output is in a machine format (progress
// and prompts stay quiet then: their reader is a program).
func Machine(outs []Output) bool {
	for _, o := range outs {
		if o.Format != "text" {
			return true
		}
	}
	return false
}

// Outputs are where one run writes its report: one format on standard
// output and any number of files (golangci-lint's --output.FORMAT.path),
// so that one run gives GitHub annotations and a SARIF file.
type Outputs struct {
	List   []Output
	Stdout io.Writer
	// Color colours text on standard output.
	Color bool
	// Quiet leaves warnings, notes and the summary line out of text and
	// GitHub output (-q: only errors); machine formats keep everything.
	Quiet bool
	// Paths name files in machine formats (text keeps the paths the
	// findings have: relative to the working directory).
	Paths Paths
	// StepSummary is the file of GitHub's job summary
	// (GITHUB_STEP_SUMMARY), written once per run by the GitHub output on
	// standard output, else the first GitHub file.
	StepSummary string
}

// FileError is an output file that could not be written.
type FileError struct {
	Output Output
	Err    error
}

func (e *FileError) Error() string {
	return fmt.Sprintf("%s=%s: %v", e.Output.Format, e.Output.File, e.Err)
}

func (e *FileError) Unwrap() error { return e.Err }

// WriteFailure writes a run that could not report findings (a usage or
// configuration error: rep has its Failure) to the machine-format outputs,
// so that CI shows why it failed: a GitHub error annotation, a SARIF run
// whose invocation failed, a JSON document with "error". Text needs
// nothing: the error is on standard error. It returns what it could not
// write.
func (o Outputs) WriteFailure(rep *Report) []error {
	rep.Root = o.Paths.Root()
	var errs []error
	for _, out := range o.List {
		if out.Format == "text" {
			continue
		}
		if err := o.write(out, rep, "", nil); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// stepSummary is the output that writes the job summary.
func (o Outputs) stepSummary() Output {
	for _, out := range o.List {
		if out.Format == "github" && out.File == "" {
			return out
		}
	}
	for _, out := range o.List {
		if out.Format == "github" {
			return out
		}
	}
	return Output{}
}

// write writes one whole output (a run's failure): standard output, or a
// file replaced atomically.
func (o Outputs) write(out Output, r *Report, line string, summary any) error {
	d, err := o.open(out)
	if err != nil {
		return err
	}
	return fileError(out, d.finish(o.render(out, r, line, summary)))
}

// render is the writer of everything of r in out's format but the items
// that a Stream writes as they come.
func (o Outputs) render(out Output, r *Report, line string, summary any) func(w io.Writer) error {
	return func(w io.Writer) error {
		switch out.Format {
		case "text":
			return WriteText(w, r, line, out.File == "" && o.Color)
		case "json":
			return writeJSON(w, r, summary)
		case "sarif":
			return writeSARIF(w, r)
		case "github":
			step := ""
			if out == o.stepSummary() {
				step = o.StepSummary
			}
			return writeGitHub(w, r, line, step)
		}
		return nil
	}
}
