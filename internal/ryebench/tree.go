package main

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ryekit/rye/internal/corpus"
)

// measured is one timed command: its median wall time and the largest
// resident set of its runs.
type measured struct {
	wall  time.Duration
	maxKB int64
	cpu   time.Duration // user and system time
}

// tools are the small programs ryebench builds next to rye: neither links
// anything of rye.
type tools struct {
	floor   string // floor/: read + SHA-256 + one Ed25519 verification per file
	measure string // measure/: runs a command, reports its wall time and max RSS
}

func buildTools(root string, goEnv []string) tools {
	return tools{
		floor:   buildProgram(root, "floor", "github.com/ryekit/rye/internal/ryebench/floor", goEnv),
		measure: buildProgram(root, "measure", "github.com/ryekit/rye/internal/ryebench/measure", goEnv),
	}
}

// once runs cmd once through the measuring program (measure/) and returns
// its wall time and max RSS; an exit code other than want stops the
// benchmark with the command's output. The measuring program is small and
// links nothing of rye: Linux counts in a child's max RSS the memory of the
// process that started it (the parent's pages before exec), and this
// benchmark, linking rye and holding the corpus's paths, is large.
func (t tools) once(want int, c *exec.Cmd) measured {
	w := exec.Command(t.measure, append([]string{c.Path}, c.Args[1:]...)...)
	w.Dir, w.Env = c.Dir, c.Env
	var out strings.Builder
	w.Stdout, w.Stderr = &out, &out
	pr, pw, err := os.Pipe()
	check(err)
	w.ExtraFiles = []*os.File{pw}
	check(w.Start())
	pw.Close()
	report, _ := io.ReadAll(pr)
	pr.Close()
	w.Wait()
	var wall, kb, cpu int64
	var code int
	if _, err := fmt.Sscan(string(report), &wall, &kb, &code, &cpu); err != nil {
		fmt.Fprintf(os.Stderr, "%s: no measure (%v)\n%s", strings.Join(c.Args, " "), err, out.String())
		os.Exit(1)
	}
	if code != want {
		fmt.Fprintf(os.Stderr, "%s: exit %d, want %d\n%s", strings.Join(c.Args, " "), code, want, out.String())
		os.Exit(1)
	}
	return measured{wall: time.Duration(wall), maxKB: kb, cpu: time.Duration(cpu)}
}

// runMeasured runs cmd (made fresh by mk) runs times and returns the median
// wall time and the largest max RSS.
func (t tools) runMeasured(runs int, want int, mk func() *exec.Cmd) measured {
	var walls []time.Duration
	var most int64
	for range runs {
		m := t.once(want, mk())
		walls = append(walls, m.wall)
		most = max(most, m.maxKB)
	}
	slices.Sort(walls)
	return measured{wall: walls[len(walls)/2], maxKB: most}
}

// tree is a generated, signed and committed corpus in a git repository,
// with the binaries that run over it.
type tree struct {
	tools
	bin     string // rye
	project string
	files   []string // the corpus's item files, sorted
	staged  []string // the ten items edited, re-signed and staged (HEAD differs)
}

func (t *tree) rye(args ...string) *exec.Cmd {
	return exec.Command(t.bin, append([]string{"-C", t.project}, args...)...)
}

func (t *tree) git(args ...string) *exec.Cmd {
	// No automatic gc: git would start one in the background after a
	// commit of many objects, and it would run during the timings.
	c := exec.Command("git", append([]string{"-C", t.project, "-c", "gc.auto=0"}, args...)...)
	c.Env = append(os.Environ(), "GIT_AUTHOR_NAME=b", "GIT_AUTHOR_EMAIL=b@example.com", "GIT_COMMITTER_NAME=b", "GIT_COMMITTER_EMAIL=b@example.com")
	return c
}

func run(c *exec.Cmd) {
	out, err := c.CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n%s", strings.Join(c.Args, " "), err, out)
		os.Exit(1)
	}
}

