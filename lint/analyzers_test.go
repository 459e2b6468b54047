package lint

import (
	"bytes"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"

	"github.com/ryekit/rye/config"
	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/report"
	"github.com/ryekit/rye/space"
)

var update = flag.Bool("update", false, "rewrite the want.txt files of testdata/src")

// testEnv loads a test project: the project space is dir (shown as "."),
// and the system space is the embedded bundle.
func testEnv(t *testing.T, dir string) *Env {
	t.Helper()
	sp := space.NewDiskSpace(space.Project, dir, "")
	sp.Shown = "."
	ss := &space.Spaces{Project: sp, System: []*space.Space{space.EmbeddedSpace()}}
	e, err := load(ss, sp, item.Kinds, nil, dir)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func renderFindings(fs []report.Finding) string {
	r := &report.Report{Findings: fs}
	r.Sort()
	var b strings.Builder
	for _, f := range r.Findings {
		fmt.Fprintf(&b, "%s:%d:%d: %s: %s [%s]\n", f.Path, f.Line, f.Col, f.Severity, f.Message, f.Rule)
	}
	return b.String()
}

func analyzerNamed(t *testing.T, name string) *analysis.Analyzer {
	as, err := Select([]string{name}, nil)
	if err != nil || len(as) != 1 {
		t.Fatalf("analyzer %s: %v", name, err)
	}
	return as[0]
}

// copyTree copies a testdata project so that fixes can be applied to it.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestAnalyzers runs each analyzer over its testdata projects
// (testdata/src/<analyzer>/<case>/) and compares the findings with the
// case's want.txt. A case that has a fixed.diff is also fixed: the diff of
// the fixes must equal it, and linting the fixed tree again must find
// nothing.
func TestAnalyzers(t *testing.T) {
	cases, _ := filepath.Glob(filepath.Join("testdata", "src", "*", "*"))
	if len(cases) == 0 {
		t.Fatal("no test cases")
	}
	for _, dir := range cases {
		name := filepath.Base(filepath.Dir(dir)) + "/" + filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			a := analyzerNamed(t, filepath.Base(filepath.Dir(dir)))
			res, err := lint(testEnv(t, dir), options{Analyzers: []*analysis.Analyzer{a}, Fixes: true})
			if err != nil {
				t.Fatal(err)
			}
			got := renderFindings(res.Findings)
			golden(t, filepath.Join(dir, "want.txt"), got)
			// A chunk at a time (one file, two, the default), the findings
			// are the same: the cross-file analyzers see every file.
			for _, size := range []int{1, 2, defaultChunk} {
				func() {
					chunked, err := lint(testEnv(t, dir), options{Analyzers: []*analysis.Analyzer{a}, chunkSize: size})
					if err != nil {
						t.Fatal(err)
					}
					if c := renderFindings(chunked.Findings); c != got {
						t.Errorf("chunks of %d files:\n%s\nall at once:\n%s", size, c, got)
					}
				}()
			}
			if _, err := os.Stat(filepath.Join(dir, "fixed.diff")); err != nil {
				return
			}
			fixed, conflicts := applyFixes(res)
			if len(conflicts) > 0 {
				t.Errorf("conflicting fixes: %s", renderFindings(conflicts))
			}
			var diff strings.Builder
			work := copyTree(t, dir)
			for _, fx := range fixed {
				diff.WriteString(Diff(fx.File.Name, fx.File.Src, fx.New))
				if err := os.WriteFile(filepath.Join(work, ".ai", filepath.FromSlash(fx.File.Rel)), fx.New, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			golden(t, filepath.Join(dir, "fixed.diff"), diff.String())
			again, err := lint(testEnv(t, work), options{Analyzers: []*analysis.Analyzer{a}})
			if err != nil {
				t.Fatal(err)
			}
			if left := renderFindings(again.Findings); left != "" {
				t.Errorf("after the fixes, still:\n%s", left)
			}
		})
	}
}

func golden(t *testing.T, file, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs:\n--- got\n%s--- want\n%s", file, got, want)
	}
}

