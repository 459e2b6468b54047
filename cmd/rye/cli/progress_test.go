package cli

import (
	"bytes"
	"testing"
	"time"

	"github.com/ryekit/rye/report"
)

// The line shows after a second, at most ten times a second, and erases
// itself at the end; a quick walk prints nothing.
func TestProgressLine(t *testing.T) {
	var b bytes.Buffer
	now := time.Unix(0, 0)
	p := newProgressLine(&b, "verifying", func() time.Time { return now })
	p.update(1, 5000)
	now = now.Add(900 * time.Millisecond)
	p.update(2, 5000)
	if b.Len() != 0 {
		t.Fatalf("drawn before a second: %q", b.String())
	}
	now = now.Add(200 * time.Millisecond)
	p.update(1234, 5000)
	now = now.Add(50 * time.Millisecond)
	p.update(1300, 5000) // too soon after the last draw
	now = now.Add(100 * time.Millisecond)
	p.update(2000, 5000)
	p.update(5000, 5000)
	want := "\r\x1b[Kverifying 1,234/5,000\r\x1b[Kverifying 2,000/5,000\r\x1b[K"
	if b.String() != want {
		t.Errorf("%q\nwant %q", b.String(), want)
	}
	b.Reset()
	quick := newProgressLine(&b, "signing", time.Now)
	quick.update(1, 2)
	quick.update(2, 2)
	if b.Len() != 0 {
		t.Errorf("a quick walk printed %q", b.String())
	}
}

// No progress off a terminal, under -q, or when an output is for a
// program.
func TestProgressIsQuiet(t *testing.T) {
	var b bytes.Buffer
	a := &app{stderr: &b}
	if a.progress("verifying") != nil {
		t.Error("progress on a buffer")
	}
	a.outs = []report.Output{{Format: "sarif"}}
	a.quiet = true
	if a.progress("verifying") != nil {
		t.Error("progress under -q")
	}
}

// Under pre-commit, commands in messages name the hook's binary; a
// project that is not the working directory's is named with -C.
func TestHints(t *testing.T) {
	a := &app{cmdName: "~/.cache/pre-commit/repo1/golangenv-default/bin/rye"}
	got := a.hint(`modified: sign it again: rye sign tool x; or (rye -C b/c verify) and "rye:ignore" stays; trye sign`)
	want := `modified: sign it again: ~/.cache/pre-commit/repo1/golangenv-default/bin/rye sign tool x; or (~/.cache/pre-commit/repo1/golangenv-default/bin/rye -C b/c verify) and "rye:ignore" stays; trye sign`
	if got != want {
		t.Errorf("%s\nwant %s", got, want)
	}
	if (&app{cmdName: "rye"}).hint("rye sign x") != "rye sign x" {
		t.Error("rewritten outside pre-commit")
	}
	if shellWord("/tmp/a b/rye") != "'/tmp/a b/rye'" || shellWord("~/x y/rye") != "~/'x y/rye'" || shellWord("/usr/bin/rye") != "/usr/bin/rye" {
		t.Error("shellWord")
	}
}
