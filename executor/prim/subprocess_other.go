//go:build !unix

package prim

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
)

// Outside Unix there are no process groups that this package manages: on
// timeout or cancellation only the program itself is killed (on Windows,
// TerminateProcess), and its children keep running. RunSubprocess still
// returns promptly when they hold stdout or stderr open, because it stops
// reading them drainDelay after the program is gone. Killing the whole tree
// on Windows would need a job object; this is best effort.

func subprocessSysProcAttr() *syscall.SysProcAttr { return nil }

// terminateGroup kills the program: there is no gentler portable signal.
func terminateGroup(p *os.Process) { _ = p.Kill() }

// killGroup kills the program p when given (the timer after the grace);
// after a normal exit (p nil) there is nothing it can reach.
func killGroup(_ int, p *os.Process) {
	if p != nil {
		_ = p.Kill()
	}
}

func exitCode(ps *os.ProcessState) int { return ps.ExitCode() }

// defaultPath is searched when the environment has no PATH: rye's own, as
// there is no system default to speak of.
func defaultPath() string { return os.Getenv("PATH") }

func hasPathSeparator(command string) bool {
	if runtime.GOOS == "windows" {
		return strings.ContainsAny(command, `\/:`)
	}
	return strings.Contains(command, "/")
}

// executableCandidates are the files that path may name: on Windows, path
// with each extension of PATHEXT (from env, else the usual ones) unless it
// already has one of them.
func executableCandidates(path string, env []string) []string {
	if runtime.GOOS != "windows" {
		return []string{path}
	}
	pathext, ok := envListLookup(env, "PATHEXT")
	if !ok || pathext == "" {
		pathext = ".COM;.EXE;.BAT;.CMD"
	}
	var exts []string
	for _, e := range strings.Split(strings.ToLower(pathext), ";") {
		if e != "" {
			if e[0] != '.' {
				e = "." + e
			}
			exts = append(exts, e)
		}
	}
	ext := strings.ToLower(filepath.Ext(path))
	for _, e := range exts {
		if ext == e {
			return []string{path}
		}
	}
	out := make([]string, 0, len(exts))
	for _, e := range exts {
		out = append(out, path+e)
	}
	return out
}

func isExecutable(_ string, fi fs.FileInfo) bool {
	if runtime.GOOS == "windows" {
		return !fi.IsDir()
	}
	return fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

func isExecFormatError(err error) bool {
	return strings.Contains(err.Error(), "not a valid Win32 application") || strings.Contains(err.Error(), "exec format error")
}

func envKeyEqual(a, b string) bool {
	if runtime.GOOS == "windows" {
		return strings.EqualFold(a, b)
	}
	return a == b
}
