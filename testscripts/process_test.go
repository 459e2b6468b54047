package testscripts

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// pidgone FILE waits (up to 10 s) until the process whose pid is in FILE
// no longer exists: the proof that a killed tool left nothing behind. A
// zombie counts as gone: it has been killed and only waits for its parent
// (in containers whose pid 1 does not reap orphans, it waits forever).
func pidgone(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: pidgone FILE")
	}
	pid, err := strconv.Atoi(strings.TrimSpace(ts.ReadFile(args[0])))
	if err != nil || pid <= 0 {
		ts.Fatalf("%s: no pid: %v", args[0], err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		gone := processGone(pid)
		if gone != neg {
			return
		}
		if time.Now().After(deadline) {
			if neg {
				ts.Fatalf("process %d is gone", pid)
			}
			ts.Fatalf("process %d is still running", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// processGone reports whether pid does not exist, or is a zombie.
func processGone(pid int) bool {
	if stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
		// pid (comm) state ...: the state follows the last ')'.
		s := string(stat)
		if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
			return s[i+2] == 'Z'
		}
		return false
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return true
	}
	return !processAlive(p)
}

// status N CMD ARGS... runs a command like exec and checks that its exit
// code is exactly N (testscript's "!" only knows zero and non-zero, and
// rye's exit codes tell findings, 1, from usage errors, 2).
func status(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: status N command [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("status: %q is not an exit code", args[0])
	}
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		got = ee.ExitCode()
	case err != nil:
		ts.Fatalf("%s: %v", args[1], err)
	}
	if got != want {
		ts.Fatalf("%s exited with %d, want %d", args[1], got, want)
	}
}
