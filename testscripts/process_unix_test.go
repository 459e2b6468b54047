//go:build unix

package testscripts

import (
	"os"
	"syscall"
)

func processAlive(p *os.Process) bool { return p.Signal(syscall.Signal(0)) == nil }

// detachTerminal starts a new session, leaving the controlling terminal of
// whoever ran go test: a script that expects "no terminal" must not prompt
// on a developer's terminal and wait. A command that ttyin gave a terminal
// leads its session already; Setsid fails for it and it keeps the terminal.
func detachTerminal() { syscall.Setsid() }
