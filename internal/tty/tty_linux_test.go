//go:build linux

package tty

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"testing"

	"github.com/ryekit/rye/internal/ptytest"
)

// Ctrl-C at a passphrase prompt leaves the terminal with echo on, as it
// was, and exits 130. The prompt runs in a child process (this test binary
// again), on a pseudo-terminal.
func TestReadSecretRestoresEchoOnInterrupt(t *testing.T) {
	if os.Getenv("RYE_TEST_PROMPT_CHILD") == "1" {
		tm := &terminal{in: os.Stdin, Out: os.Stdout, close: func() error { return nil }}
		tm.ReadSecret("Secret: ")
		os.Exit(0) // not reached when interrupted
	}
	master, tty := ptytest.Open(t)
	if !ptytest.EchoOn(t, tty) {
		t.Fatal("a new terminal has echo off")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestReadSecretRestoresEchoOnInterrupt$")
	cmd.Env = append(os.Environ(), "RYE_TEST_PROMPT_CHILD=1")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, master) // what the prompt shows

	ptytest.WaitFor(t, "echo to go off at the prompt", func() bool { return !ptytest.EchoOn(t, tty) })
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 130 {
		t.Errorf("interrupted prompt: %v, want exit status 130", err)
	}
	if !ptytest.EchoOn(t, tty) {
		t.Error("echo is still off after Ctrl-C at the prompt")
	}
}
