package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// referenceDocument is the JSON document as encoding/json writes it as one
// value: what the streamed writer must reproduce byte for byte.
type referenceDocument struct {
	Tool     string     `json:"tool"`
	Root     string     `json:"root,omitempty"`
	Version  string     `json:"version"`
	Items    []any      `json:"items"`
	Findings []Finding  `json:"findings"`
	Rules    []Rule     `json:"rules"`
	Notes    []string   `json:"notes"`
	Summary  any        `json:"summary"`
	Error    *jsonError `json:"error,omitempty"`
}

func reference(t *testing.T, r *Report, items []any, summary any) []byte {
	t.Helper()
	sorted := *r
	sorted.Findings = append([]Finding(nil), r.Findings...)
	sorted.Sort()
	doc := referenceDocument{Tool: r.Tool, Root: r.Root, Version: r.Version, Items: items, Findings: sorted.Findings,
		Rules: sorted.sortedRules(), Notes: r.Notes, Summary: summary}
	if doc.Items == nil {
		doc.Items = []any{}
	}
	if doc.Findings == nil {
		doc.Findings = []Finding{}
	}
	if doc.Notes == nil {
		doc.Notes = []string{}
	}
	if r.Failure != nil {
		doc.Error = &jsonError{Message: r.Failure.Message, ExitCode: r.Failure.ExitCode}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// verdict is an item whose path a machine format renames (Relocatable).
type verdict struct {
	Path     string   `json:"path"`
	Verdict  string   `json:"verdict"`
	Warnings []string `json:"warnings,omitempty"`
	Nested   struct {
		Line int `json:"line"`
	} `json:"nested"`
}

func (v verdict) ItemPath() string { return v.Path }
func (v verdict) WithPath(p string) any {
	v.Path = p
	return v
}

// The streamed document (standard output and a file, items handed over
// one by one) is byte for byte encoding/json's document of the same
// report, items renamed as machine formats name them, whatever the
// report holds: no item, nested values, characters that HTML escaping or
// indentation would change, a failure, no root.
func TestStreamedJSONIsTheDocument(t *testing.T) {
	paths := NewPaths("/repo/sub", "/repo/sub", "/repo", "", false)
	many := func() *Report {
		r := sample()
		r.Items = nil
		for i, p := range []string{"a.py", ".ai/tools/<b>&c.py", "d/ü\u2028.md"} {
			v := verdict{Path: p, Verdict: "verified"}
			if i == 1 {
				v.Verdict, v.Warnings = "modified", []string{"a <warning> & \"quotes\"", ""}
			}
			v.Nested.Line = i
			r.Items = append(r.Items, Item{Failed: i == 1, Value: v})
		}
		r.Items = append(r.Items, Item{Value: map[string]any{"kind": "tool", "list": []int{1, 2}, "empty": []string{}, "nil": nil}})
		return r
	}
	cases := map[string]struct {
		rep     *Report
		paths   Paths
		summary any
	}{
		"items":    {many(), paths, VerifySummary{Projects: 1, Items: 4, Verified: 3, Failed: 1}},
		"no items": {&Report{Tool: "rye lint", Version: "v1"}, paths, lintSummary{Items: 0}},
		"no root":  {many(), Paths{}, nil},
		"failure":  {&Report{Tool: "rye check", Version: "v1", Failure: &Failure{Message: "--trust-ref: <nope>", ExitCode: 2}}, paths, nil},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			var items []any
			for _, it := range c.rep.Items {
				v := it.Value
				if r, ok := v.(relocatable); ok {
					v = r.WithPath(c.paths.Map(r.ItemPath()))
				}
				items = append(items, v)
			}
			withRoot := c.rep.Relocated(c.paths.Map, c.paths.Root())
			want := reference(t, withRoot, items, c.summary)

			var whole bytes.Buffer
			if err := writeJSON(&whole, &Report{Tool: withRoot.Tool, Root: withRoot.Root, Version: withRoot.Version, Items: itemsOf(items),
				Findings: withRoot.Findings, Rules: c.rep.Rules, Notes: c.rep.Notes, Failure: c.rep.Failure}, c.summary); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(whole.Bytes(), want) {
				t.Errorf("WriteJSON:\n%s\nwant:\n%s", whole.Bytes(), want)
			}

			file := filepath.Join(t.TempDir(), "out.json")
			var stdout bytes.Buffer
			o := Outputs{List: []Output{{Format: "json"}, {Format: "json", File: file}}, Stdout: &stdout, Paths: c.paths}
			s := o.Open(c.rep.Tool, c.rep.Version)
			for _, it := range c.rep.Items {
				if err := s.Item(it.Value); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.Close(c.rep, "a line", c.summary); err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(file)
			if !bytes.Equal(stdout.Bytes(), want) || !bytes.Equal(got, want) {
				t.Errorf("streamed:\n%s\nfile:\n%s\nwant:\n%s", stdout.Bytes(), got, want)
			}
			if !json.Valid(got) {
				t.Error("not JSON")
			}
		})
	}
}

func itemsOf(values []any) []Item {
	var out []Item
	for _, v := range values {
		out = append(out, Item{Value: v})
	}
	return out
}

// The summary comes after the items and the lists, as docs/json.md says.
func TestJSONFieldOrder(t *testing.T) {
	var b bytes.Buffer
	writeJSON(&b, sample(), map[string]int{"items": 2})
	var keys []string
	dec := json.NewDecoder(&b)
	dec.Token() // {
	for dec.More() {
		k, _ := dec.Token()
		keys = append(keys, k.(string))
		var skip json.RawMessage
		dec.Decode(&skip)
	}
	if got := strings.Join(keys, " "); got != "tool version items findings rules notes summary" {
		t.Errorf("fields %s", got)
	}
}

// A run whose JSON file cannot be written whole (an item that has no
// JSON encoding, part-way through) leaves the file it would replace as
// it was, and nothing beside it; the outputs before it are written, those
// after it are not begun.
func TestStreamFailureLeavesNoPartialFile(t *testing.T) {
	dir := t.TempDir()
	text, out, later := filepath.Join(dir, "out.txt"), filepath.Join(dir, "out.json"), filepath.Join(dir, "later.sarif")
	os.WriteFile(out, []byte("the last run's document\n"), 0o644)
	var stdout bytes.Buffer
	o := Outputs{List: []Output{{Format: "text"}, {Format: "text", File: text}, {Format: "json", File: out}, {Format: "sarif", File: later}}, Stdout: &stdout}
	s := o.Open("rye verify", "v1")
	if err := s.Item(verdict{Path: "a.py", Verdict: "verified"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Item(math.Inf(1)); err == nil {
		t.Fatal("an item with no JSON encoding: no error")
	}
	err := s.Close(sample(), "line", nil)
	var fe *FileError
	if !errors.As(err, &fe) || fe.Output.File != out {
		t.Fatalf("Close: %v", err)
	}
	if data, _ := os.ReadFile(out); string(data) != "the last run's document\n" {
		t.Errorf("the old file became %q", data)
	}
	if _, err := os.Stat(text); err != nil || !strings.Contains(stdout.String(), "line") {
		t.Errorf("the outputs before the failed one: %v, %q", err, stdout.String())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("left in the folder: %v", entries)
	}

	// Standard output that fails part-way ends the run at the item.
	o = Outputs{List: []Output{{Format: "json"}, {Format: "json", File: out}}, Stdout: &failAfter{n: 10}}
	s = o.Open("rye verify", "v1")
	var stop error
	for i := 0; i < 10000 && stop == nil; i++ {
		stop = s.Item(verdict{Path: "a.py", Verdict: "verified"})
	}
	if stop == nil {
		t.Fatal("a failing standard output: no error")
	}
	s.abort(0)
	if data, _ := os.ReadFile(out); string(data) != "the last run's document\n" {
		t.Errorf("the old file became %q", data)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("left in the folder: %v", entries)
	}
}

// A run that fails after its items began: the document begun on standard
// output ends with the error (the items listed so far, summary null, the
// other lists empty), and a file begun is replaced by the failure's whole
// document, not by half of the run's.
func TestStreamFail(t *testing.T) {
	file := filepath.Join(t.TempDir(), "out.json")
	var stdout bytes.Buffer
	o := Outputs{List: []Output{{Format: "json"}, {Format: "json", File: file}, {Format: "text", File: file + ".txt"}}, Stdout: &stdout, Paths: NewPaths("/r", "/r", "", "", false)}
	s := o.Open("rye verify", "v1")
	s.Item(verdict{Path: "a.py", Verdict: "verified"})
	fail := &Report{Tool: "rye verify", Version: "v1", Failure: &Failure{Message: "git: no", ExitCode: 2}}
	if errs := s.Fail(fail); len(errs) > 0 {
		t.Fatal(errs)
	}
	var doc struct {
		Items    []verdict
		Findings []Finding
		Summary  any
		Error    jsonError
		Root     string
	}
	if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, stdout.Bytes())
	}
	if len(doc.Items) != 1 || doc.Items[0].Path != "a.py" || doc.Findings == nil || len(doc.Findings) != 0 || doc.Summary != nil || doc.Error.ExitCode != 2 || doc.Root != "/r" {
		t.Errorf("standard output %s", stdout.Bytes())
	}
	var whole bytes.Buffer
	writeJSON(&whole, fail, nil)
	if got, _ := os.ReadFile(file); !bytes.Equal(got, whole.Bytes()) {
		t.Errorf("file %s\nwant %s", got, whole.Bytes())
	}
	if _, err := os.Stat(file + ".txt"); err == nil {
		t.Error("a text file for a failure")
	}
}

// failAfter is a writer that fails after n bytes.
type failAfter struct {
	w io.Writer
	n int
}

func (f *failAfter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		return 0, errors.New("broken pipe")
	}
	f.n -= len(p)
	if f.w != nil {
		f.w.Write(p)
	}
	return len(p), nil
}

