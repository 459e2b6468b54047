package cli

import (
	"strings"

	"github.com/ryekit/rye/executor"
	"github.com/ryekit/rye/internal/secretenv"
)

// scrubSecrets takes rye's secrets (executor.SecretVars) out of the
// process's initial environment block before a verb runs tools: a tool
// could read them in /proc/<rye's pid>/environ, whatever os.Unsetenv did
// (package secretenv). rye keeps its own copy (os.Getenv still works).
func scrubSecrets() error {
	if err := secretenv.Scrub(executor.SecretVars...); err != nil {
		return usageError("cannot remove %s from rye's environment block, where a tool could read them: %v; unset them before rye runs tools", strings.Join(executor.SecretVars, ", "), err)
	}
	return nil
}
