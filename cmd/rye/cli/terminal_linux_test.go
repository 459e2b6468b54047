//go:build linux

package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ryekit/rye/internal/cleancopy"
	"github.com/ryekit/rye/internal/ptytest"
)

// On a terminal, text output is coloured unless NO_COLOR or --no-color,
// and a walk draws a progress line on stderr that it erases when done.
func TestTerminalColourAndProgress(t *testing.T) {
	dir := t.TempDir()
	if err := cleancopy.Copy(dir, "../../../examples/hello"); err != nil {
		t.Fatal(err)
	}
	item := filepath.Join(dir, ".ai/tools/hello/greet.py")
	data, _ := os.ReadFile(item)
	os.WriteFile(item, bytes.Replace(data, []byte("Greet someone"), []byte("Greet anyone"), 1), 0o644)
	t.Setenv("HOME", t.TempDir())
	t.Setenv("USER_SPACE", "")
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("RYE_SYSTEM_PATH", "")

	run := func(noColorEnv string, args ...string) string {
		t.Helper()
		t.Setenv("NO_COLOR", noColorEnv)
		master, tty := ptytest.Open(t)
		var mu sync.Mutex
		var out bytes.Buffer
		go func() {
			buf := make([]byte, 4096)
			for {
				n, err := master.Read(buf)
				mu.Lock()
				out.Write(buf[:n])
				mu.Unlock()
				if err != nil {
					return
				}
			}
		}()
		a := &app{stdin: strings.NewReader(""), stdout: tty, stderr: tty} // progressDelay 0: the line shows at once
		if code := a.main(append([]string{"-C", dir}, args...)); code != 1 {
			t.Fatalf("exit %d", code)
		}
		var got string
		ptytest.WaitFor(t, "the report", func() bool {
			mu.Lock()
			defer mu.Unlock()
			got = out.String()
			return strings.Contains(got, "1 failed") || slices.Contains(args, "-q") && strings.Contains(got, "modified")
		})
		time.Sleep(20 * time.Millisecond)
		mu.Lock()
		defer mu.Unlock()
		return out.String()
	}
	got := run("", "verify", "--no-cache")
	if !strings.Contains(got, "\x1b[1;31merror\x1b[0m") || !strings.Contains(got, "\x1b[1m.ai/tools/hello/greet.py:2:1\x1b[0m") {
		t.Errorf("no colour on a terminal: %q", got)
	}
	if !strings.Contains(got, "\r\x1b[Kverifying ") || !strings.Contains(got, "\r\x1b[K.ai/tools") && !strings.Contains(got, "\r\x1b[K\x1b[1m") {
		t.Errorf("no progress line, or not erased before the report: %q", got)
	}
	// No colour when asked; progress is not colour.
	if got := run("", "verify", "--no-color"); strings.Contains(got, "\x1b[0m") || !strings.Contains(got, "verifying") {
		t.Errorf("--no-color: %q", got)
	}
	if got := run("1", "verify"); strings.Contains(got, "\x1b[0m") {
		t.Errorf("NO_COLOR: %q", got)
	}
	// A machine format on stdout: no progress (its reader is a program).
	if got := run("", "verify", "--format", "github"); strings.Contains(got, "verifying") || strings.Contains(got, "\x1b[") {
		t.Errorf("github: %q", got)
	}
	// -q: none either.
	if got := run("", "-q", "verify"); strings.Contains(got, "verifying") {
		t.Errorf("-q: %q", got)
	}
}
