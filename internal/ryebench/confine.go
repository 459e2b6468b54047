package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// confinedTool is noopTool with a sandbox block: the defaults, nothing
// declared.
var confinedTool = strings.Replace(noopTool, "# ---\necho", "# sandbox: {}\n# ---\necho", 1)

// confineOverhead times, alternating run by run so that drift on the
// machine hits each alike: bash running the script; rye execute of the
// unconfined tool; of the confined tool through rye-confine beside rye;
// and of the confined tool with rye alone (its hidden helper mode). It
// prints each median and the differences that matter: what confinement
// adds through the helper and through rye itself, and what rye adds to
// bash.
func confineOverhead(root string, runs int, goEnv []string) {
	bin := buildRye(root, goEnv)
	helper := filepath.Join(root, "rye-confine")
	build := exec.Command("go", "build", "-o", helper, "github.com/ryekit/rye/cmd/rye-confine")
	build.Stderr, build.Env = os.Stderr, goEnv
	check(build.Run())
	solo := filepath.Join(root, "solo", "rye")
	check(os.MkdirAll(filepath.Dir(solo), 0o755))
	data, err := os.ReadFile(bin)
	check(err)
	check(os.WriteFile(solo, data, 0o755))

	project := filepath.Join(root, "confine-project")
	dir := filepath.Join(project, ".ai", "tools", "bench")
	check(os.MkdirAll(dir, 0o755))
	check(os.WriteFile(filepath.Join(dir, "noop.sh"), []byte(noopTool), 0o644))
	check(os.WriteFile(filepath.Join(dir, "boxed.sh"), []byte(confinedTool), 0o644))
	rye := func(exe string, args ...string) *exec.Cmd {
		return exec.Command(exe, append([]string{"-C", project}, args...)...)
	}
	check(rye(bin, "-q", "trust", "self").Run())
	check(rye(bin, "-q", "sign", "bench/**").Run())
	for _, id := range []string{"bench/noop", "bench/boxed"} {
		out, err := rye(bin, "execute", "tool", id).CombinedOutput() // writes the lockfile
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s\n", out)
			check(err)
		}
	}
	out, err := rye(solo, "execute", "tool", "bench/boxed").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "rye in its helper mode") {
		fmt.Fprintf(os.Stderr, "%s\n", out)
		check(fmt.Errorf("the fallback helper did not run: %v", err))
	}
	bash, err := exec.LookPath("bash")
	check(err)

	cases := []struct {
		name string
		cmd  func() *exec.Cmd
	}{
		{"bash noop.sh directly", func() *exec.Cmd { return exec.Command(bash, filepath.Join(dir, "noop.sh")) }},
		{"rye execute, unconfined (no sandbox block)", func() *exec.Cmd { return rye(bin, "execute", "tool", "bench/noop") }},
		{"rye execute, confined through rye-confine", func() *exec.Cmd { return rye(bin, "execute", "tool", "bench/boxed") }},
		{"rye execute, confined through rye itself", func() *exec.Cmd { return rye(solo, "execute", "tool", "bench/boxed") }},
	}
	times := make([][]time.Duration, len(cases))
	for i := 0; i < runs; i++ {
		for c := range cases {
			start := time.Now()
			check(cases[c].cmd().Run())
			times[c] = append(times[c], time.Since(start))
		}
	}
	med := make([]time.Duration, len(cases))
	fmt.Printf("\n%d runs of each, alternated (medians)\n\n", runs)
	for c := range cases {
		sorted := slices.Clone(times[c])
		slices.Sort(sorted)
		med[c] = sorted[len(sorted)/2]
		fmt.Printf("%-48s %8s\n", cases[c].name, round(med[c]))
	}
	// Paired: the difference within each round, whose median drift on
	// a busy machine moves less than the medians' difference.
	paired := func(a, b int) time.Duration {
		var ds []time.Duration
		for i := range runs {
			ds = append(ds, times[a][i]-times[b][i])
		}
		slices.Sort(ds)
		return ds[len(ds)/2]
	}
	fmt.Printf("\n%-48s %8s  (paired: %s)\n", "confinement added, through rye-confine", round(med[2]-med[1]), round(paired(2, 1)))
	fmt.Printf("%-48s %8s  (paired: %s)\n", "confinement added, through rye itself", round(med[3]-med[1]), round(paired(3, 1)))
	fmt.Printf("%-48s %8s\n", "rye execute over bash, unconfined", round(med[1]-med[0]))
	fmt.Printf("%-48s %8s\n", "rye execute over bash, confined (rye-confine)", round(med[2]-med[0]))
}
