package cli

import (
	"os"

	"github.com/ryekit/rye/internal/precommit"
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
		if p := precommit.Process().Path(); p != "" {
			a.cmdName = report.ShellWord(p)
		}
	}
	return a.cmdName
}

// fromHook reports a run under pre-commit (precommit.Hook).
func fromHook() bool { return precommit.Hook(os.Getenv) }
