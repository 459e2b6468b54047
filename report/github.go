package report

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// maxAnnotations is how many workflow commands of one type GitHub shows
// for a step; rye prints at most that many of each and puts the full list
// in the job summary.
const maxAnnotations = 10

// writeGitHub writes GitHub Actions workflow commands
// (::error file=…,line=…,col=…,title=…::message), at most maxAnnotations
// per severity, then appends every finding to the job summary file
// (GITHUB_STEP_SUMMARY) when there is one.
//
// A report's Failure is one error annotation (title "rye") and the first
// line of the job summary. A finding whose path is not in the repository
// (Report.Root: a file of the user space or the system bundle) cannot be
// placed on a file: its annotation names the path in its message.
func writeGitHub(w io.Writer, r *Report, summary, stepSummaryPath string) error {
	r.Sort()
	if r.Failure != nil {
		fmt.Fprintf(w, "::error title=%s::%s\n", escapeProperty(r.Tool), escapeData(r.Failure.Message))
	}
	shown := map[Severity]int{}
	hidden := map[Severity]int{}
	for _, f := range r.collapsed() {
		if shown[f.Severity] >= maxAnnotations {
			hidden[f.Severity]++
			continue
		}
		shown[f.Severity]++
		if f.Path == "" { // a group's summary: one annotation for the run
			fmt.Fprintf(w, "::%s title=%s::%s\n", command(f.Severity), escapeProperty("rye "+f.Rule), escapeData(f.Message))
			continue
		}
		if !inRoot(f.Path) {
			fmt.Fprintf(w, "::%s title=%s::%s\n", command(f.Severity), escapeProperty("rye "+f.Rule), escapeData(position(f)+": "+f.Message))
			continue
		}
		props := []string{"file=" + escapeProperty(filepath.ToSlash(strings.TrimPrefix(f.Path, "./")))}
		if f.Line > 0 {
			props = append(props, fmt.Sprintf("line=%d", f.Line))
			if f.Col > 0 {
				props = append(props, fmt.Sprintf("col=%d", f.Col))
			}
		}
		props = append(props, "title="+escapeProperty("rye "+f.Rule))
		fmt.Fprintf(w, "::%s %s::%s\n", command(f.Severity), strings.Join(props, ","), escapeData(f.Message))
	}
	for _, s := range []Severity{Error, Warning, info} {
		if hidden[s] > 0 {
			fmt.Fprintf(w, "::notice title=rye::%s more (%s) not shown as annotations; the job summary lists them all\n", Count(hidden[s]), s)
		}
	}
	if summary != "" {
		fmt.Fprintln(w, summary)
	}
	if stepSummaryPath == "" {
		return nil
	}
	f, err := os.OpenFile(stepSummaryPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	return writeMarkdown(f, r, summary)
}

func command(s Severity) string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	}
	return "notice"
}

// writeMarkdown is the job summary: the summary line and a table of every
// finding.
func writeMarkdown(w io.Writer, r *Report, summary string) error {
	fmt.Fprintf(w, "### %s\n\n", r.Tool)
	if r.Failure != nil {
		fmt.Fprintf(w, "**rye could not run (exit %d):** %s\n\n", r.Failure.ExitCode, cell(r.Failure.Message))
	}
	if summary != "" {
		fmt.Fprintf(w, "%s\n\n", summary)
	}
	if len(r.Findings) == 0 {
		_, err := fmt.Fprintln(w)
		return err
	}
	fmt.Fprintln(w, "| severity | file | line | rule | message |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, f := range r.Findings {
		line := ""
		if f.Line > 0 {
			line = fmt.Sprint(f.Line)
		}
		fmt.Fprintf(w, "| %s | `%s` | %s | %s | %s |\n", f.Severity, cell(f.Path), line, cell(f.Rule), cell(f.Message))
	}
	_, err := fmt.Fprintln(w)
	return err
}

func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ").Replace(s)
}

// escapeData and escapeProperty follow GitHub's workflow-command escaping.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
