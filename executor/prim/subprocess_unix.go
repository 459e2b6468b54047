//go:build unix

package prim

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// subprocessSysProcAttr starts the program in a new process group whose id
// is its pid, so that it and everything it spawns can be signalled at once
// (unless a descendant deliberately leaves the group).
func subprocessSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// terminateGroup asks the process group of p to exit (SIGTERM), giving
// tools a chance to clean up before killGroup.
func terminateGroup(p *os.Process) {
	_ = syscall.Kill(-p.Pid, syscall.SIGTERM)
}

// killGroup kills the process group pgid with SIGKILL. ESRCH (the group is
// already empty) is the normal case after a clean exit and is ignored.
//
// After the leader has been reaped, pgid can only name another group if the
// system recycled the id for a new group leader in the microseconds between
// the reap and this call, which needs the pid space to wrap in between; the
// kernel does not reuse an id while a group of that id still has members.
func killGroup(pgid int, _ *os.Process) {
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
}

// exitCode is the exit status, or 128+signal for a program killed by a
// signal (as shells report it).
func exitCode(ps *os.ProcessState) int {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok {
		if ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ws.ExitStatus()
	}
	return ps.ExitCode()
}

// defaultPath is searched when the environment has no PATH, as execvp does.
func defaultPath() string { return "/usr/local/bin:/usr/bin:/bin" }

func hasPathSeparator(command string) bool { return strings.Contains(command, "/") }

// executableCandidates are the files that path may name: itself on Unix.
func executableCandidates(path string, _ []string) []string { return []string{path} }

// isExecutable says whether we may execute the regular file path, as the
// kernel will decide it (access(2) with X_OK, which also accounts for root
// and for mount options only partly, hence the mode check too).
func isExecutable(path string, fi fs.FileInfo) bool {
	return fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 && unix.Access(path, unix.X_OK) == nil
}

func isExecFormatError(err error) bool { return errors.Is(err, syscall.ENOEXEC) }

func envKeyEqual(a, b string) bool { return a == b }
