package lint

import (
	"bytes"
	"fmt"
	"go/token"
	"go/types"
	"os"
	"sync"

	"golang.org/x/tools/go/analysis"

	"github.com/ryekit/rye/internal/par"
)

// diagnostic is a diagnostic with the analyzer that reported it.
type diagnostic struct {
	Analyzer *analysis.Analyzer
	analysis.Diagnostic
}

// Prepare registers the env's files in a new FileSet, once each, so that
// every diagnostic has a file:line:col position.
func (e *Env) Prepare() {
	e.Fset = token.NewFileSet()
	e.byTok = make(map[*token.File]*file, len(e.Files)+len(e.Others))
	for _, group := range [][]*file{e.Files, e.Others} {
		for _, f := range group {
			f.tok = e.Fset.AddFile(f.Name, -1, len(f.Src))
			f.tok.SetLines(lineStarts(f.Src))
			e.byTok[f.tok] = f
		}
	}
}

// lineStarts is what token.File.SetLinesForContent records (the offset of
// every line that has a byte: none for an empty file, no line after a
// final newline), found with bytes.IndexByte rather than a loop over every
// byte: a whole-tree lint indexes every file, and the byte loop was 2 % of
// its time.
func lineStarts(src []byte) []int {
	if len(src) == 0 {
		return nil
	}
	lines := make([]int, 1, 1+len(src)/32)
	for off := 0; ; {
		i := bytes.IndexByte(src[off:], '\n')
		if i < 0 || off+i+1 == len(src) {
			return lines
		}
		off += i + 1
		lines = append(lines, off)
	}
}

// File returns the file that holds pos.
func (e *Env) File(pos token.Pos) *file {
	tf := e.Fset.File(pos)
	if tf == nil {
		return nil
	}
	return e.byTok[tf]
}

// closure counts the analyzers a run runs: those asked for and what they
// require, each once.
func closure(analyzers []*analysis.Analyzer) int {
	seen := map[*analysis.Analyzer]bool{input: true}
	var visit func(a *analysis.Analyzer)
	visit = func(a *analysis.Analyzer) {
		if seen[a] {
			return
		}
		seen[a] = true
		for _, r := range a.Requires {
			visit(r)
		}
	}
	for _, a := range analyzers {
		visit(a)
	}
	return len(seen) - 1
}

// runAnalyzers runs the analyzers (and what they require) over the env,
// each once, requirements first, and returns the diagnostics of the
// requested analyzers, telling progress how many analyzers have run.
func runAnalyzers(e *Env, analyzers []*analysis.Analyzer, progress func(done, total int)) ([]diagnostic, error) {
	if err := analysis.Validate(analyzers); err != nil {
		return nil, err
	}
	if e.Fset == nil {
		e.Prepare()
	}
	var names []string
	for _, f := range e.Files {
		names = append(names, f.Name)
	}
	want := map[*analysis.Analyzer]bool{}
	for _, a := range analyzers {
		want[a] = true
	}
	results := map[*analysis.Analyzer]any{input: e}
	total := closure(analyzers)
	pkg := types.NewPackage("rye/.ai", "ai")
	var diags []diagnostic
	var mu sync.Mutex // analyzers report from several goroutines (see each)
	var run func(a *analysis.Analyzer) error
	running := map[*analysis.Analyzer]bool{}
	run = func(a *analysis.Analyzer) error {
		if _, done := results[a]; done {
			return nil
		}
		if running[a] {
			return fmt.Errorf("analyzer %s requires itself", a.Name)
		}
		running[a] = true
		resultOf := map[*analysis.Analyzer]any{}
		for _, req := range a.Requires {
			if err := run(req); err != nil {
				return err
			}
			resultOf[req] = results[req]
		}
		pass := &analysis.Pass{
			Analyzer:   a,
			Fset:       e.Fset,
			OtherFiles: names,
			Pkg:        pkg,
			TypesInfo:  &types.Info{},
			ResultOf:   resultOf,
			ReadFile: func(name string) ([]byte, error) {
				for _, f := range e.Files {
					if f.Name == name {
						return f.Src, f.ReadErr
					}
				}
				return nil, os.ErrNotExist
			},
			Report: func(d analysis.Diagnostic) {
				if want[a] {
					mu.Lock()
					diags = append(diags, diagnostic{Analyzer: a, Diagnostic: d})
					mu.Unlock()
				}
			},
		}
		res, err := a.Run(pass)
		if err != nil {
			return fmt.Errorf("analyzer %s: %w", a.Name, err)
		}
		results[a] = res
		if progress != nil {
			progress(len(results)-1, total)
		}
		return nil
	}
	for _, a := range analyzers {
		if err := run(a); err != nil {
			return nil, err
		}
	}
	return diags, nil
}

// each runs fn for every file on a pool of GOMAXPROCS workers: parsing,
// verifying and building chains of ten thousand items is CPU work that
// splits cleanly by file. Reports are safe to make from fn.
func each(files []*file, fn func(i int, f *file)) {
	par.For(len(files), par.CPU(), func(i int) { fn(i, files[i]) })
}
