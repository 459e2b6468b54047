// Command ryebench times whole-tree rye commands on a generated project:
//
//	go run -C internal/ryebench . [-n 10000] [-runs 5] [-keep DIR]
//	go run -C internal/ryebench . -goals [-n 10000] [-pairs N] [-keep DIR]
//	go run -C internal/ryebench . -exec 200
//	go run -C internal/ryebench . -mcp 200
//	go run -C internal/ryebench . -confine 300
//	go run -C internal/ryebench . -sign 200
//
// It is a module of its own (internal/ryebench/go.mod, with rye replaced by
// this checkout) so that go install ./..., which pre-commit runs, does not
// install it.
//
// It generates a corpus of n items (internal/corpus) in a git repository,
// signs and commits it (a -keep folder that holds such a corpus of n
// items already is used again), and runs each whole-tree verb as a
// separate process, printing its median wall time next to the floor (read,
// SHA-256 and one Ed25519 verification per file, in parallel: floor/, a
// program that links nothing of rye) and git status on the same tree, with
// its largest max RSS (-in-process: the older, in-process timing of each
// command). With -goals it measures issue 26's goals instead: each
// command against its reference, the two alternated pair by pair, each
// ratio printed with its goal and whether it was met. With -exec N it instead times N runs of rye execute on a
// trivial shell tool against running the script directly, and with -mcp N
// it times N round trips to rye mcp on stdio against the same verbs run
// in-process; with -confine N it times a trivial tool confined (through
// rye-confine and through rye itself) against unconfined and against
// bash. The numbers in BENCHMARKS.md come from it and from the
// packages' go test benchmarks.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ryekit/rye/cmd/rye/cli"
	"github.com/ryekit/rye/internal/corpus"
)

func main() {
	n := flag.Int("n", 10000, "number of items to generate")
	runs := flag.Int("runs", 5, "runs per command")
	keep := flag.String("keep", "", "generate into `DIR` and keep it (default: a temporary folder)")
	execRuns := flag.Int("exec", 0, "time `N` runs of rye execute on a trivial tool instead")
	mcpRuns := flag.Int("mcp", 0, "time `N` round trips to rye mcp on stdio instead")
	signRuns := flag.Int("sign", 0, "time `N` runs each of rye sign of one item (signed already, and edited) in a folder of 1 and of 1,000 items against a reference signer (signone.go)")
	confineRuns := flag.Int("confine", 0, "time `N` runs each of a trivial tool: bash, rye execute unconfined, confined through rye-confine, confined through rye itself")
	inProcess := flag.Bool("in-process", false, "time the commands in-process (the older, finer measure) instead of as processes in a git repository")
	goals := flag.Bool("goals", false, "time issue 26's goals instead: each rye command against its reference (the floor, git status, plain verify), alternated pair by pair")
	pairs := flag.Int("pairs", 0, "with -goals: `N` pairs per comparison (0: 21 for commands under 150 ms, fewer for slower ones, 5 over a second)")
	match := flag.String("match", "", "with -goals: only the comparisons whose command contains `TEXT`")
	flag.Parse()

	root := *keep
	if root == "" {
		tmp, err := os.MkdirTemp("", "ryebench")
		check(err)
		defer os.RemoveAll(tmp)
		root = tmp
	}
	// The go command (for -exec) keeps the caller's HOME: its module and
	// build caches live there.
	callerEnv := os.Environ()
	home := filepath.Join(root, "home")
	check(os.MkdirAll(home, 0o755))
	os.Setenv("HOME", home)
	os.Setenv("USER_SPACE", "")
	os.Setenv("XDG_CACHE_HOME", filepath.Join(root, "cache"))
	if *mcpRuns > 0 {
		mcpOverhead(root, *mcpRuns, callerEnv)
		return
	}
	if *signRuns > 0 {
		signOverhead(root, *signRuns, callerEnv)
		return
	}
	if *confineRuns > 0 {
		check(quiet(cli.Main([]string{"keys", "generate", "--no-passphrase"}, strings.NewReader(""), io.Discard, io.Discard)))
		confineOverhead(root, *confineRuns, callerEnv)
		return
	}
	if *execRuns > 0 {
		check(quiet(cli.Main([]string{"keys", "generate", "--no-passphrase"}, strings.NewReader(""), io.Discard, io.Discard)))
		executeOverhead(root, *execRuns, callerEnv)
		return
	}
	if *goals {
		goalBench(root, *n, *pairs, *match, callerEnv)
		return
	}
	if !*inProcess {
		treeBench(root, *n, *runs, callerEnv)
		return
	}
	project := filepath.Join(root, "project")
	start := time.Now()
	check(corpus.Generate(project, *n, 42))
	fmt.Printf("generated %d items in %s (%s)\n\n", *n, time.Since(start).Round(time.Millisecond), project)

	// Keys for the signing commands, outside the project.
	check(quiet(cli.Main([]string{"keys", "generate", "--no-passphrase"}, strings.NewReader(""), io.Discard, io.Discard)))
	check(quiet(cli.Main([]string{"-C", project, "trust", "self"}, strings.NewReader(""), io.Discard, io.Discard)))

	for _, c := range commands {
		args := append([]string{"-C", project}, c.args...)
		if c.warm {
			cli.Main(args, strings.NewReader(""), io.Discard, io.Discard)
		}
		var times []time.Duration
		n := *runs
		if c.runs > 0 {
			n = c.runs
		}
		for i := 0; i < n; i++ {
			t := time.Now()
			code := cli.Main(args, strings.NewReader(""), io.Discard, io.Discard)
			times = append(times, time.Since(t))
			if code != c.exit {
				fmt.Fprintf(os.Stderr, "rye %s: exit %d, want %d\n", strings.Join(c.args, " "), code, c.exit)
				os.Exit(1)
			}
		}
		slices.Sort(times)
		fmt.Printf("%-40s  min %8s  median %8s  (%s)\n", "rye "+strings.Join(c.args, " "), round(times[0]), round(times[len(times)/2]), c.note)
	}
}

// command is one timed rye invocation; warm runs it once, untimed, first.
type command struct {
	args []string
	exit int
	note string
	warm bool
	runs int // overrides -runs (1 for commands that change the tree)
}

var commands = []command{
	{args: []string{"sign", "**"}, runs: 1, note: "first signing of every item: validate, hash, sign, write atomically"},
	{args: []string{"sign", "**"}, note: "every item already signed: read, hash, verify, nothing written"},
	{args: []string{"sign", "--force", "**"}, note: "re-sign every item"},
	{args: []string{"verify", "--no-cache"}, note: "cold: every item verified"},
	{args: []string{"verify"}, warm: true, note: "warm: every item in the verdict cache"},
	{args: []string{"lint"}, note: "every analyzer, verification included"},
	{args: []string{"check", "--no-cache"}, note: "verify (no cache) and lint the same bytes"},
	{args: []string{"search", "all", "deploy", "verify"}, warm: true, note: "index cache current"},
	{args: []string{"search", "--no-cache", "all", "deploy", "verify"}, note: "every item read and parsed"},
}

func round(d time.Duration) time.Duration {
	if d > time.Second {
		return d.Round(time.Millisecond)
	}
	return d.Round(10 * time.Microsecond)
}

func quiet(code int) error {
	if code != 0 {
		return fmt.Errorf("exit %d", code)
	}
	return nil
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
