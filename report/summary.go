package report

import "fmt"

// The summaries of rye verify, check and lint: the JSON summary object
// (docs/json) and the one-line summary of text and GitHub output, from the
// merged report of a run over projects projects.

// VerifySummary is the summary of rye verify.
type VerifySummary struct {
	Projects int `json:"projects"`
	Items    int `json:"items"`
	Verified int `json:"verified"`
	Failed   int `json:"failed"`
	Warnings int `json:"warnings"`
}

// VerifyCounts are the counts of a verification's report.
func (r *Report) VerifyCounts(projects int) VerifySummary {
	s := VerifySummary{Projects: projects, Items: len(r.Items) + r.Passed, Failed: r.Failed(), Warnings: r.Count(Warning)}
	s.Verified = s.Items - s.Failed
	return s
}

// Line is "3 projects, 12 items: 11 verified, 1 failed, 2 warnings".
func (s VerifySummary) Line() string {
	line := fmt.Sprintf("%s: %s", Plural(s.Items, "item"), Join(Count(s.Verified)+" verified", Count(s.Failed)+" failed"))
	if s.Verified == 0 && s.Failed == 0 {
		line = Plural(s.Items, "item")
	}
	line = projectsPrefix(s.Projects) + line
	if s.Warnings > 0 {
		line += ", " + Plural(s.Warnings, "warning")
	}
	return line
}

// CheckSummary is the summary of rye check.
type CheckSummary struct {
	VerifySummary
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
}

// CheckCounts are the counts of a check's report.
func (r *Report) CheckCounts(projects int) CheckSummary {
	return CheckSummary{VerifySummary: r.VerifyCounts(projects), Errors: r.Count(Error), Warnings: r.Count(Warning)}
}

// Line is "12 items: 11 verified, 1 failed; 1 error" or "12 items: 12
// verified; no problems".
func (s CheckSummary) Line() string {
	if s.Errors+s.Warnings == 0 {
		return fmt.Sprintf("%s%s: %s verified; no problems", projectsPrefix(s.Projects), Plural(s.Items, "item"), Count(s.Verified))
	}
	return fmt.Sprintf("%s%s: %s; %s", projectsPrefix(s.Projects), Plural(s.Items, "item"),
		Join(Count(s.Verified)+" verified", Count(s.Failed)+" failed"), Join(Plural(s.Errors, "error"), Plural(s.Warnings, "warning")))
}

// lintSummary is the summary of rye lint: Items counts the files linted.
type lintSummary struct {
	Projects int `json:"projects"`
	Items    int `json:"items"`
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
}

// LintCounts are the counts of a lint report over files files.
func (r *Report) LintCounts(projects, files int) lintSummary {
	return lintSummary{Projects: projects, Items: files, Errors: r.Count(Error), Warnings: r.Count(Warning)}
}

// Line is "4 files: 1 error, 2 warnings" or "4 files: no problems".
func (s lintSummary) Line() string {
	if s.Errors+s.Warnings == 0 {
		return projectsPrefix(s.Projects) + Plural(s.Items, "file") + ": no problems"
	}
	return projectsPrefix(s.Projects) + Plural(s.Items, "file") + ": " + Join(Plural(s.Errors, "error"), Plural(s.Warnings, "warning"))
}

// projectsPrefix starts a summary line of a run over several projects.
func projectsPrefix(n int) string {
	if n < 2 {
		return ""
	}
	return Plural(n, "project") + ", "
}