// writeSARIF, which writes the results one at a time into the log, gives
// the bytes of go-sarif's encoding of the whole log with every result in
// it: with and without findings, a root, files of the system bundle,
// characters that need escaping, a failure.
func TestSARIFStreamedIsTheLog(t *testing.T) {
	withSystem := sample().Relocated(func(p string) string { return "sub/" + p }, "/repo")
	withSystem.Add(Finding{Rule: "verify/warning", Severity: Warning, Path: "<system>/.ai/tools/x.py", Line: 1, Message: "v1 <signature> & \"more\""})
	withSystem.Add(Finding{Rule: "lint/metadata", Severity: info, Path: "/abs/a b.py", Message: "no position"})
	cases := map[string]*Report{
		"findings":     sample(),
		"root, system": withSystem,
		"none":         {Tool: "rye lint", Version: "v1"},
		"failure":      {Tool: "rye check", Version: "v1", Root: "/repo", Failure: &Failure{Message: "git: <no>", ExitCode: 2}},
	}
	for name, r := range cases {
		var got, want bytes.Buffer
		if err := writeSARIF(&got, r); err != nil {
			t.Fatal(err)
		}
		log, run, err := sarifRun(r)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range r.Findings {
			run.AddResult(sarifResult(r, f))
		}
		if err := log.PrettyWrite(&want); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("%s:\n%s\nwant:\n%s", name, got.Bytes(), want.Bytes())
		}
		if len(r.Findings) > 0 && !strings.Contains(got.String(), `"ruleIndex"`) {
			t.Errorf("%s: no rule index", name)
		}
	}
}
