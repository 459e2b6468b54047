//go:build !unix

package testscripts

import "os"

// processAlive cannot probe a process outside unix; the scripts that use
// pidgone run on unix only.
func processAlive(p *os.Process) bool { return false }

// detachTerminal has nothing to do outside unix: rye reads a passphrase
// only from a stdin that is a terminal there.
func detachTerminal() {}
