// Package report is the one finding model shared by lint, verify and check,
// and its writers: text for people, JSON for programs, SARIF for code
// scanning, and GitHub workflow commands. Every writer sees the same
// findings, and the exit code does not depend on the format.
package report

import (
	"sort"
)

// Severity is how serious a finding is.
type Severity string

const (
	Error   Severity = "error"
	Warning Severity = "warning"
	Info    Severity = "info"
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
}

// Rule describes a rule, for SARIF and for readers of the JSON output.
type Rule struct {
	ID    string `json:"id"`
	Short string `json:"short"`
	Help  string `json:"help"`
	URL   string `json:"url"`
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
	// Notes are lines for people that are not findings ("3 items deleted
	// since origin/main"); text output prints them after the findings.
	Notes []string
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
// the output format.
func (r *Report) ExitCode() int {
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
