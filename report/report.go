// Package report is the one finding model shared by lint, verify and check,
// and its writers: text for people, JSON for programs, SARIF for code
// scanning, and GitHub workflow commands. Every writer sees the same
// findings, and the exit code does not depend on the format.
package report

import (
	"fmt"
	"sort"
)

// Severity is how serious a finding is.
type Severity string

const (
	Error   Severity = "error"
	Warning Severity = "warning"
	info    Severity = "info"
)

// Finding is one problem at one place.
type Finding struct {
	Rule     string   `json:"rule"` // "verify/modified", "lint/metadata", ...
	Severity Severity `json:"severity"`
	Path     string   `json:"path"`
	Line     int      `json:"line,omitempty"`
	Col      int      `json:"column,omitempty"`
	EndLine  int      `json:"end_line,omitempty"`
	EndCol   int      `json:"end_column,omitempty"`
	Message  string   `json:"message"`
	Kind     string   `json:"kind,omitempty"`
	ID       string   `json:"id,omitempty"`
	// Group names a set of findings that say the same thing of many items
	// (a legacy signature format): text and GitHub output show a large
	// group as one line (Report.Groups), JSON and SARIF every finding.
	Group string `json:"group,omitempty"`
}

// Group is the one line that stands for many findings of a group.
type Group struct {
	Key string
	// Summary is the line; its %s is replaced by the count ("200 items").
	Summary string
}

// groupAfter is the largest group shown finding by finding in text and
// GitHub output; a larger one is shown as its summary line.
const groupAfter = 3

// Rule describes a rule, for SARIF and for readers of the JSON output.
type Rule struct {
	ID    string `json:"id"`
	Short string `json:"short"`
	Help  string `json:"help"`
	URL   string `json:"url"`
	// Tags label the rule for code scanning ("security" for rye's own
	// security rules): SARIF's properties.tags.
	Tags []string `json:"tags,omitempty"`
}

// Item is the outcome for one item (verify's verdicts), in JSON and SARIF
// summaries. Any JSON-encodable value fits; the report only counts.
type Item struct {
	Failed bool
	Value  any
}

// Report is everything one command found.
type Report struct {
	Tool     string // "rye verify", "rye lint", "rye check"
	Version  string
	Rules    map[string]Rule
	Findings []Finding
	// Items are per-item results (verdicts); may be empty (lint).
	Items []Item
	// Passed counts the items that passed and that Items leave out: a
	// report for a reader who is shown only problems (text, GitHub) need
	// not hold a record for each of a hundred thousand items.
	Passed int
	// Notes are lines for people that are not findings ("3 items deleted
	// since origin/main"); text output prints them after the findings.
	Notes []string
	// Groups describe Finding.Group keys.
	Groups map[string]Group
	// Root is the absolute folder that the relative paths of the findings
	// are relative to (the repository's top level), when it is known: SARIF
	// names it as the base of every relative URI (originalUriBaseIds).
	Root string
	// Failure, when set, is why the command could not run (a usage or
	// configuration error, exit 2): every format reports it, so that a CI
	// job that fails says why where its findings would have been.
	Failure *Failure
}

// Failure is a run that stopped before it could report findings.
type Failure struct {
	Message  string
	ExitCode int
}

// relocatable is an item value whose path can be rewritten (Relocated).
type relocatable interface {
	ItemPath() string
	WithPath(path string) any
}

// Relocated is a copy of the report whose finding paths are rewritten by
// path; root becomes Root. The writers of machine formats get paths
// relative to the repository this way, while text keeps them relative to
// the working directory. Its items are left as they are: a Stream renames
// each item's path as it writes it (Outputs.relocate).
func (r *Report) Relocated(path func(string) string, root string) *Report {
	out := *r
	out.Root = root
	out.Findings = make([]Finding, len(r.Findings))
	for i, f := range r.Findings {
		if f.Path != "" {
			f.Path = path(f.Path)
		}
		out.Findings[i] = f
	}
	return &out
}

// AddGroup registers a group's summary line.
func (r *Report) AddGroup(g Group) {
	if r.Groups == nil {
		r.Groups = map[string]Group{}
	}
	r.Groups[g.Key] = g
}

// collapsed splits the findings into those shown one by one and, for each
// group larger than groupAfter, one finding that stands for the group: the
// first member's rule and severity, no path, the summary as message.
func (r *Report) collapsed() []Finding {
	size := map[string]int{}
	for _, f := range r.Findings {
		if f.Group != "" {
			size[f.Group]++
		}
	}
	var out, groups []Finding
	seen := map[string]bool{}
	for _, f := range r.Findings {
		g, ok := r.Groups[f.Group]
		if f.Group == "" || !ok || size[f.Group] <= groupAfter {
			out = append(out, f)
			continue
		}
		if !seen[f.Group] {
			seen[f.Group] = true
			groups = append(groups, Finding{Rule: f.Rule, Severity: f.Severity, Message: fmt.Sprintf(g.Summary, Plural(size[f.Group], "item"))})
		}
	}
	return append(out, groups...)
}

// WithoutWarnings is the report with only its error findings (rye -q).
func (r *Report) WithoutWarnings() *Report {
	out := *r
	out.Findings = nil
	for _, f := range r.Findings {
		if f.Severity == Error {
			out.Findings = append(out.Findings, f)
		}
	}
	return &out
}

// Add appends a finding.
func (r *Report) Add(f Finding) { r.Findings = append(r.Findings, f) }

// AddRule registers a rule's description.
func (r *Report) AddRule(rule Rule) {
	if r.Rules == nil {
		r.Rules = map[string]Rule{}
	}
	r.Rules[rule.ID] = rule
}

// Count returns the number of findings of a severity.
func (r *Report) Count(s Severity) int {
	n := 0
	for _, f := range r.Findings {
		if f.Severity == s {
			n++
		}
	}
	return n
}

// Failed is the number of items that failed.
func (r *Report) Failed() int {
	n := 0
	for _, it := range r.Items {
		if it.Failed {
			n++
		}
	}
	return n
}

// ExitCode is 1 when any finding is an error, else 0 (spec 4.3), whatever
// the output format; a Failure's own code when the run failed.
func (r *Report) ExitCode() int {
	if r.Failure != nil {
		return r.Failure.ExitCode
	}
	if r.Count(Error) > 0 {
		return 1
	}
	return 0
}

// Sort orders findings by path, position and rule, so that every format
// lists them the same way every time.
func (r *Report) Sort() {
	sort.SliceStable(r.Findings, func(i, j int) bool {
		a, b := r.Findings[i], r.Findings[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Col != b.Col {
			return a.Col < b.Col
		}
		return a.Rule < b.Rule
	})
}

// Merge is one report of several (a run over several projects): their
// findings, items and notes in order, and their rules and groups.
func Merge(tool string, reports ...*Report) *Report {
	out := &Report{Tool: tool}
	for _, r := range reports {
		if out.Version == "" {
			out.Version = r.Version
		}
		out.Findings = append(out.Findings, r.Findings...)
		out.Items = append(out.Items, r.Items...)
		out.Passed += r.Passed
		out.Notes = append(out.Notes, r.Notes...)
		for _, rule := range r.Rules {
			out.AddRule(rule)
		}
		for _, g := range r.Groups {
			out.AddGroup(g)
		}
	}
	return out
}
