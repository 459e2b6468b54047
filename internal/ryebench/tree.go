package main

import (
	"crypto/ed25519"
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/ryekit/rye/internal/corpus"
)

// measured is one timed command: its median wall time and the largest
// resident set of its runs.
type measured struct {
	wall  time.Duration
	maxKB int64
}

// runMeasured runs cmd (made fresh by mk) runs times and returns the median
// wall time and the largest max RSS; an exit code other than want stops
// the benchmark with the command's output. Each run goes through a small
// measuring process (measureMain): Linux counts in a child's max RSS the
// memory of the process that started it (the parent's pages before exec),
// and this benchmark, holding the generated corpus, is large.
func runMeasured(runs int, want int, mk func() *exec.Cmd) measured {
	self, err := os.Executable()
	check(err)
	var walls []time.Duration
	var most int64
	for range runs {
		c := mk()
		w := exec.Command(self, append([]string{"-measure", c.Path}, c.Args[1:]...)...)
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
		var wall time.Duration
		var kb int64
		var code int
		if _, err := fmt.Sscan(string(report), &wall, &kb, &code); err != nil {
			fmt.Fprintf(os.Stderr, "%s: no measure (%v)\n%s", strings.Join(c.Args, " "), err, out.String())
			os.Exit(1)
		}
		if code != want {
			fmt.Fprintf(os.Stderr, "%s: exit %d, want %d\n%s", strings.Join(c.Args, " "), code, want, out.String())
			os.Exit(1)
		}
		walls = append(walls, wall)
		most = max(most, kb)
	}
	slices.Sort(walls)
	return measured{wall: walls[len(walls)/2], maxKB: most}
}

// measureMain runs a command (args) and writes its wall time, max RSS (KiB)
// and exit code to file descriptor 3 (runMeasured).
func measureMain(args []string) {
	c := exec.Command(args[0], args[1:]...)
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr
	t := time.Now()
	err := c.Run()
	wall := time.Since(t)
	code := 0
	if err != nil {
		if code = c.ProcessState.ExitCode(); code < 0 {
			check(err)
		}
	}
	var kb int64
	if ru, ok := c.ProcessState.SysUsage().(*syscall.Rusage); ok {
		kb = ru.Maxrss // KiB on Linux
	}
	out := os.NewFile(3, "measure")
	fmt.Fprintf(out, "%d %d %d\n", wall, kb, code)
	out.Close()
}

// treeBench generates n items in a git repository, signs and commits them,
// and times each whole-tree verb as a separate process (wall time and max
// RSS) next to the floor (read, SHA-256 and one Ed25519 verification per
// file, in parallel: what no verifier can beat) and git status on the same
// tree. Git mode: the last commit changes ten items (--changed-since
// HEAD~1), and ten more are staged (--staged).
func treeBench(root string, n, runs int, goEnv []string) {
	bin := buildRye(root, goEnv)
	self, err := os.Executable()
	check(err)
	project := filepath.Join(root, "project")
	t := time.Now()
	check(corpus.Generate(project, n, 42))
	fmt.Printf("generated %d items in %s (%s)\n", n, time.Since(t).Round(time.Millisecond), project)
	rye := func(args ...string) *exec.Cmd { return exec.Command(bin, append([]string{"-C", project}, args...)...) }
	git := func(args ...string) *exec.Cmd {
		// No automatic gc: git would start one in the background after a
		// commit of many objects, and it would run during the timings.
		c := exec.Command("git", append([]string{"-C", project, "-c", "gc.auto=0"}, args...)...)
		c.Env = append(os.Environ(), "GIT_AUTHOR_NAME=b", "GIT_AUTHOR_EMAIL=b@example.com", "GIT_COMMITTER_NAME=b", "GIT_COMMITTER_EMAIL=b@example.com")
		return c
	}
	run := func(c *exec.Cmd) {
		out, err := c.CombinedOutput()
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n%s", strings.Join(c.Args, " "), err, out)
			os.Exit(1)
		}
	}
	run(rye("keys", "generate", "--no-passphrase"))
	run(rye("-q", "trust", "self"))
	t = time.Now()
	run(rye("-q", "sign", "**"))
	fmt.Printf("signed them in %s\n", time.Since(t).Round(time.Millisecond))
	run(git("init", "-q", "-b", "main"))
	run(git("add", "-A"))
	run(git("commit", "-q", "-m", "corpus"))

	// Ten items changed in a second commit, ten more staged.
	var files []string
	check(filepath.WalkDir(filepath.Join(project, ".ai"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.Contains(p, "/ns") {
			files = append(files, p)
		}
		return err
	}))
	slices.Sort(files)
	touch := func(ps []string) {
		for _, p := range ps {
			data, err := os.ReadFile(p)
			check(err)
			check(os.WriteFile(p, append(data, '\n'), 0o644))
			rel, _ := filepath.Rel(project, p)
			run(rye("-q", "sign", rel))
		}
	}
	step := len(files) / 20
	var committed, staged []string
	for i := range 10 {
		committed = append(committed, files[i*step])
		staged = append(staged, files[(i+10)*step])
	}
	touch(committed)
	run(git("commit", "-q", "-am", "ten changes"))
	touch(staged)
	for _, p := range staged {
		run(git("add", p))
	}
	// Packed, as a repository that has lived is (and as git gc leaves it),
	// before anything is timed.
	run(git("gc", "-q"))

	fmt.Printf("\n%d items, %d CPUs; each line: median of %d runs as a separate process, and the largest max RSS\n\n", n, runtime.GOMAXPROCS(0), runs)
	floor := runMeasured(runs, 0, func() *exec.Cmd { return exec.Command(self, "-floor", filepath.Join(project, ".ai")) })
	run(git("status", "--porcelain"))
	status := runMeasured(runs, 0, func() *exec.Cmd { return git("status", "--porcelain") })
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
		{"rye sign one item (already signed: unchanged)", []string{"sign", strings.TrimPrefix(files[0], project+"/")}, 0, false},
	} {
		if c.warm {
			run(rye(c.args...))
		}
		row(c.name, runMeasured(runs, c.exit, func() *exec.Cmd { return rye(c.args...) }))
	}
}

// floorMain is the floor of verification over a folder, run as a separate
// process by treeBench: every file read, hashed with SHA-256 and checked
// with one Ed25519 verification, on every CPU.
func floorMain(dir string) {
	var files []string
	check(filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			files = append(files, p)
		}
		return err
	}))
	pub, priv, err := ed25519.GenerateKey(nil)
	check(err)
	msg := []byte("rye floor")
	sig := ed25519.Sign(priv, msg)
	var next atomic.Int64
	var bad atomic.Int64
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(files) {
					return
				}
				data, err := os.ReadFile(files[i])
				check(err)
				sum := sha256.Sum256(data)
				if !ed25519.Verify(pub, msg, sig) || sum == [32]byte{} {
					bad.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if bad.Load() != 0 {
		check(fmt.Errorf("the floor's signature did not verify"))
	}
}
