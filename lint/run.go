package lint

import (
	"bytes"
	"fmt"
	"go/token"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/tools/go/analysis"

	"github.com/ryekit/rye/internal/par"
	"github.com/ryekit/rye/report"
)

// options configure a lint run.
type options struct {
	Analyzers []*analysis.Analyzer // default: all
	// Severity overrides an analyzer's severity: "error", "warning",
	// "info", or "off" to drop its findings.
	Severity map[string]string
	// Progress, when set, is told how many of the run's analyzers (those
	// asked for and what they require) have finished, over every chunk.
	Progress func(done, total int)
	// Fixes keeps what --fix needs (Result.Fixable, and every file's bytes
	// in Result.Env): the run is then one chunk, however large the tree.
	Fixes bool
	// Baseline, when set, reads a file as it is at the trust ref the run
	// is anchored to (ok false when the ref does not have it). A change
	// under review must not silence rye's security rules: a rye:ignore of
	// one of them silences an error-level finding only on a line the file
	// already had, word for word, at BaselineRef.
	Baseline    func(f *file) (src []byte, ok bool, err error)
	BaselineRef string
	// chunkSize replaces defaultChunk (tests: one file at a time).
	chunkSize int
}

// chunk is how many files the run analyses at a time.
func (o options) chunk() int {
	if o.chunkSize > 0 {
		return o.chunkSize
	}
	return defaultChunk
}

// validate checks the severities: each names an analyzer and a severity.
func (o options) validate() error {
	for name, sev := range o.Severity {
		if _, err := Select([]string{name}, nil); err != nil {
			return fmt.Errorf("lint.severity: %v", err)
		}
		switch sev {
		case sevError, sevWarning, sevInfo, "off":
		default:
			return fmt.Errorf("lint.severity.%s: %q is not error, warning, info or off", name, sev)
		}
	}
	return nil
}

// Result is a finished lint run.
type Result struct {
	Findings []report.Finding
	// Fixable are the diagnostics whose first suggested fix --fix applies
	// (suppressed and dropped findings excluded), with Options.Fixes.
	Fixable []diagnostic
	Env     *Env
	// RyeOSTree is set for a run over a ryeOS 0.2+ project: its report
	// groups the signature analyzer's failures by cause (groupRyeOS).
	RyeOSTree bool
}

// defaultChunk is how many files a run analyses at a time: their bytes
// and parses are held while their chunk is analysed, then dropped, so
// that memory does not grow with the tree.
const defaultChunk = 2048

// lint runs the analyzers over env and turns their diagnostics into
// findings: suppressions applied (rye:ignore <analyzer> -- <reason> in a
// comment on the line), severities set, rule ids "<analyzer>/<name>".
//
// The files are analysed a chunk at a time (all at once with
// Options.Fixes): each chunk's files are read, analysed and let go before
// the next. The analyzers that compare files (ids, chain) look at all of
// them (Env.All) and report on the chunk's.
func lint(e *Env, o options) (*Result, error) {
	r, err := newRun(e, o)
	if err != nil {
		return nil, err
	}
	if o.Fixes {
		openAll(e.Files)
		openAll(e.Others)
		r.res.Env = e
		return r.res, r.res.add(e, r.analyzers, o, o.Progress)
	}
	var chunks [][]*file
	chunkSize := o.chunk()
	for i := 0; i < len(e.Files); i += chunkSize {
		chunks = append(chunks, e.Files[i:min(i+chunkSize, len(e.Files))])
	}
	if len(chunks) == 0 || len(e.Others) > 0 {
		chunks = append(chunks, nil) // the other files have a chunk of their own
	}
	for n, files := range chunks {
		var others []*file
		if n == len(chunks)-1 {
			others = e.Others
		}
		if err := r.chunk(files, others, n, len(chunks)); err != nil {
			return nil, err
		}
	}
	return r.res, nil
}

// run is one lint run over an Env, a chunk of its files at a time.
type run struct {
	e         *Env
	o         options
	analyzers []*analysis.Analyzer
	res       *Result
	shared    *shared
}

func newRun(e *Env, o options) (*run, error) {
	analyzers := o.Analyzers
	if analyzers == nil {
		analyzers = Analyzers
	}
	if err := o.validate(); err != nil {
		return nil, err
	}
	if err := analysis.Validate(analyzers); err != nil {
		return nil, err
	}
	res := &Result{Env: &Env{Files: e.Files, Others: e.Others, Spaces: e.Spaces, Extractors: e.Extractors, Verify: e.Verify}}
	return &run{e: e, o: o, analyzers: analyzers, res: res, shared: &shared{}}, nil
}

