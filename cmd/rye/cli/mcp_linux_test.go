//go:build linux

package cli

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ryekit/rye/internal/ptytest"
)

// TestMCPAllowSignNeverPrompts: rye mcp --allow-sign with an encrypted key
// and no RYE_KEY_PASSWORD refuses to start (exit 2, saying why) even when
// it has a controlling terminal, where rye sign would ask: under an agent
// that terminal is the agent's own screen. The server runs in a child
// process (this test binary again), in a session of its own whose
// controlling terminal is a pseudo-terminal.
func TestMCPAllowSignNeverPrompts(t *testing.T) {
	if os.Getenv("RYE_TEST_MCP_CHILD") == "1" {
		os.Exit(Main([]string{"mcp", "--allow-sign"}, os.Stdin, os.Stdout, os.Stderr))
	}
	home := t.TempDir()
	key := filepath.Join(home, "key.pem")
	t.Setenv("HOME", home)
	t.Setenv("USER_SPACE", "")
	t.Setenv("RYE_SIGNING_KEY", key)
	t.Setenv("RYE_KEY_PASSWORD", "correct horse")
	var stderr bytes.Buffer
	if code := Main([]string{"keys", "generate"}, strings.NewReader(""), io.Discard, &stderr); code != 0 {
		t.Fatalf("keys generate: exit %d: %s", code, stderr.String())
	}

	master, tty := ptytest.Open(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestMCPAllowSignNeverPrompts$")
	cmd.Env = append(os.Environ(), "RYE_TEST_MCP_CHILD=1", "RYE_KEY_PASSWORD=")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var shown bytes.Buffer
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			mu.Lock()
			shown.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		<-done
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("rye mcp --allow-sign waits, at a prompt?\n%s", shown.String())
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != ExitUsage {
		t.Errorf("rye mcp --allow-sign: %v, want exit status 2", err)
	}
	ptytest.WaitFor(t, "the error on the terminal", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return strings.Contains(shown.String(), "rye mcp never asks for a passphrase")
	})
	mu.Lock()
	defer mu.Unlock()
	if strings.Contains(shown.String(), "passphrase for") {
		t.Errorf("it asked on the terminal:\n%s", shown.String())
	}
}
