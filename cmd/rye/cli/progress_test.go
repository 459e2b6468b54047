package cli

import (
	"bytes"
	"testing"

	"github.com/ryekit/rye/report"
)

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
	if report.ShellWord("/tmp/a b/rye") != "'/tmp/a b/rye'" || report.ShellWord("~/x y/rye") != "~/'x y/rye'" || report.ShellWord("/usr/bin/rye") != "/usr/bin/rye" {
		t.Error("ShellWord")
	}
}
