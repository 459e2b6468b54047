package report

import (
	"io"
	"path/filepath"
	"strings"

	"github.com/owenrumney/go-sarif/v2/sarif"
)

// WriteSARIF writes a SARIF 2.1.0 log for GitHub code scanning: one run,
// the rules with their help text and URL, one result per finding with its
// file (a URI relative to the repository) and region.
func WriteSARIF(w io.Writer, r *Report) error {
	r.Sort()
	log, err := sarif.New(sarif.Version210)
	if err != nil {
		return err
	}
	run := sarif.NewRunWithInformationURI("rye", "https://github.com/ryekit/rye")
	run.Tool.Driver.WithVersion(r.Version)
	for _, rule := range r.sortedRules() {
		d := run.AddRule(rule.ID).WithName(ruleName(rule.ID))
		short := rule.Short
		if short == "" {
			short = rule.ID // SARIF has no optional null here: a rule needs a text
		}
		d.WithShortDescription(sarif.NewMultiformatMessageString(short))
		if rule.Help != "" {
			d.WithHelp(sarif.NewMultiformatMessageString(rule.Help))
		}
		if rule.URL != "" {
			d.WithHelpURI(rule.URL)
		}
	}
	for _, f := range r.Findings {
		region := sarif.NewRegion()
		if f.Line > 0 {
			region.WithStartLine(f.Line)
			if f.Col > 0 {
				region.WithStartColumn(f.Col)
			}
			if f.EndLine > 0 {
				region.WithEndLine(f.EndLine)
				if f.EndCol > 0 {
					region.WithEndColumn(f.EndCol)
				}
			}
		} else {
			region.WithStartLine(1)
		}
		loc := sarif.NewPhysicalLocation().
			WithArtifactLocation(sarif.NewSimpleArtifactLocation(uri(f.Path))).
			WithRegion(region)
		run.CreateResultForRule(f.Rule).
			WithLevel(level(f.Severity)).
			WithMessage(sarif.NewTextMessage(f.Message)).
			AddLocation(sarif.NewLocationWithPhysicalLocation(loc))
	}
	// Finding columns count characters (code points): lint converts its
	// byte positions when it makes findings.
	run.WithColumnKind("unicodeCodePoints")
	log.AddRun(run)
	return log.PrettyWrite(w)
}

// ruleName is a rule's name in the form SARIF viewers show:
// "verify/modified" → "VerifyModified".
func ruleName(id string) string {
	var b strings.Builder
	up := true
	for _, r := range id {
		if r == '/' || r == '-' || r == '_' || r == '.' {
			up = true
			continue
		}
		if up && r >= 'a' && r <= 'z' {
			r -= 'a' - 'A'
		}
		up = false
		b.WriteRune(r)
	}
	return b.String()
}

func level(s Severity) string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	}
	return "note"
}

// uri turns a path into a relative URI with '/' separators.
func uri(p string) string {
	return strings.TrimPrefix(filepath.ToSlash(p), "./")
}
