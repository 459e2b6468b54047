package report

import "testing"

// Commands are renamed where they are commands (after a blank, a bracket
// or a quote), never inside words or other text; a project's -C is put in
// front of the verb, replacing one that was there.
func TestCommands(t *testing.T) {
	msg := `modified: sign it again: rye sign tool x; or (rye -C b/c verify) and "rye:ignore" stays; trye sign`
	want := `modified: sign it again: /x/rye sign tool x; or (/x/rye -C b/c verify) and "rye:ignore" stays; trye sign`
	if got := RenameCommands(msg, "/x/rye"); got != want {
		t.Errorf("%s\nwant %s", got, want)
	}
	if RenameCommands("rye sign x", "rye") != "rye sign x" {
		t.Error("renamed to itself")
	}
	r := &Report{Findings: []Finding{{Message: "fix: rye trust self"}}, Notes: []string{"(rye -C a verify)"}, Groups: map[string]Group{"g": {Summary: "%s: rye sign x"}}}
	r.InDir("'b c'")
	if r.Findings[0].Message != "fix: rye -C 'b c' trust self" || r.Notes[0] != "(rye -C 'b c' verify)" {
		t.Errorf("InDir: %q %q", r.Findings[0].Message, r.Notes[0])
	}
	n := r.Named("~/bin/rye")
	if n.Findings[0].Message != "fix: ~/bin/rye -C 'b c' trust self" || n.Groups["g"].Summary != "%s: ~/bin/rye sign x" || r.Findings[0].Message != "fix: rye -C 'b c' trust self" {
		t.Errorf("Named: %+v (the original %+v)", n, r)
	}
	q := &Report{Findings: []Finding{{Message: "fix: rye sign x"}}}
	q.InDir(`'it'\''s'`)
	if got := q.Named("R").Findings[0].Message; got != `fix: R -C 'it'\''s' sign x` {
		t.Errorf("a quoted folder with a quote: %s", got)
	}
	for shown, want := range map[string]bool{"": false, ".": false, "..": false, "../..": false, "/abs": false, "b/c": true, "../x": true} {
		if Descends(shown) != want {
			t.Errorf("Descends(%q) = %v", shown, !want)
		}
	}
}
