package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"
)

// goalBench measures the goals of issue 26 on a generated tree (setupTree)
// with the method: each rye command (A) against its reference (B:
// the standalone floor, git status, or plain verify), both as whole
// processes, run A then B pair after pair so that drift on a shared
// machine hits both alike; the ratio is of the medians (time) or of the
// largest max RSS (memory). Each line says the goal and whether the run
// met it.
func goalBench(root string, n, pairs int, match string, goEnv []string) {
	t := setupTree(root, n, goEnv)
	fmt.Printf("\n%d items, %d CPUs, load average %s; A and B alternated pair by pair, whole processes; time: ratio of the medians, memory: of the largest max RSS\n\n", n, runtime.GOMAXPROCS(0), loadAverage())
	fmt.Printf("%-52s %-22s %9s %9s %8s %6s  %s\n", "A", "against B", "A", "B", "A/B", "goal", "")
	floor := func() *exec.Cmd { return exec.Command(t.floor, filepath.Join(t.project, ".ai")) }
	status := func() *exec.Cmd { return t.git("status", "--porcelain") }
	rye := func(args ...string) func() *exec.Cmd { return func() *exec.Cmd { return t.rye(args...) } }
	run(status()) // git refreshes its index's stat data once, as a user's first status would
	goals := []goal{
		{a: "rye verify (warm: verdict cache filled)", b: "git status", mkA: rye("verify"), mkB: status, warm: true, time: 2},
		{a: "rye verify --changed-since HEAD (10 edited, re-signed)", b: "git status", mkA: rye("verify", "--changed-since", "HEAD"), mkB: status, warm: true, time: 2},
		{a: "rye verify --no-cache", b: "standalone floor", mkA: rye("verify", "--no-cache"), mkB: floor, time: 1.3, rss: 2},
		{a: "rye verify --no-cache --format json", b: "rye verify --no-cache", mkA: rye("verify", "--no-cache", "--format", "json"), mkB: rye("verify", "--no-cache"), rss: 1.2},
		{a: "rye lint", b: "rye verify --no-cache", mkA: rye("lint"), mkB: rye("verify", "--no-cache"), time: 1.5},
		{a: "rye check --no-cache", b: "rye verify --no-cache", mkA: rye("check", "--no-cache"), mkB: rye("verify", "--no-cache"), time: 1.5},
	}
	if ms, err := exec.LookPath("minisign"); err == nil {
		goals = append(goals, t.signGoal(root, ms))
	} else {
		defer fmt.Println("\nminisign is not on PATH: signing one item is not compared with it")
	}
	for _, g := range goals {
		if !strings.Contains(g.a, match) {
			continue
		}
		if g.warm {
			run(g.mkA())
		}
		a, b, ratios := t.paired(pairs, g.mkA, g.mkB)
		timeRatio := float64(a.wall) / float64(b.wall)
		fmt.Printf("%-52s %-22s %9s %9s %7.2f× %6s  %s   (pairs %d, per pair %.2f–%.2f×)\n", g.a, g.b, round(a.wall), round(b.wall), timeRatio, goalText(g.time), verdict(g.time, timeRatio), len(ratios), ratios[0], ratios[len(ratios)-1])
		fmt.Printf("%-52s %-22s %9s %9s %7.2f×          (CPU time, user and system: less disturbed by other load)\n", "  its CPU time", "", round(a.cpu), round(b.cpu), float64(a.cpu)/float64(b.cpu))
		if g.rss > 0 {
			rssRatio := float64(a.maxKB) / float64(b.maxKB)
			fmt.Printf("%-52s %-22s %5.1f MiB %5.1f MiB %7.2f× %6s  %s\n", "  its max RSS", "", mib(a.maxKB), mib(b.maxKB), rssRatio, goalText(g.rss), verdict(g.rss, rssRatio))
		}
	}
}

// goal is one comparison: command A against reference B.
type goal struct {
	a, b     string
	mkA, mkB func() *exec.Cmd
	warm     bool    // run A once before, untimed (fills the verdict cache)
	time     float64 // goal for the time ratio (0: none)
	rss      float64 // goal for the memory ratio (0: none)
}

// paired runs mkA and mkB alternately, pairs times (0: by how long A
// takes), and returns the median wall time and largest max RSS of each,
// and the sorted per-pair time ratios.
func (t *tree) paired(pairs int, mkA, mkB func() *exec.Cmd) (a, b measured, ratios []float64) {
	first := t.once(0, mkA())
	if pairs <= 0 {
		switch d := first.wall; {
		case d > time.Second:
			pairs = 5
		default:
			pairs = min(21, max(7, int(3*time.Second/max(d, time.Millisecond))))
		}
	}
	var as, bs, acpu, bcpu []time.Duration
	for range pairs {
		ma, mb := t.once(0, mkA()), t.once(0, mkB())
		as, bs = append(as, ma.wall), append(bs, mb.wall)
		acpu, bcpu = append(acpu, ma.cpu), append(bcpu, mb.cpu)
		a.maxKB, b.maxKB = max(a.maxKB, ma.maxKB), max(b.maxKB, mb.maxKB)
		ratios = append(ratios, float64(ma.wall)/float64(mb.wall))
	}
	for _, d := range [][]time.Duration{as, bs, acpu, bcpu} {
		slices.Sort(d)
	}
	slices.Sort(ratios)
	a.wall, b.wall = as[len(as)/2], bs[len(bs)/2]
	a.cpu, b.cpu = acpu[len(acpu)/2], bcpu[len(bcpu)/2]
	return a, b, ratios
}

// signGoal is signing one item (already signed: nothing written) against
// minisign -S signing the same file with a key of its own.
func (t *tree) signGoal(root, minisign string) goal {
	dir := filepath.Join(root, "minisign")
	check(os.MkdirAll(dir, 0o755))
	key := filepath.Join(dir, "key")
	if _, err := os.Stat(key); err != nil {
		run(exec.Command(minisign, "-G", "-W", "-f", "-p", filepath.Join(dir, "key.pub"), "-s", key))
	}
	file := t.files[0]
	rel := strings.TrimPrefix(file, t.project+"/")
	return goal{
		a: "rye sign one item (already signed)", b: "minisign -S",
		mkA: func() *exec.Cmd { return t.rye("sign", rel) },
		mkB: func() *exec.Cmd {
			return exec.Command(minisign, "-S", "-s", key, "-m", file, "-x", filepath.Join(dir, "sig"))
		},
		time: 2,
	}
}

func goalText(g float64) string {
	if g == 0 {
		return ""
	}
	return fmt.Sprintf("≤ %g×", g)
}

func verdict(goal, ratio float64) string {
	switch {
	case goal == 0:
		return ""
	case ratio <= goal:
		return "met"
	}
	return "MISSED"
}

func mib(kb int64) float64 { return float64(kb) / 1024 }

// loadAverage is the first three fields of /proc/loadavg ("?" elsewhere):
// the conditions a run was measured in.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "?"
}
