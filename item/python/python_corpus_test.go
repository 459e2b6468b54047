package python

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// pyCorpusInvalid lists the files of the Python installations that CPython
// itself refuses to compile (found by running compile() over every file
// with the interpreter it ships with), as patterns matched against the end
// of the path. Every other file must tokenize.
var pyCorpusInvalid = []string{
	"badsyntax_*.py", // test/: programs that must raise SyntaxError
	"bad_coding*.py", // test/: broken coding cookies
	// lib2to3 test data: Python 2 programs that 2to3 converts
	// (lib2to3/tests/data and test/test_lib2to3/data).
	"data/py2_test_grammar.py",
	"data/bom.py",
	"data/crlf.py",
	"data/different_encoding.py",
	"data/false_encoding.py",
}

func pyCorpusIsInvalid(p string) bool {
	p = filepath.ToSlash(p)
	for _, pat := range pyCorpusInvalid {
		parts := strings.Split(p, "/")
		n := strings.Count(pat, "/") + 1
		if n > len(parts) {
			continue
		}
		if ok, _ := path.Match(pat, strings.Join(parts[len(parts)-n:], "/")); ok {
			return true
		}
	}
	return false
}

// pyCorpusRoots returns the Python library directories of this machine.
func pyCorpusRoots() []string {
	var roots []string
	pats := []string{"/usr/lib/python3*", "/usr/local/lib/python3*"}
	if home, err := os.UserHomeDir(); err == nil {
		pats = append(pats, filepath.Join(home, ".pyenv/versions/*/lib/python3*"))
	}
	for _, pat := range pats {
		m, _ := filepath.Glob(pat)
		roots = append(roots, m...)
	}
	return roots
}

func pyCorpusFiles(t *testing.T) []string {
	var files []string
	for _, root := range pyCorpusRoots() {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() && strings.HasSuffix(p, ".py") && !pyCorpusIsInvalid(p) {
				files = append(files, p)
			}
			return nil
		})
	}
	if len(files) == 0 {
		t.Skip("no Python installation found under /usr/lib/python3*, /usr/local/lib/python3* or ~/.pyenv/versions/*/lib/python3*")
	}
	return files
}

// TestReadPythonCorpus reads every .py file of the Python installations of
// the machine: all must tokenize, since all are valid Python.
func TestReadPythonCorpus(t *testing.T) {
	files := pyCorpusFiles(t)
	if testing.Short() {
		files = files[:min(len(files), 2000)]
	}
	var (
		read, bytes, assigns atomic.Int64
		mu                   sync.Mutex
		failures             []string
		wg                   sync.WaitGroup
		next                 atomic.Int64
	)
	for range 4 * runtime.GOMAXPROCS(0) { // more workers than CPUs: reading files waits on the disk
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(files) {
					return
				}
				src, err := os.ReadFile(files[i])
				if err != nil {
					continue
				}
				m, err := Read(src)
				read.Add(1)
				bytes.Add(int64(len(src)))
				if err != nil {
					mu.Lock()
					failures = append(failures, files[i]+":"+err.Error())
					mu.Unlock()
					continue
				}
				assigns.Add(int64(len(m.Assigns)))
			}
		}()
	}
	wg.Wait()
	for i, f := range failures {
		if i == 20 {
			t.Errorf("... and %d more", len(failures)-20)
			break
		}
		t.Errorf("%s", f)
	}
	t.Logf("read %d Python files (%d MB), %d module-level bindings", read.Load(), bytes.Load()>>20, assigns.Load())
}
