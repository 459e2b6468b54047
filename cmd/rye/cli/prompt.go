package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/term"
)

// terminal is where rye asks for a passphrase.
type terminal struct {
	in    *os.File
	out   io.Writer
	close func() error
}

var errNoTerminal = errors.New("no terminal")

// openTerminal returns the user's terminal: /dev/tty, the controlling
// terminal, as ssh, gpg and minisign use it, so that a prompt reaches the
// user when stdin and stdout are pipes (the rye-sign pre-commit hook runs
// with no terminal on stdin and its output captured); else stdin when it is
// a terminal (Windows has no /dev/tty). A process with neither gets
// errNoTerminal.
func (a *app) openTerminal() (*terminal, error) {
	if f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0); err == nil {
		if term.IsTerminal(int(f.Fd())) {
			return &terminal{in: f, out: f, close: f.Close}, nil
		}
		f.Close()
	}
	if f, ok := a.stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return &terminal{in: f, out: a.stderr, close: func() error { return nil }}, nil
	}
	return nil, errNoTerminal
}

// readSecret prints prompt and reads a line without echo. If rye is
// interrupted while echo is off, the terminal is restored before rye exits,
// so that the shell is not left without echo.
func (t *terminal) readSecret(prompt string) ([]byte, error) {
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
			fmt.Fprintln(t.out)
			os.Exit(130)
		case <-done:
		}
	}()
	defer func() {
		signal.Stop(sigs)
		close(done)
	}()
	fmt.Fprint(t.out, prompt)
	p, err := term.ReadPassword(fd)
	fmt.Fprintln(t.out)
	return p, err
}
