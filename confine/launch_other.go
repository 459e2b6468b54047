//go:build !linux

package confine

import (
	"errors"
	"os/exec"
)

var errNotLinux = errors.New("unenforceable: confinement needs Linux (Landlock and seccomp); nothing was run")

// interpreterGrants are Linux's: none elsewhere.
func interpreterGrants(program string, notIn []string) ([]Grant, *prefixes) {
	return nil, &prefixes{Program: program}
}

// FindHelper: there is no helper outside Linux.
func FindHelper() (Helper, error) { return Helper{}, errNotLinux }

// Prepare refuses: nothing is confined outside Linux, so nothing runs.
func (l *Launcher) Prepare(cmd *exec.Cmd) error {
	if err := Check(l.spec.Kernel, l.spec.Needs); err != nil {
		return err
	}
	return errNotLinux
}

// Started is never reached outside Linux.
func (l *Launcher) Started() error { return errNotLinux }

// Close does nothing outside Linux.
func (l *Launcher) Close() {}

// Ruleset is Landlock's: none outside Linux.
type Ruleset struct{}

// BuildRuleset returns nothing to build outside Linux.
func BuildRuleset(k Kernel, system bool) *Ruleset { return &Ruleset{} }

// Close does nothing outside Linux.
func (r *Ruleset) Close() {}
