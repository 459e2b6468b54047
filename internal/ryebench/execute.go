package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"
)

// noopTool is the trivial shell tool whose execution overhead is timed.
const noopTool = `#!/usr/bin/env bash
# ---
# version: "1.0.0"
# tool_type: shell
# executor_id: rye/core/runtimes/shell_runtime
# category: bench
# description: Print a JSON result and exit
# ---
echo '{"success": true}'
`

// executeOverhead times `rye execute tool bench/noop` as a separate
// process (the binary built from this tree, as a user runs it) against
// running the same script with bash directly, and prints both medians and
// their difference: what rye adds to a tool run.
func executeOverhead(root string, runs int, goEnv []string) {
	bin := buildRye(root, goEnv)
	project := filepath.Join(root, "exec-project")
	tool := filepath.Join(project, ".ai", "tools", "bench", "noop.sh")
	check(os.MkdirAll(filepath.Dir(tool), 0o755))
	check(os.WriteFile(tool, []byte(noopTool), 0o644))
	rye := func(args ...string) *exec.Cmd { return exec.Command(bin, append([]string{"-C", project}, args...)...) }
	check(rye("-q", "trust", "self").Run())
	check(rye("-q", "sign", "tool", "bench/noop").Run())
	check(rye("execute", "tool", "bench/noop").Run()) // writes the lockfile

	bash, err := exec.LookPath("bash")
	check(err)
	run := func(mk func() *exec.Cmd) func() {
		return func() { check(mk().Run()) }
	}
	withRye := median(runs, run(func() *exec.Cmd { return rye("execute", "tool", "bench/noop") }))
	direct := median(runs, run(func() *exec.Cmd { return exec.Command(bash, tool) }))
	fmt.Printf("\nrye execute tool bench/noop (separate process, %d runs)  median %8s\n", runs, round(withRye))
	fmt.Printf("bash noop.sh directly                                    median %8s\n", round(direct))
	fmt.Printf("added by rye                                                    %8s\n", round(withRye-direct))
}

// buildRye builds the rye binary of this tree into root and returns its
// path. The rye module is this one's replacement (go.mod): it builds from
// here.
func buildRye(root string, goEnv []string) string {
	return buildProgram(root, "rye", "github.com/ryekit/rye/cmd/rye", goEnv)
}

// buildProgram builds the main package pkg into root/name and returns its
// path.
func buildProgram(root, name, pkg string, goEnv []string) string {
	bin := filepath.Join(root, name)
	build := exec.Command("go", "build", "-o", bin, pkg)
	build.Stderr = os.Stderr
	build.Env = goEnv
	check(build.Run())
	return bin
}

// median times runs calls of fn and returns the median.
func median(runs int, fn func()) time.Duration {
	var ts []time.Duration
	for i := 0; i < runs; i++ {
		t := time.Now()
		fn()
		ts = append(ts, time.Since(t))
	}
	slices.Sort(ts)
	return ts[len(ts)/2]
}