// chunk analyses files and others (chunk n of about total, for progress):
// reads them, runs the analyzers, adds the findings and lets the files
// go. The cross-file analyzers see every file of the run's Env.
func (r *run) chunk(files, others []*file, n, total int) error {
	sub := &Env{Files: files, Others: others, All: r.e.Files, Spaces: r.e.Spaces, Extractors: r.e.Extractors, Verify: r.e.Verify, shared: r.shared}
	openAll(files)
	openAll(others)
	var progress func(done, total int)
	if r.o.Progress != nil {
		per := closure(r.analyzers)
		progress = func(done, _ int) { r.o.Progress(n*per+done, max(total, n+1)*per) }
	}
	err := r.res.add(sub, r.analyzers, r.o, progress)
	for _, f := range files {
		f.close()
	}
	for _, f := range others {
		f.close()
	}
	return err
}

// openAll reads the files' bytes, in parallel.
func openAll(files []*file) {
	par.For(len(files), par.IO(), func(i int) { files[i].open() })
}

// add runs the analyzers over one chunk and adds its findings.
func (res *Result) add(e *Env, analyzers []*analysis.Analyzer, o options, progress func(done, total int)) error {
	diags, err := runAnalyzers(e, analyzers, progress)
	if err != nil {
		return err
	}
	sups := suppressions(e)
	res.Findings = append(res.Findings, sups.problems...)
	baseline := baselineLines{o: o}
	for _, d := range diags {
		f := e.File(d.Pos)
		pos := e.Fset.Position(d.Pos)
		if pos.Line == 0 && pos.Filename != "" {
			pos.Line, pos.Column = 1, 1 // an empty file has no lines in a token.File
		}
		sev, name := splitCategory(d.Category)
		if over, ok := o.Severity[d.Analyzer.Name]; ok {
			if over == "off" {
				continue
			}
			sev = over
		}
		if sev == sevError && strings.HasPrefix(name, "advice/") {
			sev = sevWarning // advice (ryeos/advice/...) is never an error, whatever the settings say
		}
		msg := d.Message
		if f != nil && sups.covers(f, pos.Line, d.Analyzer.Name) {
			why, err := baseline.overrules(f, pos.Line, d.Analyzer.Name, sev)
			if err != nil {
				return err
			}
			if why == "" {
				continue
			}
			msg += " (" + why + ")"
		}
		fd := report.Finding{Rule: d.Analyzer.Name + "/" + name, Severity: report.Severity(sev), Path: pos.Filename, Line: pos.Line, Col: charColumn(f, pos), Message: msg}
		if d.End.IsValid() {
			end := e.Fset.Position(d.End)
			fd.EndLine, fd.EndCol = end.Line, charColumn(f, end)
		}
		if f != nil {
			fd.Kind, fd.ID = string(f.Kind), string(f.ID)
		}
		res.Findings = append(res.Findings, fd)
		if len(d.SuggestedFixes) > 0 && o.Fixes {
			res.Fixable = append(res.Fixable, d)
		}
	}
	return nil
}

// baselineLines reads the files of a chunk at the trust ref, once each.
type baselineLines struct {
	o     options
	files map[*file]map[string]bool // nil value: not at the ref
}

// overrules says why the rye:ignore on line of f does not silence a
// finding of analyzer at severity sev ("" when it does): under a trust
// ref, one of rye's security rules at error level is silenced only by a
// suppression on a line the file had at the ref, word for word.
func (b *baselineLines) overrules(f *file, line int, analyzer, sev string) (string, error) {
	if b.o.Baseline == nil || !securityRule(analyzer) || sev != sevError {
		return "", nil
	}
	if b.files == nil {
		b.files = map[*file]map[string]bool{}
	}
	lines, read := b.files[f]
	if !read {
		src, ok, err := b.o.Baseline(f)
		if err != nil {
			return "", fmt.Errorf("%s at %s: %w", f.Name, b.o.BaselineRef, err)
		}
		if ok {
			lines = map[string]bool{}
			for _, l := range strings.Split(string(src), "\n") {
				lines[strings.TrimSuffix(l, "\r")] = true
			}
		}
		b.files[f] = lines
	}
	text := lineText(f.Src, line)
	switch {
	case lines == nil:
		return fmt.Sprintf("the rye:ignore on this line is ignored: the file is not at %s, so the change under review adds the suppression, and a change cannot silence rye's security rules", b.o.BaselineRef), nil
	case !lines[text]:
		return fmt.Sprintf("the rye:ignore on this line is ignored: the line is not in this file at %s, so the change under review wrote it, and a change cannot silence rye's security rules", b.o.BaselineRef), nil
	}
	return "", nil
}

