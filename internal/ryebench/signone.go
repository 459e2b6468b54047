package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ryekit/rye/internal/corpus"
)

// signOverhead times rye sign of one item against a reference signer, as
// separate processes, alternated pair by pair (the order flipped every
// pair), in a folder of 1 item and in a folder of 1,000 (the tree's first
// folder in walk order, and one after a signed directive): the item already
// signed (rye leaves it alone), and the item edited before each run (rye
// validates it, runs the content rules, signs and replaces it). minisign
// is not installed where this project is measured, so the reference is
// signref (./signref): a standalone Go program that reads a key file and
// the item, signs it with Ed25519 and writes FILE.sig atomically and
// durably. ssh-keygen -Y sign of the same file, when ssh-keygen is
// installed, is timed in the same rounds for context. It prints the
// medians of wall and CPU time and rye's ratios to the reference.
func signOverhead(root string, runs int, goEnv []string) {
	bin := buildRye(root, goEnv)
	ref := filepath.Join(root, "signref")
	build := exec.Command("go", "build", "-o", ref, "github.com/ryekit/rye/internal/ryebench/signref")
	build.Stderr, build.Env = os.Stderr, goEnv
	check(build.Run())
	key := filepath.Join(os.Getenv("HOME"), ".ai", "keys", "private_key.pem")
	mustRun(exec.Command(bin, "keys", "generate", "--no-passphrase"))
	sshKey := ""
	if kg, err := exec.LookPath("ssh-keygen"); err == nil {
		sshKey = filepath.Join(root, "ssh_ed25519")
		mustRun(exec.Command(kg, "-q", "-t", "ed25519", "-N", "", "-C", "bench", "-f", sshKey))
	}

	fmt.Printf("\nrye sign of one item against signref (stand-in for minisign -S: read a key file and the item, Ed25519, write FILE.sig atomically and durably)\n")
	fmt.Printf("separate processes, %d pairs alternated; medians of the wall time and of the CPU time (user + system)\n\n", runs)
	fmt.Printf("%-66s %17s %17s %15s %17s\n", "", "rye wall / CPU", "signref", "ratio", "ssh-keygen")
	row := func(name string, r, s, k timing) {
		ks := "-"
		if k.wall > 0 {
			ks = round(k.wall).String() + " / " + round(k.cpu).String()
		}
		fmt.Printf("%-66s %17s %17s %6.2f× / %5.2f× %17s\n", name, round(r.wall).String()+" / "+round(r.cpu).String(), round(s.wall).String()+" / "+round(s.cpu).String(),
			float64(r.wall)/float64(s.wall), float64(r.cpu)/float64(s.cpu), ks)
	}

	// Start-up alone: rye version against signref without arguments (a Go
	// program that prints its usage and exits).
	r, s, _ := alternate(runs, exec.Command(bin, "version"), exec.Command(ref), nil, 0, 2, nil)
	row("start-up: rye version / a Go program that exits", r, s, timing{})

	// The layout check (space.Layout) reads the tree's first folders in
	// walk order until it meets a signed file: the item's folder when it
	// is the first, not when a signed directive comes before it.
	for _, p := range []struct {
		size int
		lead bool // a signed directive first in walk order
	}{{1, false}, {1000, false}, {1000, true}} {
		size := p.size
		project := filepath.Join(root, fmt.Sprintf("sign-%d-%v", size, p.lead))
		if p.lead {
			check(corpus.Generate(project, 1, 42)) // .ai/directives/ns00/group00/item_00000.md
		}
		rels, err := corpus.Folder(project, "bench", size, 42)
		check(err)
		rye := func(args ...string) *exec.Cmd {
			c := exec.Command(bin, args...)
			c.Dir = project
			return c
		}
		mustRun(rye("-q", "trust", "self"))
		mustRun(rye("-q", "sign", "**"))
		rel := rels[0] // .ai/tools/bench/item_00000.py
		file := filepath.Join(project, filepath.FromSlash(rel))
		id := strings.TrimSuffix(strings.TrimPrefix(rel, ".ai/tools/"), filepath.Ext(rel))
		refCmd := exec.Command(ref, key, file)
		var sshCmd *exec.Cmd
		if sshKey != "" {
			sshCmd = exec.Command("ssh-keygen", "-q", "-Y", "sign", "-f", sshKey, "-n", "file", file)
		}
		noSig := func() { os.Remove(file + ".sig") } // ssh-keygen will not overwrite a signature
		where := fmt.Sprintf("folder of %d", size)
		if p.lead {
			where += ", not first"
		}

		expect(rye("sign", "tool", id), "1 unchanged")
		expect(rye("sign", rel), "1 unchanged")
		r, s, k := alternate(runs, rye("sign", "tool", id), refCmd, sshCmd, 0, 0, noSig)
		row("signed already, by id ("+where+")", r, s, k)
		r, s, k = alternate(runs, rye("sign", rel), refCmd, sshCmd, 0, 0, noSig)
		row("signed already, by path ("+where+")", r, s, k)
		edits := 0
		edit := func() {
			noSig()
			data, err := os.ReadFile(file)
			check(err)
			edits++
			check(os.WriteFile(file, fmt.Appendf(data, "# edit %d\n", edits), 0o644))
		}
		edit()
		expect(rye("sign", rel), "1 signed")
		r, s, k = alternate(runs, rye("sign", rel), refCmd, sshCmd, 0, 0, edit)
		row("edited, by path: checked, signed, replaced ("+where+")", r, s, k)
		noSig()
	}
}

