package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ryekit/rye/internal/sarifcheck"
)

func sample() *Report {
	r := &Report{Tool: "rye verify", Version: "v1.2.3"}
	r.AddRule(Rule{ID: "verify/modified", Short: "Changed after signing.", Help: "Sign again.", URL: "https://example.com/verify.md#modified", Tags: []string{"security", "rye"}})
	r.Add(Finding{Rule: "verify/modified", Severity: Error, Path: ".ai/tools/b.py", Line: 2, Col: 1, Message: "modified: changed", Kind: "tool", ID: "b"})
	r.Add(Finding{Rule: "verify/warning", Severity: Warning, Path: ".ai/tools/a.py", Line: 1, Col: 1, Message: "v1 signature"})
	r.Add(Finding{Rule: "lint/metadata", Severity: Error, Path: ".ai/tools/a.py", Line: 3, Col: 5, EndLine: 3, EndCol: 8, Message: "version: found a number"})
	r.Add(Finding{Rule: "verify/trust-store", Severity: Warning, Path: ".ai/trusted_keys/x.toml", Message: "ignored"})
	r.Items = []Item{{Failed: true, Value: map[string]string{"id": "b"}}, {Failed: false, Value: map[string]string{"id": "a"}}}
	r.Notes = []string{"a note"}
	return r
}

func TestText(t *testing.T) {
	var b bytes.Buffer
	if err := WriteText(&b, sample(), "2 items: 1 verified, 1 failed", false); err != nil {
		t.Fatal(err)
	}
	want := `.ai/tools/a.py:1:1: warning: v1 signature [verify/warning]
.ai/tools/a.py:3:5: error: version: found a number [lint/metadata]

.ai/tools/b.py:2:1: error: modified: changed [verify/modified]

.ai/trusted_keys/x.toml: warning: ignored [verify/trust-store]

a note
2 items: 1 verified, 1 failed
`
	if b.String() != want {
		t.Errorf("text:\n%s\nwant:\n%s", b.String(), want)
	}
	r := sample()
	if r.ExitCode() != 1 || r.Failed() != 1 || r.Count(Warning) != 2 {
		t.Errorf("exit %d failed %d warnings %d", r.ExitCode(), r.Failed(), r.Count(Warning))
	}
	if (&Report{Findings: []Finding{{Severity: Warning}}}).ExitCode() != 0 {
		t.Error("warnings alone fail")
	}
	if Count(1204) != "1,204" || Count(7) != "7" || Count(1234567) != "1,234,567" || Plural(1, "item") != "1 item" || Join("0 failed", "3 verified") != "3 verified" {
		t.Error("number formatting")
	}
}

func TestJSON(t *testing.T) {
	var b bytes.Buffer
	if err := writeJSON(&b, sample(), map[string]int{"items": 2}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tool     string
		Summary  map[string]int
		Items    []map[string]string
		Findings []Finding
		Rules    []Rule
		Notes    []string
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Tool != "rye verify" || doc.Summary["items"] != 2 || len(doc.Items) != 2 || len(doc.Findings) != 4 || len(doc.Rules) != 4 || doc.Notes[0] != "a note" {
		t.Errorf("%+v", doc)
	}
	if doc.Findings[0].Path != ".ai/tools/a.py" || doc.Rules[0].ID != "lint/metadata" || doc.Rules[1].URL != "https://example.com/verify.md#modified" {
		t.Errorf("order: %+v %+v", doc.Findings[0], doc.Rules)
	}
	// An empty report still has arrays, not nulls.
	b.Reset()
	writeJSON(&b, &Report{Tool: "x"}, nil)
	if !strings.Contains(b.String(), `"findings": []`) || !strings.Contains(b.String(), `"items": []`) {
		t.Errorf("empty: %s", b.String())
	}
}

func TestSARIF(t *testing.T) {
	var b bytes.Buffer
	if err := writeSARIF(&b, sample()); err != nil {
		t.Fatal(err)
	}
	if err := sarifcheck.Validate(b.Bytes()); err != nil {
		t.Fatalf("%v\n%s", err, b.Bytes())
	}
	var log struct {
		Version string
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name  string
					Rules []struct {
						ID         string
						HelpURI    string
						Properties struct{ Tags []string }
					}
				}
			}
			Results []struct {
				RuleID    string
				Level     string
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
						Region           struct{ StartLine, StartColumn, EndColumn int }
					}
				}
			}
		}
	}
	if err := json.Unmarshal(b.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	run := log.Runs[0]
	if log.Version != "2.1.0" || run.Tool.Driver.Name != "rye" || len(run.Tool.Driver.Rules) != 4 || len(run.Results) != 4 {
		t.Fatalf("%+v", log)
	}
	for _, rule := range run.Tool.Driver.Rules {
		if tags := strings.Join(rule.Properties.Tags, ","); (rule.ID == "verify/modified") != (tags == "security,rye") {
			t.Errorf("rule %s: tags %q", rule.ID, tags)
		}
	}
	r0 := run.Results[0]
	if r0.RuleID != "verify/warning" || r0.Level != "warning" || r0.Locations[0].PhysicalLocation.ArtifactLocation.URI != ".ai/tools/a.py" {
		t.Errorf("first result %+v", r0)
	}
	if reg := run.Results[1].Locations[0].PhysicalLocation.Region; reg.StartLine != 3 || reg.StartColumn != 5 || reg.EndColumn != 8 {
		t.Errorf("region %+v", reg)
	}
	// An empty run validates too.
	b.Reset()
	writeSARIF(&b, &Report{Tool: "x", Version: "devel"})
	if err := sarifcheck.Validate(b.Bytes()); err != nil {
		t.Fatal(err)
	}
}

