package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/owenrumney/go-sarif/v2/sarif"
)

// sourceRoot is the uriBaseId of the relative URIs of a SARIF log: the
// folder Report.Root names (the repository's top level), as
// originalUriBaseIds records it. GitHub code scanning reads URIs relative to
// the repository root; other consumers resolve them through the base.
const sourceRoot = "%SRCROOT%"

// systemRoot is the uriBaseId of the files of the embedded system bundle
// ("<system>/.ai/…"), which are on no disk: originalUriBaseIds describes
// it without a URI.
const systemRoot = "RYE_SYSTEM"

const systemPrefix = "<system>/"

// writeSARIF writes a SARIF 2.1.0 log for GitHub code scanning: one run,
// the rules with their descriptions, help text and URL, one result per
// finding with its file and region, and the invocation: whether rye could
// run, its exit code, and for a failed run the error as a tool execution
// notification (so that a job that could not check anything uploads a log
// that says so, not an empty one).
//
// The results are written one at a time into the log around them
// (sarifRun), so that a run with a hundred thousand findings holds them
// once, not again as SARIF values and again as their encoding. The bytes
// are those of go-sarif's PrettyWrite of the whole log.
func writeSARIF(w io.Writer, r *Report) error {
	r.Sort()
	log, run, err := sarifRun(r)
	if err != nil {
		return err
	}
	index := map[string]int{}
	for i, rule := range run.Tool.Driver.Rules {
		index[rule.ID] = i
	}
	run.Results = nil // the marker: "results": null
	doc, err := json.MarshalIndent(log, "", "  ")
	if err != nil {
		return err
	}
	head, tail, ok := bytes.Cut(doc, []byte(`"results": null`))
	if !ok {
		return errors.New("SARIF: the log has no results")
	}
	if _, err := w.Write(head); err != nil {
		return err
	}
	io.WriteString(w, `"results": [`)
	const indent = "\n        " // a result is at depth 4: log, runs, run, results
	for i, f := range r.Findings {
		b, err := json.MarshalIndent(sarifResult(r, f).WithRuleIndex(index[f.Rule]), indent[1:], "  ")
		if err != nil {
			return err
		}
		sep := "," + indent
		if i == 0 {
			sep = indent
		}
		if _, err := io.WriteString(w, sep); err != nil {
			return err
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	end := "]"
	if len(r.Findings) > 0 {
		end = "\n      ]"
	}
	if _, err := io.WriteString(w, end); err != nil {
		return err
	}
	_, err = w.Write(tail)
	return err
}

// sarifRun is the SARIF log of r without its results: its one run, with
// the rules, the bases of the URIs, the invocation.
func sarifRun(r *Report) (*sarif.Report, *sarif.Run, error) {
	log, err := sarif.New(sarif.Version210)
	if err != nil {
		return nil, nil, err
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
		full := rule.Help
		if full == "" {
			full = short
		}
		// GitHub shows fullDescription at the top of an alert, and its
		// ingestion rules flag a rule without one.
		d.WithFullDescription(sarif.NewMultiformatMessageString(full))
		d.WithHelp(sarif.NewMultiformatMessageString(full))
		if rule.URL != "" {
			d.WithHelpURI(rule.URL)
		}
		if len(rule.Tags) > 0 {
			pb := sarif.NewPropertyBag()
			pb.Add("tags", rule.Tags)
			d.AttachPropertyBag(pb)
		}
	}
	bases := map[string]*sarif.ArtifactLocation{}
	for _, f := range r.Findings {
		if strings.HasPrefix(f.Path, systemPrefix) {
			bases[systemRoot] = sarif.NewArtifactLocation().WithDescriptionText("the system bundle compiled into rye " + r.Version + ": no file on disk")
			break
		}
	}
	if r.Root != "" {
		bases[sourceRoot] = sarif.NewArtifactLocation().WithUri(dirURI(r.Root))
	}
	if len(bases) > 0 {
		run.WithOriginalUriBaseIds(bases)
	}
	inv := run.AddInvocation(r.Failure == nil).WithExitCode(r.ExitCode())
	if r.Failure != nil {
		inv.WithToolExecutionNotifications([]*sarif.Notification{
			sarif.NewNotification().WithLevel("error").WithMessage(sarif.NewTextMessage(r.Failure.Message)),
		})
	}
	// Finding columns count characters (code points): lint converts its
	// byte positions when it makes findings.
	run.WithColumnKind("unicodeCodePoints")
	log.AddRun(run)
	return log, run, nil
}

// sarifResult is the result of one finding of r, without its rule index.
func sarifResult(r *Report, f Finding) *sarif.Result {
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
	loc := sarif.NewArtifactLocation().WithUri(uri(f.Path))
	switch {
	case strings.HasPrefix(f.Path, systemPrefix):
		loc.WithUri(escapePath(strings.TrimPrefix(f.Path, systemPrefix))).WithUriBaseId(systemRoot)
	case r.Root != "" && inRoot(f.Path):
		loc.WithUriBaseId(sourceRoot)
	}
	res := sarif.NewRuleResult(f.Rule).WithLevel(level(f.Severity)).WithMessage(sarif.NewTextMessage(f.Message))
	res.AddLocation(sarif.NewLocationWithPhysicalLocation(sarif.NewPhysicalLocation().WithArtifactLocation(loc).WithRegion(region)))
	return res
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

// inRoot reports whether a finding's path is relative to the report's
// Root: not absolute, not above it, and not a file of the embedded system
// bundle ("<system>/.ai/…"), which is in no repository.
func inRoot(p string) bool {
	p = filepath.ToSlash(p)
	return p != "" && !strings.HasPrefix(p, "/") && !filepath.IsAbs(p) && !strings.HasPrefix(p, "<") &&
		p != ".." && !strings.HasPrefix(p, "../")
}

// uri turns a path into a URI reference: a relative one with '/'
// separators for a path in the root, a file: URI for an absolute path, each
// segment percent-encoded where URI syntax needs it.
func uri(p string) string {
	p = strings.TrimPrefix(filepath.ToSlash(p), "./")
	if filepath.IsAbs(filepath.FromSlash(p)) || strings.HasPrefix(p, "/") {
		return fileURI(p)
	}
	// A ':' in a relative reference's first segment would read as a
	// scheme: escape it everywhere, as it is a rare character in a path.
	return strings.ReplaceAll(escapePath(p), ":", "%3A")
}

// fileURI is the file: URI of an absolute path.
func fileURI(p string) string {
	p = filepath.ToSlash(p)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows drive: file:///C:/...
	}
	return "file://" + escapePath(p)
}

// dirURI is the file: URI of a folder, ending in '/' as SARIF requires of
// a base.
func dirURI(dir string) string {
	u := fileURI(dir)
	if !strings.HasSuffix(u, "/") {
		u += "/"
	}
	return u
}

// escapePath percent-encodes each segment of a '/'-separated path.
func escapePath(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		parts[i] = url.PathEscape(s)
	}
	return strings.Join(parts, "/")
}
