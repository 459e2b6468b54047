package report

import "testing"

func TestSummaryLines(t *testing.T) {
	rep := &Report{Passed: 10, Items: []Item{{Failed: true}}}
	rep.Add(Finding{Severity: Error, Rule: "verify/modified", Path: "a"})
	rep.Add(Finding{Severity: Warning, Rule: "lint/x", Path: "b"})
	for got, want := range map[string]string{
		rep.VerifyCounts(1).Line():          "11 items: 10 verified, 1 failed, 1 warning",
		rep.CheckCounts(3).Line():           "3 projects, 11 items: 10 verified, 1 failed; 1 error, 1 warning",
		rep.LintCounts(1, 4).Line():         "4 files: 1 error, 1 warning",
		(&Report{}).CheckCounts(1).Line():   "0 items: 0 verified; no problems",
		(&Report{}).LintCounts(2, 3).Line(): "2 projects, 3 files: no problems",
		(&Report{}).VerifyCounts(1).Line():  "0 items",
	} {
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}