func TestSymlinks(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links")
	}
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".ai", "tools", "t"), 0o755)
	os.WriteFile(filepath.Join(dir, ".ai", "tools", "t", "real.yaml"), []byte("version: \"1.0.0\"\n"), 0o644)
	if err := os.Symlink("real.yaml", filepath.Join(dir, ".ai", "tools", "t", "link.yaml")); err != nil {
		t.Skip(err)
	}
	res, err := lint(testEnv(t, dir), options{Analyzers: []*analysis.Analyzer{ids, parse, secrets}})
	if err != nil {
		t.Fatal(err)
	}
	want := ".ai/tools/t/link.yaml:1:1: error: symbolic link: rye refuses symbolic links inside .ai/ (verification and execution fail on it); replace it with the file itself [ids/symlink]\n"
	if got := renderFindings(res.Findings); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestUnreadable(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, ".ai", "tools", "t", "huge.yaml")
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, make([]byte, space.MaxItemSize+1), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := lint(testEnv(t, dir), options{Analyzers: []*analysis.Analyzer{parse}})
	if err != nil {
		t.Fatal(err)
	}
	want := ".ai/tools/t/huge.yaml:1:1: error: cannot read it: is larger than 1048576 bytes [parse/unreadable]\n"
	if got := renderFindings(res.Findings); got != want {
		t.Errorf("got %s", got)
	}
}

// TestChainsReadTheRunsBytes: a chain's project runtime is read from the
// run's files, whatever chunk it is in, not from the disk: rye check
// --staged lints the index's bytes, which the working tree need not have.
func TestChainsReadTheRunsBytes(t *testing.T) {
	dir := copyTree(t, "testdata/src/chain/chains")
	e := testEnv(t, dir)
	runtime := filepath.Join(dir, ".ai", "tools", "c", "runtime.yaml")
	staged, err := os.ReadFile(runtime)
	if err != nil {
		t.Fatal(err)
	}
	// The working tree's runtime names an executor that does not exist;
	// the run's (the index's, say) is the good one.
	os.WriteFile(runtime, bytes.Replace(staged, []byte("rye/core/primitives/subprocess"), []byte("c/nowhere"), 1), 0o644)
	for _, f := range e.Files {
		if f.Rel == "tools/c/runtime.yaml" {
			f.read = func() ([]byte, error) { return staged, nil }
		}
	}
	whole, err := lint(e, options{Analyzers: []*analysis.Analyzer{Chain}, Fixes: true})
	if err != nil {
		t.Fatal(err)
	}
	want := renderFindings(whole.Findings)
	if strings.Contains(want, "c/nowhere") || !strings.Contains(want, "c/needs → c/runtime → rye/core/primitives/subprocess") {
		t.Fatalf("the runtime was read from the disk:\n%s", want)
	}
	for _, f := range e.Files {
		f.close()
	}
	chunked, err := lint(e, options{Analyzers: []*analysis.Analyzer{Chain}, chunkSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got := renderFindings(chunked.Findings); got != want {
		t.Errorf("chunks of one file:\n%s\nall at once:\n%s", got, want)
	}
}

// TestSettingsTreeOnlyTightens: the tree under check (a change under
// review writes it) can add analyzers and make severities stricter, never
// disable an analyzer the trusted settings run or soften a severity.
func TestSettingsTreeOnlyTightens(t *testing.T) {
	names := func(as []*analysis.Analyzer) map[string]bool {
		m := map[string]bool{}
		for _, a := range as {
			m[a.Name] = true
		}
		return m
	}
	base := config.Lint{Disable: []string{"secrets"}, Severity: map[string]string{"schema": "warning", "chain": "error"}}
	tree := &config.Lint{
		Enable:  []string{"secrets"},   // adds one the trusted settings left out: taken
		Disable: []string{"signature"}, // turns one off: ignored
		Severity: map[string]string{
			"chain":     "off",     // softer than the trusted error: ignored
			"schema":    "error",   // stricter than the trusted warning: taken
			"metadata":  "warning", // no trusted override, not error: ignored
			"directive": "error",   // no trusted override, error: taken
			"ids":       "off",     // no trusted override: ignored
		},
	}
	as, sev, err := settings(base, tree)
	if err != nil {
		t.Fatal(err)
	}
	got := names(as)
	if !got["secrets"] || !got["signature"] {
		t.Errorf("analyzers %v: the tree must add secrets and cannot remove signature", got)
	}
	want := map[string]string{"schema": "error", "chain": "error", "directive": "error"}
	if !maps.Equal(sev, want) {
		t.Errorf("severities %v, want %v", sev, want)
	}
	// Without a tree to distrust, the trusted settings are all there is.
	as, sev, _ = settings(base, nil)
	if names(as)["secrets"] || !maps.Equal(sev, base.Severity) {
		t.Errorf("base alone: %v %v", names(as), sev)
	}
	// A tree naming an unknown analyzer is an error, not ignored.
	if _, _, err := settings(base, &config.Lint{Severity: map[string]string{"nope": "error"}}); err == nil {
		t.Error("an unknown analyzer in the tree's settings was accepted")
	}
}
