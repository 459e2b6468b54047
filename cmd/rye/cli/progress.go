package cli

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/ryekit/rye/report"
)

// progressDelay is how long a walk runs before its progress line shows: a
// quick run prints nothing.
var progressDelay = time.Second

// progress returns the callback of a progress line on stderr for a verb
// that walks many items ("verifying 1,234/5,000"), or nil when nothing may
// be shown: stderr is not a terminal, -q, or an output in a machine format
// (--json, or --format or --output other than text: its reader is a
// program).
func (a *app) progress(verb string) func(done, total int) {
	if a.quiet || a.json || !isTerminal(a.stderr) || report.Machine(a.outs) {
		return nil
	}
	return newProgressLine(a.stderr, verb, time.Now).update
}

// progressLine draws one line, redrawn in place at most ten times a
// second, from progressDelay after it was made; it erases itself when the
// walk is done, so that the report that follows starts on a clean line.
type progressLine struct {
	mu    sync.Mutex
	w     io.Writer
	verb  string
	now   func() time.Time
	start time.Time
	drawn time.Time // zero until the first draw
}

func newProgressLine(w io.Writer, verb string, now func() time.Time) *progressLine {
	return &progressLine{w: w, verb: verb, now: now, start: now()}
}

func (p *progressLine) update(done, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	t := p.now()
	if done >= total {
		if !p.drawn.IsZero() {
			fmt.Fprint(p.w, "\r\x1b[K")
			p.drawn = time.Time{}
		}
		return
	}
	if t.Sub(p.start) < progressDelay || (!p.drawn.IsZero() && t.Sub(p.drawn) < 100*time.Millisecond) {
		return
	}
	p.drawn = t
	fmt.Fprintf(p.w, "\r\x1b[K%s %s/%s", p.verb, report.Count(done), report.Count(total))
}