func TestGitHub(t *testing.T) {
	r := &Report{Tool: "rye check"}
	for i := 0; i < 13; i++ {
		r.Add(Finding{Rule: "verify/modified", Severity: Error, Path: fmt.Sprintf(".ai/tools/t%02d.py", i), Line: 1, Col: 1, Message: "50% done,\nnext line"})
	}
	r.Add(Finding{Rule: "verify/warning", Severity: Warning, Path: ".ai/a:b,c.py", Message: "w"})
	summary := filepath.Join(t.TempDir(), "summary.md")
	os.WriteFile(summary, []byte("earlier step\n"), 0o644)
	var b bytes.Buffer
	if err := writeGitHub(&b, r, "14 items: 13 failed", summary); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if n := strings.Count(out, "::error "); n != maxAnnotations {
		t.Errorf("%d error annotations, want %d", n, maxAnnotations)
	}
	for _, want := range []string{
		"::error file=.ai/tools/t00.py,line=1,col=1,title=rye verify/modified::50%25 done,%0Anext line\n",
		"::warning file=.ai/a%3Ab%2Cc.py,title=rye verify/warning::w\n",
		"::notice title=rye::3 more (error) not shown as annotations; the job summary lists them all\n",
		"14 items: 13 failed\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	md, _ := os.ReadFile(summary)
	if !strings.HasPrefix(string(md), "earlier step\n### rye check\n\n14 items: 13 failed\n") || strings.Count(string(md), "| error |") != 13 || !strings.Contains(string(md), "50% done, next line") {
		t.Errorf("summary:\n%s", md)
	}
	// Without GITHUB_STEP_SUMMARY nothing is written anywhere else.
	b.Reset()
	if err := writeGitHub(&b, r, "s", ""); err != nil {
		t.Fatal(err)
	}
}

// Every rule has a fullDescription (GitHub shows it, and flags a rule
// without one); relative URIs name the root as their base; the invocation
// records the exit code.
func TestSARIFForGitHub(t *testing.T) {
	r := sample().Relocated(func(p string) string { return "sub/" + p }, "/repo")
	var b bytes.Buffer
	if err := writeSARIF(&b, r); err != nil {
		t.Fatal(err)
	}
	if err := sarifcheck.Validate(b.Bytes()); err != nil {
		t.Fatal(err)
	}
	if err := sarifcheck.GitHub(b.Bytes()); err != nil {
		t.Fatalf("%v\n%s", err, b.Bytes())
	}
	out := b.String()
	for _, want := range []string{`"uri": "sub/.ai/tools/a.py"`, `"uriBaseId": "%SRCROOT%"`, `"uri": "file:///repo/"`, `"executionSuccessful": true`, `"exitCode": 1`, `"fullDescription": {`} {
		if !strings.Contains(out, want) {
			t.Errorf("no %s in\n%s", want, out)
		}
	}
	// A path outside the root is a file: URI without a base; the system
	// bundle's is escaped.
	r = &Report{Tool: "x", Root: "/repo", Findings: []Finding{{Rule: "r", Severity: Error, Path: "/home/u/.ai/a b.py", Message: "m"}, {Rule: "r", Severity: Error, Path: "<system>/.ai/x.py", Message: "m"}}}
	b.Reset()
	writeSARIF(&b, r)
	if err := sarifcheck.GitHub(b.Bytes()); err != nil {
		t.Fatalf("%v\n%s", err, b.Bytes())
	}
	if !strings.Contains(b.String(), `"uri": "file:///home/u/.ai/a%20b.py"`) || !strings.Contains(b.String(), `"uri": ".ai/x.py",`+"\n"+`                  "uriBaseId": "RYE_SYSTEM"`) {
		t.Errorf("uris:\n%s", b.String())
	}
}

// A run that failed before it could report is an error in every format.
func TestFailure(t *testing.T) {
	r := &Report{Tool: "rye check", Version: "v1", Root: "/repo", Failure: &Failure{Message: "--trust-ref: git ref \"nope\": not found", ExitCode: 2}}
	if r.ExitCode() != 2 {
		t.Errorf("exit %d", r.ExitCode())
	}
	var b bytes.Buffer
	if err := writeSARIF(&b, r); err != nil {
		t.Fatal(err)
	}
	if err := sarifcheck.Validate(b.Bytes()); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Runs []struct {
			Invocations []struct {
				ExecutionSuccessful        bool
				ExitCode                   int
				ToolExecutionNotifications []struct {
					Level   string
					Message struct{ Text string }
				}
			}
		}
	}
	json.Unmarshal(b.Bytes(), &log)
	inv := log.Runs[0].Invocations
	if len(inv) != 1 || inv[0].ExecutionSuccessful || inv[0].ExitCode != 2 || inv[0].ToolExecutionNotifications[0].Message.Text != r.Failure.Message || inv[0].ToolExecutionNotifications[0].Level != "error" {
		t.Errorf("invocation %+v", inv)
	}
	b.Reset()
	writeJSON(&b, r, nil)
	var doc struct {
		Error struct {
			Message  string
			ExitCode int `json:"exit_code"`
		}
		Root string
	}
	json.Unmarshal(b.Bytes(), &doc)
	if doc.Error.Message != r.Failure.Message || doc.Error.ExitCode != 2 || doc.Root != "/repo" {
		t.Errorf("json %s", b.String())
	}
	b.Reset()
	summary := filepath.Join(t.TempDir(), "summary.md")
	writeGitHub(&b, r, "", summary)
	if b.String() != "::error title=rye check::--trust-ref%3A git ref \"nope\"%3A not found\n" && b.String() != "::error title=rye check::--trust-ref: git ref \"nope\": not found\n" {
		t.Errorf("github %q", b.String())
	}
	md, _ := os.ReadFile(summary)
	if !strings.Contains(string(md), "**rye could not run (exit 2):** --trust-ref") {
		t.Errorf("summary %s", md)
	}
}

