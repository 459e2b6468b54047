package lint

import (
	"go/token"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/ryekit/rye/report"
	"github.com/ryekit/rye/verify"
)

// Severities of diagnostics. A diagnostic's Category is
// "<severity>:<name>" (for example "error:match_path", "warning:v1"): the
// name becomes the rule id "<analyzer>/<name>" in reports, and the severity
// is the default, which configuration may change per analyzer.
const (
	sevError   = "error"
	sevWarning = "warning"
	sevInfo    = "info"
)

// splitCategory returns a diagnostic's default severity and its name.
func splitCategory(cat string) (severity, name string) {
	sev, name, ok := strings.Cut(cat, ":")
	if !ok {
		return sevError, cat
	}
	return sev, name
}

// reporter reports diagnostics of one pass.
type reporter struct {
	pass *analysis.Pass
}

func (r reporter) at(sev, name string, pos, end token.Pos, msg string, fixes ...analysis.SuggestedFix) {
	r.pass.Report(analysis.Diagnostic{Pos: pos, End: end, Category: sev + ":" + name, Message: msg,
		URL: docURL(r.pass.Analyzer.Name), SuggestedFixes: fixes})
}

// docURL is an analyzer's section of docs/lint.md.
func docURL(analyzer string) string {
	return "https://github.com/ryekit/rye/blob/main/docs/lint.md#" + analyzer
}

// replaceFix is a fix that replaces [pos, end) with text.
func replaceFix(msg string, pos, end token.Pos, text string) analysis.SuggestedFix {
	return analysis.SuggestedFix{Message: msg, TextEdits: []analysis.TextEdit{{Pos: pos, End: end, NewText: []byte(text)}}}
}

// Report turns a lint result into a report of tool ("rye lint", "rye
// check").
func (res *Result) Report(tool string) *report.Report {
	rep := &report.Report{Tool: tool, Findings: res.Findings}
	for i, f := range res.Findings {
		rep.AddRule(ruleFor(f.Rule))
		// The signature analyzer's legacy-format warning ("signature/v1",
		// worded as verify words it) is grouped as verify groups it.
		if format, ok := strings.CutPrefix(f.Rule, "signature/"); ok && f.Severity == report.Warning && strings.HasPrefix(f.Message, format+" signature:") {
			verify.LegacyGroup(rep, &rep.Findings[i], format)
		}
	}
	groupRyeOS(rep, res.RyeOSTree)
	return rep
}
