//go:build unix

package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ryekit/rye/cmd/rye/cli"
	"github.com/ryekit/rye/internal/corpus"
)

// memoryItems is the size of the project the memory benchmark generates:
// the goal (JSON output within 1.2× the max RSS of plain verify) is
// stated at 100,000 items (-memory.items 100000).
var memoryItems = flag.Int("memory.items", 10000, "items of the project BenchmarkVerifyJSONMemory generates")

// roleEnv makes the test binary play a part in the memory benchmark: "rye"
// is rye itself, "measure" runs rye as its child and reports its max RSS.
const roleEnv = "RYE_MEMORY_BENCH_ROLE"

func TestMain(m *testing.M) {
	switch os.Getenv(roleEnv) {
	case "rye":
		os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	case "measure":
		measureMain(os.Args[1:])
		return
	}
	os.Exit(m.Run())
}

// measureMain runs rye with args as its child (its output on this
// process's standard output) and writes the child's max RSS in KiB, its
// wall time and its exit code to file descriptor 3. A child started from this small
// process does not inherit the benchmark's large memory in its max RSS,
// as one started from the benchmark would (Linux counts the pages of the
// process that forks it, up to its exec).
func measureMain(args []string) {
	c := exec.Command(os.Args[0], args...)
	c.Env = append(os.Environ(), roleEnv+"=rye")
	c.Stdout, c.Stderr = os.Stdout, os.Stderr
	start := time.Now()
	err := c.Run()
	wall := time.Since(start)
	code := 0
	if err != nil {
		if code = c.ProcessState.ExitCode(); code < 0 {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
	ru, _ := c.ProcessState.SysUsage().(*syscall.Rusage)
	out := os.NewFile(3, "measure")
	fmt.Fprintf(out, "%d %d %d\n", ru.Maxrss, wall, code)
	out.Close()
}

// BenchmarkVerifyJSONMemory compares the max RSS of rye verify --no-cache
// --format json with that of plain rye verify --no-cache (text, which
// lists only problems), each a separate process, over a generated signed
// project of -memory.items items: the JSON document is streamed, so it
// should cost little more than the run itself. It reports both in MiB and
// their ratio, each one's wall time, and checks that the document lists
// every item.
func BenchmarkVerifyJSONMemory(b *testing.B) {
	if _, err := os.Stat("/proc/self"); err != nil {
		b.Skip("max RSS is measured on Linux")
	}
	dir := b.TempDir()
	project := filepath.Join(dir, "project")
	env := append(os.Environ(), "HOME="+filepath.Join(dir, "home"), "USER_SPACE=", "XDG_CACHE_HOME="+filepath.Join(dir, "cache"), "XDG_CONFIG_HOME="+filepath.Join(dir, "config"))
	if err := corpus.Generate(project, *memoryItems, 42); err != nil {
		b.Fatal(err)
	}
	rye := func(args ...string) {
		c := exec.Command(os.Args[0], args...)
		c.Env, c.Dir = append(env, roleEnv+"=rye"), project
		if out, err := c.CombinedOutput(); err != nil {
			b.Fatalf("rye %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	rye("-q", "keys", "generate", "--no-passphrase")
	rye("-q", "trust", "self")
	rye("-q", "sign", "**")

	measure := func(stdout io.Writer, args ...string) (mib float64, wall time.Duration) {
		c := exec.Command(os.Args[0], args...)
		c.Env, c.Dir, c.Stdout = append(env, roleEnv+"=measure"), project, stdout
		var stderr strings.Builder
		c.Stderr = &stderr
		pr, pw, err := os.Pipe()
		if err != nil {
			b.Fatal(err)
		}
		c.ExtraFiles = []*os.File{pw}
		if err := c.Start(); err != nil {
			b.Fatal(err)
		}
		pw.Close()
		report, _ := io.ReadAll(pr)
		pr.Close()
		c.Wait()
		var kb, code int
		if _, err := fmt.Sscan(string(report), &kb, &wall, &code); err != nil || code != 0 {
			b.Fatalf("rye %s: exit %d (%v)\n%s", strings.Join(args, " "), code, err, stderr.String())
		}
		return float64(kb) / 1024, wall
	}
	var plain, asJSON float64
	var plainWall, jsonWall time.Duration
	for b.Loop() {
		mib, wall := measure(io.Discard, "verify", "--no-cache")
		plain, plainWall = max(plain, mib), plainWall+wall
		out, err := os.Create(filepath.Join(dir, "verify.json"))
		if err != nil {
			b.Fatal(err)
		}
		mib, wall = measure(out, "verify", "--no-cache", "--format", "json")
		asJSON, jsonWall = max(asJSON, mib), jsonWall+wall
		out.Close()
	}
	data, err := os.ReadFile(filepath.Join(dir, "verify.json"))
	if err != nil {
		b.Fatal(err)
	}
	var doc struct {
		Items   []json.RawMessage
		Summary struct{ Items, Verified int }
	}
	if err := json.Unmarshal(data, &doc); err != nil || len(doc.Items) != *memoryItems || doc.Summary.Verified != *memoryItems {
		b.Fatalf("the document lists %d items, %d verified, of %d (%v)", len(doc.Items), doc.Summary.Verified, *memoryItems, err)
	}
	b.ReportMetric(plain, "plain-MiB")
	b.ReportMetric(asJSON, "json-MiB")
	b.ReportMetric(asJSON/plain, "json/plain")
	b.ReportMetric(plainWall.Seconds()/float64(b.N), "plain-s")
	b.ReportMetric(jsonWall.Seconds()/float64(b.N), "json-s")
}
