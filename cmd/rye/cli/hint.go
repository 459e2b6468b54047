package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/ryekit/rye/report"
)

// hint rewrites the rye commands a message names so that they work where
// rye runs (report.RenameCommands). Under pre-commit (PRE_COMMIT=1 in a
// hook's environment) the hook's rye is installed in pre-commit's own
// environment, not on the user's PATH: a fix that says "rye sign …" would
// fail when pasted, so commands name the hook's binary by its path (with
// ~ for the home folder). Elsewhere messages are left as they are.
func (a *app) hint(msg string) string { return report.RenameCommands(msg, a.commandName()) }

// commandName is how messages name rye: "rye", or under pre-commit the
// path of the running binary (see hint).
func (a *app) commandName() string {
	if a.cmdName != "" {
		return a.cmdName
	}
	a.cmdName = "rye"
	if fromHook() {
		if p := executablePath(); p != "" {
			a.cmdName = report.ShellWord(homeRelative(p))
		}
	}
	return a.cmdName
}

// executablePath is the running binary as it was started: os.Args[0] when
// it is a path (pre-commit starts hooks by their full path), else found on
// PATH, else what the system says.
func executablePath() string {
	arg := os.Args[0]
	if strings.ContainsRune(arg, filepath.Separator) {
		if abs, err := filepath.Abs(arg); err == nil {
			return abs
		}
	}
	if p, err := exec.LookPath(arg); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			return abs
		}
	}
	p, err := os.Executable()
	if err != nil {
		return ""
	}
	return p
}

// homeRelative writes a path in the home folder as ~/…, which every shell
// expands.
func homeRelative(p string) string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return p
	}
	if rel, err := filepath.Rel(home, p); err == nil && !report.Outside(rel) && rel != "." {
		return "~/" + filepath.ToSlash(rel)
	}
	return p
}

// fromHook reports a run under pre-commit (PRE_COMMIT=1 in a hook's
// environment): its file list is a change's, whose files that are not
// items are skipped rather than refused.
func fromHook() bool { return os.Getenv("PRE_COMMIT") == "1" }