// lineText is the 1-based line of src, without its line break.
func lineText(src []byte, line int) string {
	for n := 1; n < line; n++ {
		i := bytes.IndexByte(src, '\n')
		if i < 0 {
			return ""
		}
		src = src[i+1:]
	}
	if i := bytes.IndexByte(src, '\n'); i >= 0 {
		src = src[:i]
	}
	return strings.TrimSuffix(string(src), "\r")
}

// rules describes every rule a run may report, for SARIF and JSON.
func rules() []report.Rule {
	var out []report.Rule
	for _, a := range Analyzers {
		short, _, _ := strings.Cut(a.Doc, "\n")
		rule := report.Rule{ID: a.Name, Short: short, Help: a.Doc, URL: a.URL}
		if securityRule(a.Name) {
			rule.Short = "rye security rule: " + short
			rule.Tags = []string{"security", "rye"}
		}
		out = append(out, rule)
	}
	out = append(out, report.Rule{ID: "suppression", Short: "rye:ignore comments need an analyzer and a reason", URL: docURL("suppression")})
	return out
}

// ruleFor returns the description of a finding's rule ("chain/build" is
// described by the chain analyzer).
func ruleFor(id string) report.Rule {
	analyzer, _, _ := strings.Cut(id, "/")
	for _, r := range rules() {
		if r.ID == analyzer {
			r.ID = id
			return r
		}
	}
	return report.Rule{ID: id}
}

// suppressionRE finds "rye:ignore <analyzer> -- <reason>" after a comment
// opener on a line.
var suppressionRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:#|//|<!--)[^\n]*?\brye:ignore\b[ \t]*([A-Za-z_-]*)[ \t]*(?:--[ \t]*([^\n]*?))?[ \t]*(?:-->)?[ \t]*\r?$`)
})

type suppressionSet struct {
	byLine   map[*file]map[int]map[string]bool
	problems []report.Finding
}

func (s suppressionSet) covers(f *file, line int, analyzer string) bool {
	return s.byLine[f][line][analyzer]
}

// suppressions reads every rye:ignore comment. One without an analyzer or
// without a reason is itself a finding: a suppression must say what it
// silences and why.
func suppressions(e *Env) suppressionSet {
	s := suppressionSet{byLine: map[*file]map[int]map[string]bool{}}
	known := map[string]bool{}
	for _, n := range AnalyzerNames() {
		known[n] = true
	}
	// Which files mention rye:ignore at all, looked for in parallel (the
	// rest of a chunk's work is): in the bytes, not in a string copy.
	mentions := make([]bool, len(e.Files))
	par.For(len(e.Files), par.CPU(), func(i int) { mentions[i] = bytes.Contains(e.Files[i].Src, []byte("rye:ignore")) })
	for i, f := range e.Files {
		if !mentions[i] {
			continue
		}
		lines := strings.Split(string(f.Src), "\n")
		for i, text := range lines {
			m := suppressionRE().FindStringSubmatch(text)
			if m == nil {
				continue
			}
			line := i + 1
			name, reason := m[1], strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(m[2]), "-->"))
			problem := ""
			switch {
			case name == "":
				problem = "rye:ignore needs the analyzer it silences: rye:ignore <analyzer> -- <reason>"
			case !known[name]:
				problem = fmt.Sprintf("rye:ignore %s: unknown analyzer (known: %s)", name, strings.Join(AnalyzerNames(), ", "))
			case reason == "":
				problem = fmt.Sprintf("rye:ignore %s has no reason: write rye:ignore %s -- <why this is fine>", name, name)
			}
			if problem != "" {
				s.problems = append(s.problems, report.Finding{Rule: "suppression", Severity: report.Error, Path: f.Name, Line: line, Col: 1, Message: problem, Kind: string(f.Kind), ID: string(f.ID)})
				continue
			}
			if s.byLine[f] == nil {
				s.byLine[f] = map[int]map[string]bool{}
			}
			if s.byLine[f][line] == nil {
				s.byLine[f][line] = map[string]bool{}
			}
			s.byLine[f][line][name] = true
		}
	}
	return s
}

// sortDiagnostics orders diagnostics by position.
func sortDiagnostics(ds []diagnostic) {
	sort.SliceStable(ds, func(i, j int) bool { return ds[i].Pos < ds[j].Pos })
}

// charColumn turns a position's byte column into a character (Unicode code
// point) column, the unit findings use in every format: SARIF viewers
// count code points, and so do people. Invalid UTF-8 counts a byte each.
func charColumn(f *file, pos token.Position) int {
	if f == nil || pos.Column <= 1 || pos.Offset > len(f.Src) {
		return pos.Column
	}
	start := pos.Offset - (pos.Column - 1)
	if start < 0 {
		return pos.Column
	}
	return utf8.RuneCount(f.Src[start:pos.Offset]) + 1
}
