// Package tty is rye's use of the user's terminal: whether an output is
// one (colour, progress), the terminal itself when standard input and
// output are pipes (a passphrase prompt under a pre-commit hook), reading
// a secret without echo that survives Ctrl-C, and a progress line redrawn
// in place. What to ask and when is the command line's; this is how.
package tty

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"golang.org/x/term"
)

// IsTerminal reports whether w is a terminal.
func IsTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// terminal is where a prompt asks and reads.
type terminal struct {
	in    *os.File
	Out   io.Writer
	close func() error
}

// errNoTerminal is a process with no terminal to ask on.
var errNoTerminal = errors.New("no terminal")

// Open returns the user's terminal: /dev/tty, the controlling terminal, as
// ssh, gpg and minisign use it, so that a prompt reaches the user when
// standard input and output are pipes (the rye-sign pre-commit hook runs
// with no terminal on stdin and its output captured); else stdin when it
// is a terminal (Windows has no /dev/tty), with prompts on stderr. A
// process with neither gets errNoTerminal.
func Open(stdin io.Reader, stderr io.Writer) (*terminal, error) {
	if f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0); err == nil {
		if term.IsTerminal(int(f.Fd())) {
			return &terminal{in: f, Out: f, close: f.Close}, nil
		}
		f.Close()
	}
	if f, ok := stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return &terminal{in: f, Out: stderr, close: func() error { return nil }}, nil
	}
	return nil, errNoTerminal
}

// Close closes the terminal when Open opened it.
func (t *terminal) Close() error { return t.close() }

// ReadSecret prints prompt and reads a line without echo. If the process
// is interrupted while echo is off, the terminal is restored before it
// exits (status 130), so that the shell is not left without echo.
func (t *terminal) ReadSecret(prompt string) ([]byte, error) {
	fd := int(t.in.Fd())
	state, err := term.GetState(fd)
	if err != nil {
		return nil, err
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case <-sigs:
			term.Restore(fd, state)
			fmt.Fprintln(t.Out)
			os.Exit(130)
		case <-done:
		}
	}()
	defer func() {
		signal.Stop(sigs)
		close(done)
	}()
	fmt.Fprint(t.Out, prompt)
	p, err := term.ReadPassword(fd)
	fmt.Fprintln(t.Out)
	return p, err
}

// progress draws one line ("verifying 1,234/5,000"), redrawn in place at
// most ten times a second, from delay after it was made (a quick walk
// prints nothing); it erases itself when the walk is done, so that what
// follows starts on a clean line.
type progress struct {
	mu    sync.Mutex
	w     io.Writer
	verb  string
	delay time.Duration
	now   func() time.Time
	count func(int) string // a number for people ("1,234")
	start time.Time
	drawn time.Time // zero until the first draw
}

// NewProgress starts a progress line on w, now.
func NewProgress(w io.Writer, verb string, delay time.Duration, now func() time.Time, count func(int) string) *progress {
	return &progress{w: w, verb: verb, delay: delay, now: now, count: count, start: now()}
}

// Update is told how many of total are done.
func (p *progress) Update(done, total int) {
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
	if t.Sub(p.start) < p.delay || (!p.drawn.IsZero() && t.Sub(p.drawn) < 100*time.Millisecond) {
		return
	}
	p.drawn = t
	fmt.Fprintf(p.w, "\r\x1b[K%s %s/%s", p.verb, p.count(done), p.count(total))
}
