// Command measure runs a command and writes its wall time (nanoseconds),
// max RSS (KiB), exit code and CPU time (user and system, nanoseconds) to
// file descriptor 3:
//
//	measure COMMAND [ARG...] 3>REPORT
//
// ryebench starts every timed command through it. Linux counts in a
// child's max RSS the pages of the process that started it (Go starts a
// child sharing its memory until exec), and ryebench, which links rye and
// holds the corpus's paths, is large: this program is small and links
// nothing of rye, so readings of small processes (the floor, git status)
// are theirs. Readings below its own few MiB show as those few MiB.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: measure COMMAND [ARG...] 3>REPORT")
		os.Exit(2)
	}
	c := exec.Command(os.Args[1], os.Args[2:]...)
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr
	t := time.Now()
	err := c.Run()
	wall := time.Since(t)
	code := 0
	if err != nil {
		if c.ProcessState == nil || c.ProcessState.ExitCode() < 0 {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		code = c.ProcessState.ExitCode()
	}
	var kb int64
	if ru, ok := c.ProcessState.SysUsage().(*syscall.Rusage); ok {
		kb = ru.Maxrss // KiB on Linux
	}
	cpu := c.ProcessState.UserTime() + c.ProcessState.SystemTime()
	out := os.NewFile(3, "report")
	fmt.Fprintf(out, "%d %d %d %d\n", int64(wall), kb, code, int64(cpu))
	out.Close()
}