// timing is the medians of one command's runs.
type timing struct{ wall, cpu time.Duration }

// alternate runs a (want exit code wantA) and b (wantB) runs times each,
// flipping their order every pair, and c (exit 0, when not nil) after
// both, each as a fresh copy of its command; before, when set, runs
// untimed before each of them. It returns the medians of the three.
func alternate(runs int, a, b, c *exec.Cmd, wantA, wantB int, before func()) (ma, mb, mc timing) {
	var wa, wb, wc, ca, cb, cc []time.Duration
	for i := range runs {
		first, second := a, b
		if i%2 == 1 {
			first, second = b, a
		}
		for _, cmd := range []*exec.Cmd{first, second, c} {
			if cmd == nil {
				continue
			}
			if before != nil {
				before()
			}
			switch cmd {
			case a:
				w, u := timeRun(cmd, wantA)
				wa, ca = append(wa, w), append(ca, u)
			case b:
				w, u := timeRun(cmd, wantB)
				wb, cb = append(wb, w), append(cb, u)
			default:
				w, u := timeRun(cmd, 0)
				wc, cc = append(wc, w), append(cc, u)
			}
		}
	}
	med := func(ts []time.Duration) time.Duration {
		if len(ts) == 0 {
			return 0
		}
		slices.Sort(ts)
		return ts[len(ts)/2]
	}
	return timing{med(wa), med(ca)}, timing{med(wb), med(cb)}, timing{med(wc), med(cc)}
}

// timeRun runs a fresh copy of cmd and returns its wall time and its CPU
// time (user and system; on a shared machine it moves much less with the
// load than the wall time); an exit code other than want stops the
// benchmark with its output.
func timeRun(cmd *exec.Cmd, want int) (wall, cpu time.Duration) {
	c := exec.Command(cmd.Path, cmd.Args[1:]...)
	c.Dir, c.Env = cmd.Dir, cmd.Env
	var out strings.Builder
	c.Stdout, c.Stderr = &out, &out
	t := time.Now()
	err := c.Run()
	d := time.Since(t)
	code := 0
	if err != nil {
		if code = c.ProcessState.ExitCode(); code < 0 {
			check(err)
		}
	}
	if code != want {
		fmt.Fprintf(os.Stderr, "%s: exit %d, want %d\n%s", strings.Join(c.Args, " "), code, want, out.String())
		os.Exit(1)
	}
	return d, c.ProcessState.UserTime() + c.ProcessState.SystemTime()
}

// expect runs a command once and stops the benchmark unless it succeeds
// and says want: what is timed is what the row names.
func expect(c *exec.Cmd, want string) {
	out, err := c.CombinedOutput()
	if err != nil || !strings.Contains(string(out), want) {
		fmt.Fprintf(os.Stderr, "%s: %v, want output with %q\n%s", strings.Join(c.Args, " "), err, want, out)
		os.Exit(1)
	}
}

// mustRun runs a setup command and stops the benchmark if it fails.
func mustRun(c *exec.Cmd) {
	if out, err := c.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n%s", strings.Join(c.Args, " "), err, out)
		os.Exit(1)
	}
}
