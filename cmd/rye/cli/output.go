package cli

import (
	"bytes"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ryekit/rye/gitrepo"
	"github.com/ryekit/rye/internal/atomicfile"
	"github.com/ryekit/rye/report"
)

// formats are the output formats of verify, check and lint.
var formats = []string{"text", "json", "sarif", "github"}

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
	cmd.RegisterFlagCompletionFunc("format", fixedValues(formats...))
	cmd.RegisterFlagCompletionFunc("output", func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if i := strings.IndexByte(toComplete, '='); i >= 0 {
			return nil, cobra.ShellCompDirectiveDefault // the file
		}
		out := make([]string, len(formats))
		for i, f := range formats {
			out[i] = f + "="
		}
		return out, cobra.ShellCompDirectiveNoSpace
	})
}

// output is one destination: a format and a file ("" for stdout).
type output struct {
	format, file string
}

// list is the outputs the flags ask for (json: the global --json), checked:
// known formats, at most one per file.
func (o *outputOptions) list(json bool) ([]output, error) {
	format := o.format
	if json {
		format = "json"
	}
	if !known(format) {
		return nil, usageError("--format %q: use %s", format, orList(formats))
	}
	outs := []output{{format: format}}
	specs := append([]string(nil), o.outputs...)
	if o.sarif != "" {
		specs = append(specs, "sarif="+o.sarif)
	}
	seen := map[string]bool{}
	for _, spec := range specs {
		f, file, ok := strings.Cut(spec, "=")
		switch {
		case !ok || file == "":
			return nil, usageError("--output %q: write FORMAT=FILE, e.g. --output sarif=rye.sarif", spec)
		case !known(f):
			return nil, usageError("--output %q: the format is one of %s", spec, orList(formats))
		case file == "-":
			return nil, usageError("--output %q: standard output has --format; name a file", spec)
		case seen[filepath.Clean(file)]:
			return nil, usageError("--output %q: %s is written once", spec, file)
		}
		seen[filepath.Clean(file)] = true
		outs = append(outs, output{format: f, file: file})
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

func known(format string) bool {
	for _, f := range formats {
		if f == format {
			return true
		}
	}
	return false
}

// machine reports whether any output is a machine format (progress and
// prompts stay quiet then).
func machine(outs []output) bool {
	for _, o := range outs {
		if o.format != "text" {
			return true
		}
	}
	return false
}

// renderReport writes a report to every output (summary is the JSON
// summary object, line the one-line summary of the other formats) and
// turns its error findings into exit code 1. Machine formats get paths
// relative to the repository's top level (see pathMapper); text keeps
// them relative to the working directory.
func (a *app) renderReport(rep *report.Report, line string, summary any) error {
	a.rendered = true
	rep.Version, _, _ = Version()
	rep = a.hinted(rep)
	if a.verbose {
		rep.Groups = nil // -v: every finding on its own line
	}
	var machineRep *report.Report
	for _, o := range a.outs {
		r := rep
		if o.format != "text" {
			if machineRep == nil {
				m := a.pathMapper()
				machineRep = rep.Relocated(m.mapPath, m.root)
			}
			r = machineRep
		}
		if a.quiet && (o.format == "text" || o.format == "github") {
			r = r.WithoutWarnings() // -q: errors only; machine formats keep everything
		}
		if err := a.write(o, r, line, summary, o == stepSummaryOutput(a.outs)); err != nil {
			return err
		}
	}
	if rep.ExitCode() != 0 {
		return errReported
	}
	return nil
}

// stepSummaryOutput is the GitHub output that also writes the job summary
// (GITHUB_STEP_SUMMARY), once per run: stdout's, else the first file's.
func stepSummaryOutput(outs []output) output {
	for _, o := range outs {
		if o.format == "github" && o.file == "" {
			return o
		}
	}
	for _, o := range outs {
		if o.format == "github" {
			return o
		}
	}
	return output{}
}

// write writes one output: stdout, or a file replaced atomically; a GitHub
// output writes the job summary too when jobSummary is set.
func (a *app) write(o output, r *report.Report, line string, summary any, jobSummary bool) error {
	w := a.stdout
	var buf bytes.Buffer
	if o.file != "" {
		w = &buf
	}
	var err error
	switch o.format {
	case "text":
		err = report.WriteText(w, r, line, o.file == "" && a.color())
	case "json":
		err = report.WriteJSON(w, r, summary)
	case "sarif":
		err = report.WriteSARIF(w, r)
	case "github":
		stepSummary := ""
		if jobSummary {
			stepSummary = os.Getenv("GITHUB_STEP_SUMMARY")
		}
		err = report.WriteGitHub(w, r, line, stepSummary)
	}
	if err != nil {
		return err
	}
	if o.file == "" {
		return nil
	}
	if err := atomicfile.WriteFile(o.file, buf.Bytes(), 0o644); err != nil {
		return usageError("--output %s=%s: %v", o.format, o.file, err)
	}
	return nil
}

// renderFailure writes a run that could not report findings (a usage or
// configuration error) to the machine-format outputs, so that CI shows why
// it failed: a GitHub error annotation, a SARIF run whose invocation failed,
// a JSON document with "error". Text needs nothing: the error is on stderr.
func (a *app) renderFailure(tool string, outs []output, msg string, code int) {
	if !machine(outs) {
		return
	}
	rep := &report.Report{Tool: tool, Failure: &report.Failure{Message: a.hint(msg), ExitCode: code}}
	rep.Version, _, _ = Version()
	m := a.pathMapper()
	rep.Root = m.root
	for _, o := range outs {
		if o.format == "text" {
			continue
		}
		if err := a.write(o, rep, "", nil, o == stepSummaryOutput(outs)); err != nil {
			fmt.Fprintln(a.stderr, "rye: "+err.Error())
		}
	}
}

// color reports whether text on stdout may be coloured: a terminal, and
// neither --no-color nor NO_COLOR (https://no-color.org).
func (a *app) color() bool {
	return !a.noColor && os.Getenv("NO_COLOR") == "" && isTerminal(a.stdout)
}

// mapper rewrites the paths findings are shown with (relative to the
// working directory, or absolute outside the project) into those of
// machine formats.
type mapper struct {
	work    string // the working directory, absolute
	workRel string // work relative to root ('/'-separated; "." for root itself)
	root    string // the folder paths are relative to; "" when unknown
	prefix  string // --path-prefix, cleaned
	useDir  bool   // --path-prefix was given
}

// pathMapper says how machine formats name files: relative to the
// repository's top level (git's, found through go-git) when the working
// directory is in a repository, else to the working directory; with
// --path-prefix, the prefix joined to the path from the working directory
// (golangci-lint's flag), and the root is the working directory without
// the prefix when it ends with it (else unknown: SARIF then names no base).
func (a *app) pathMapper() mapper {
	work, err := filepath.Abs(a.workDir())
	if err != nil {
		work = a.workDir()
	}
	real := work
	if r, err := filepath.EvalSymlinks(work); err == nil {
		real = r
	}
	m := mapper{work: work, workRel: ".", root: real}
	if a.out.prefixSet {
		m.useDir, m.prefix, m.root = true, path.Clean(filepath.ToSlash(a.out.pathPrefix)), ""
		suffix := string(filepath.Separator) + filepath.FromSlash(m.prefix)
		switch {
		case m.prefix == ".":
			m.root = real
		case strings.HasSuffix(real, suffix):
			m.root = strings.TrimSuffix(real, suffix)
		}
		return m
	}
	if repo, err := gitrepo.Open(real); err == nil {
		if rel, err := filepath.Rel(repo.Root, real); err == nil && !outside(rel) {
			m.root, m.workRel = repo.Root, filepath.ToSlash(rel)
		}
	}
	return m
}

// mapPath is a display path as machine formats name it: relative to the
// root, or absolute for a file outside it.
func (m mapper) mapPath(p string) string {
	switch {
	case strings.HasPrefix(p, "<"):
		return p // the embedded system bundle: in no repository
	case filepath.IsAbs(p):
		if !m.useDir && m.root != "" {
			abs := p
			if real, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
				abs = filepath.Join(real, filepath.Base(p))
			}
			if rel, err := filepath.Rel(m.root, abs); err == nil && !outside(rel) {
				return filepath.ToSlash(rel)
			}
		}
		return filepath.ToSlash(p)
	case m.useDir:
		return path.Join(m.prefix, filepath.ToSlash(p))
	}
	rel := path.Join(m.workRel, filepath.ToSlash(p))
	if rel == ".." || strings.HasPrefix(rel, "../") {
		return filepath.ToSlash(filepath.Join(m.work, p)) // above the repository
	}
	return rel
}

// outside reports a relative path that leaves its base.
func outside(rel string) bool {
	return rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// formatsOf scans raw arguments for the output flags of verify, check and
// lint, for an error that stops the run before cobra has parsed them (an
// unknown flag): the error is still rendered in the formats asked for.
// It returns the verb and its outputs; anything it cannot read is left
// out (the error is on stderr in any case).
func formatsOf(args []string) (string, outputOptions, bool) {
	o := outputOptions{format: "text"}
	verb := ""
	json := false
	value := func(i *int, name string) (string, bool) {
		arg := args[*i]
		if v, ok := strings.CutPrefix(arg, name+"="); ok {
			return v, true
		}
		if arg == name && *i+1 < len(args) {
			*i++
			return args[*i], true
		}
		return "", false
	}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" {
			break
		}
		if verb == "" {
			switch {
			case arg == "-C" || arg == "--dir" || arg == "--project" || arg == "--key":
				i++
			case arg == "--json":
				json = true
			case !strings.HasPrefix(arg, "-"):
				verb = arg
			}
			continue
		}
		if arg == "--json" {
			json = true
		}
		if v, ok := value(&i, "--format"); ok {
			o.format = v
		} else if v, ok := value(&i, "--output"); ok {
			o.outputs = append(o.outputs, v)
		} else if v, ok := value(&i, "--sarif"); ok {
			o.sarif = v
		} else if v, ok := value(&i, "--path-prefix"); ok {
			o.pathPrefix, o.prefixSet = v, true
		}
	}
	if json {
		o.format = "json"
	}
	switch verb {
	case "verify", "check", "lint":
		return verb, o, true
	}
	return "", o, false
}