func TestMergeAndRelocate(t *testing.T) {
	a, b := sample(), &Report{Tool: "rye verify", Findings: []Finding{{Rule: "x/y", Severity: Warning, Path: "b/.ai/k.md", Message: "w"}}, Notes: []string{"b note"}}
	b.AddRule(Rule{ID: "x/y", Short: "Y."})
	m := Merge("rye check", a, b)
	if m.Tool != "rye check" || m.Version != "v1.2.3" || len(m.Findings) != 5 || len(m.Items) != 2 || len(m.Rules) != 2 || len(m.Notes) != 2 {
		t.Errorf("merged %+v", m)
	}
	moved := m.Relocated(func(p string) string { return "top/" + p }, "/r")
	if moved.Root != "/r" || moved.Findings[4].Path != "top/b/.ai/k.md" || m.Findings[4].Path != "b/.ai/k.md" {
		t.Errorf("relocated %+v (original %+v)", moved.Findings, m.Findings)
	}
}

func TestTextColor(t *testing.T) {
	var b bytes.Buffer
	WriteText(&b, sample(), "s", true)
	if !strings.Contains(b.String(), "\x1b[1m.ai/tools/a.py:3:5\x1b[0m: \x1b[1;31merror\x1b[0m: version") {
		t.Errorf("%q", b.String())
	}
	b.Reset()
	WriteText(&b, sample(), "s", false)
	if strings.Contains(b.String(), "\x1b") {
		t.Errorf("colour without asking: %q", b.String())
	}
}
