//go:build linux

package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal pair (Linux's /dev/ptmx).
func openPTY(t *testing.T) (master, tty *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	t.Cleanup(func() { master.Close() })
	if err := unix.IoctlSetPointerInt(int(master.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(master.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tty.Close() })
	return master, tty
}

func echoOn(t *testing.T, tty *os.File) bool {
	t.Helper()
	tio, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	return tio.Lflag&unix.ECHO != 0
}

// waitFor polls until cond holds, or fails the test after 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

// TestReadSecretRestoresEchoOnInterrupt: Ctrl-C at a passphrase prompt
// leaves the terminal with echo on, as it was, and exits 130. The prompt
// runs in a child process (this test binary again), on a pseudo-terminal.
func TestReadSecretRestoresEchoOnInterrupt(t *testing.T) {
	if os.Getenv("RYE_TEST_PROMPT_CHILD") == "1" {
		tm := &terminal{in: os.Stdin, out: os.Stdout, close: func() error { return nil }}
		tm.readSecret("Secret: ")
		os.Exit(0) // not reached when interrupted
	}
	master, tty := openPTY(t)
	if !echoOn(t, tty) {
		t.Fatal("a new terminal has echo off")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestReadSecretRestoresEchoOnInterrupt$")
	cmd.Env = append(os.Environ(), "RYE_TEST_PROMPT_CHILD=1")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, master) // what the prompt shows

	waitFor(t, "echo to go off at the prompt", func() bool { return !echoOn(t, tty) })
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 130 {
		t.Errorf("interrupted prompt: %v, want exit status 130", err)
	}
	if !echoOn(t, tty) {
		t.Error("echo is still off after Ctrl-C at the prompt")
	}
}
