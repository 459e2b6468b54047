// Package precommit knows what is particular to a run of rye as a
// pre-commit hook: whether a run is one (pre-commit sets PRE_COMMIT=1 in
// a hook's environment), and the path of the running binary, since the
// hook's rye is installed in pre-commit's own environment, not on the
// user's PATH, and a command a message suggests must name it to work when
// pasted.
package precommit

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Hook reports a run under pre-commit: its file list is a change's, whose
// files that are not items are skipped rather than refused.
func Hook(getenv func(string) string) bool { return getenv("PRE_COMMIT") == "1" }

// self is what the process knows of how it was started; Process gives
// the running process's, a test its own.
type self struct {
	Arg0       string                       // os.Args[0]
	LookPath   func(string) (string, error) // exec.LookPath
	Executable func() (string, error)       // os.Executable
	Home       func() (string, error)       // os.UserHomeDir
}

// Process is the running process's Self.
func Process() self {
	return self{Arg0: os.Args[0], LookPath: exec.LookPath, Executable: os.Executable, Home: os.UserHomeDir}
}

// Path is the running binary as it was started: Arg0 when it is a path
// (pre-commit starts hooks by their full path), else found on PATH, else
// what the system says; "" when none knows. A path in the home folder is
// written ~/…, which every shell expands.
func (s self) Path() string {
	return s.homeRelative(s.executable())
}

// executable is the binary's absolute path, or "".
func (s self) executable() string {
	arg := s.Arg0
	if strings.ContainsRune(arg, filepath.Separator) {
		if abs, err := filepath.Abs(arg); err == nil {
			return abs
		}
	}
	if p, err := s.LookPath(arg); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			return abs
		}
	}
	p, err := s.Executable()
	if err != nil {
		return ""
	}
	return p
}

// homeRelative writes p, when it is in the home folder, as ~/….
func (s self) homeRelative(p string) string {
	if p == "" {
		return ""
	}
	home, err := s.Home()
	if err != nil || home == "" {
		return p
	}
	if rel, err := filepath.Rel(home, p); err == nil && filepath.IsLocal(rel) && rel != "." {
		return "~/" + filepath.ToSlash(rel)
	}
	return p
}