// setupTree builds rye and the tools, and generates n items in a git
// repository below root, signs and commits them; then ten items change in
// a second commit (--changed-since HEAD~1) and ten more are edited,
// re-signed and staged (--staged, --changed-since HEAD). A root that holds
// such a tree of n items already (-keep, a second run) is used again: the
// corpus of a hundred thousand items takes minutes to make.
func setupTree(root string, n int, goEnv []string) *tree {
	t := &tree{tools: buildTools(root, goEnv), bin: buildRye(root, goEnv), project: filepath.Join(root, "project")}
	ready := filepath.Join(root, "corpus-ready")
	reuse := false
	if b, err := os.ReadFile(ready); err == nil && strings.TrimSpace(string(b)) == strconv.Itoa(n) {
		reuse = true
	}
	if !reuse {
		check(os.RemoveAll(t.project))
		start := time.Now()
		check(corpus.Generate(t.project, n, 42))
		fmt.Printf("generated %d items in %s (%s)\n", n, time.Since(start).Round(time.Millisecond), t.project)
		run(t.rye("keys", "generate", "--no-passphrase"))
		run(t.rye("-q", "trust", "self"))
		start = time.Now()
		run(t.rye("-q", "sign", "**"))
		fmt.Printf("signed them in %s\n", time.Since(start).Round(time.Millisecond))
		run(t.git("init", "-q", "-b", "main"))
		run(t.git("add", "-A"))
		run(t.git("commit", "-q", "-m", "corpus"))
	} else {
		// The verdict cache starts empty, as in a fresh folder: a kept one
		// holds the entries of every rye built before (a build is a new
		// binary, whose keys differ), which a user's cache does not.
		check(os.RemoveAll(filepath.Join(root, "cache")))
		fmt.Printf("using the %d items generated before in %s\n", n, t.project)
	}
	check(filepath.WalkDir(filepath.Join(t.project, ".ai"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.Contains(p, "/ns") {
			t.files = append(t.files, p)
		}
		return err
	}))
	slices.Sort(t.files)
	touch := func(ps []string) {
		for _, p := range ps {
			data, err := os.ReadFile(p)
			check(err)
			check(os.WriteFile(p, append(data, '\n'), 0o644))
			rel, _ := filepath.Rel(t.project, p)
			run(t.rye("-q", "sign", rel))
		}
	}
	step := len(t.files) / 20
	var committed []string
	for i := range 10 {
		committed = append(committed, t.files[i*step])
		t.staged = append(t.staged, t.files[(i+10)*step])
	}
	if !reuse {
		touch(committed)
		run(t.git("commit", "-q", "-am", "ten changes"))
		touch(t.staged)
		for _, p := range t.staged {
			run(t.git("add", p))
		}
		// Packed, as a repository that has lived is (and as git gc leaves
		// it), before anything is timed.
		run(t.git("gc", "-q"))
		check(os.WriteFile(ready, []byte(strconv.Itoa(n)+"\n"), 0o644))
	}
	return t
}

// treeBench times each whole-tree verb as a separate process (wall time
// and max RSS) next to the floor (read, SHA-256 and one Ed25519
// verification per file, in parallel: what no verifier can beat; a
// program of its own) and git status on the same tree.
func treeBench(root string, n, runs int, goEnv []string) {
	t := setupTree(root, n, goEnv)
	fmt.Printf("\n%d items, %d CPUs; each line: median of %d runs as a separate process, and the largest max RSS\n\n", n, runtime.GOMAXPROCS(0), runs)
	floor := t.runMeasured(runs, 0, func() *exec.Cmd { return exec.Command(t.floor, filepath.Join(t.project, ".ai")) })
	run(t.git("status", "--porcelain"))
	status := t.runMeasured(runs, 0, func() *exec.Cmd { return t.git("status", "--porcelain") })
	row := func(name string, m measured) {
		fmt.Printf("%-48s %9s  %6.2f× floor  %6.2f× git status  %7.1f MiB\n", name, round(m.wall), float64(m.wall)/float64(floor.wall), float64(m.wall)/float64(status.wall), float64(m.maxKB)/1024)
	}
	row("floor: read + SHA-256 + Ed25519, parallel", floor)
	row("git status --porcelain", status)
	for _, c := range []struct {
		name string
		args []string
		exit int
		warm bool
	}{
		{"rye verify --no-cache", []string{"verify", "--no-cache"}, 0, false},
		{"rye verify (warm verdict cache)", []string{"verify"}, 0, true},
		{"rye verify --changed-since HEAD~1 (10 changed)", []string{"verify", "--changed-since", "HEAD~1"}, 0, true},
		{"  the same, --no-cache (every file read)", []string{"verify", "--no-cache", "--changed-since", "HEAD~1"}, 0, false},
		{"rye check --staged (10 staged)", []string{"check", "--staged"}, 0, true},
		{"rye lint", []string{"lint"}, 0, false},
		{"rye check --no-cache", []string{"check", "--no-cache"}, 0, false},
		{"rye search --no-cache all deploy (cold)", []string{"search", "--no-cache", "all", "deploy"}, 0, false},
		{"rye search all deploy (index cache current)", []string{"search", "all", "deploy"}, 0, true},
		{"rye sign one item (already signed: unchanged)", []string{"sign", strings.TrimPrefix(t.files[0], t.project+"/")}, 0, false},
	} {
		if c.warm {
			run(t.rye(c.args...))
		}
		row(c.name, t.runMeasured(runs, c.exit, func() *exec.Cmd { return t.rye(c.args...) }))
	}
}
