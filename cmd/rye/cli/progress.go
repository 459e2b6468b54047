package cli

import (
	"time"

	"github.com/ryekit/rye/internal/tty"
	"github.com/ryekit/rye/report"
)

// progress returns the callback of a progress line on stderr for a verb
// that walks many items ("verifying 1,234/5,000"), or nil when nothing may
// be shown: stderr is not a terminal, -q, or an output in a machine format
// (--json, or --format or --output other than text: its reader is a
// program).
func (a *app) progress(verb string) func(done, total int) {
	if a.quiet || a.json || !tty.IsTerminal(a.stderr) || report.Machine(a.outs) {
		return nil
	}
	return tty.NewProgress(a.stderr, verb, a.progressDelay, time.Now, report.Count).Update
}
