package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// WriteText writes findings as "path:line:col: severity: message [rule]",
// grouped by file (a blank line between files), then the notes and a
// summary line such as "1,204 items: 1,198 verified, 6 failed" (none when
// summary is empty: -q prints only the errors). With color
// (a terminal, and neither NO_COLOR nor --no-color), the position is bold,
// the severity coloured and the rule dim, as compilers and linters do.
func WriteText(w io.Writer, r *Report, summary string, color bool) error {
	r.Sort()
	st := style{on: color}
	prev := ""
	findings := r.collapsed()
	for i, f := range findings {
		if i > 0 && f.Path != prev {
			fmt.Fprintln(w)
		}
		prev = f.Path
		if f.Path == "" { // a group's summary
			fmt.Fprintf(w, "%s: %s %s\n", st.severity(f.Severity), f.Message, st.dim("["+f.Rule+"]"))
			continue
		}
		fmt.Fprintf(w, "%s: %s: %s %s\n", st.bold(position(f)), st.severity(f.Severity), f.Message, st.dim("["+f.Rule+"]"))
	}
	if summary == "" && len(r.Notes) == 0 {
		return nil
	}
	if len(findings) > 0 {
		fmt.Fprintln(w)
	}
	for _, n := range r.Notes {
		fmt.Fprintln(w, n)
	}
	if summary == "" {
		return nil
	}
	_, err := fmt.Fprintln(w, summary)
	return err
}

func position(f Finding) string {
	switch {
	case f.Line > 0 && f.Col > 0:
		return fmt.Sprintf("%s:%d:%d", f.Path, f.Line, f.Col)
	case f.Line > 0:
		return fmt.Sprintf("%s:%d", f.Path, f.Line)
	}
	return f.Path
}

// Count formats 1204 as "1,204".
func Count(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Plural is "1 item", "2 items".
func Plural(n int, word string) string {
	if n == 1 {
		return Count(n) + " " + word
	}
	return Count(n) + " " + word + "s"
}

// Join lists counts: "3 errors, 1 warning" (zero counts left out).
func Join(parts ...string) string {
	var kept []string
	for _, p := range parts {
		if p != "" && !strings.HasPrefix(p, "0 ") {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, ", ")
}

// style wraps text in ANSI escape sequences when on.
type style struct{ on bool }

func (s style) wrap(code, text string) string {
	if !s.on {
		return text
	}
	return "\x1b[" + code + "m" + text + "\x1b[0m"
}

func (s style) bold(text string) string { return s.wrap("1", text) }
func (s style) dim(text string) string  { return s.wrap("2", text) }

func (s style) severity(sev Severity) string {
	switch sev {
	case Error:
		return s.wrap("1;31", string(sev))
	case Warning:
		return s.wrap("1;33", string(sev))
	}
	return s.wrap("1;36", string(sev))
}
