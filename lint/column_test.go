package lint

import (
	"go/token"
	"slices"
	"strings"
	"testing"
)

// Findings count columns in characters: "x" after "dé " is column 4,
// though it is the fifth byte.
func TestCharColumn(t *testing.T) {
	f := &file{Src: []byte("first line\ndé x\n")}
	for _, c := range []struct{ offset, col, want int }{
		{15, 5, 4}, // x on line 2
		{11, 1, 1}, // start of line 2
		{4, 5, 5},  // ASCII line: unchanged
	} {
		if got := charColumn(f, token.Position{Offset: c.offset, Column: c.col}); got != c.want {
			t.Errorf("offset %d: column %d, want %d", c.offset, got, c.want)
		}
	}
	if got := charColumn(nil, token.Position{Column: 7}); got != 7 {
		t.Errorf("no file: %d", got)
	}
}

// TestLineStartsAreGoTokens: the line table lint gives each file is the
// one go/token would compute, for every mix of empty lines, final newlines
// and carriage returns.
func TestLineStartsAreGoTokens(t *testing.T) {
	texts := []string{"", "\n", "\n\n", "a", "a\n", "a\nb", "a\nb\n", "\na\n\nb\n\n", "x\r\ny\r\n", strings.Repeat("line\n", 300) + "end"}
	for i := range 200 {
		texts = append(texts, strings.Repeat(" \n"[i%2:], i%7)+strings.Repeat("ab\n", i%5)+strings.Repeat("\n", i%3))
	}
	for _, text := range texts {
		want := token.NewFileSet().AddFile("w", -1, len(text))
		want.SetLinesForContent([]byte(text))
		got := token.NewFileSet().AddFile("g", -1, len(text))
		if !got.SetLines(lineStarts([]byte(text))) {
			t.Fatalf("%q: go/token refuses the table %v", text, lineStarts([]byte(text)))
		}
		if !slices.Equal(got.Lines(), want.Lines()) {
			t.Errorf("%q: lines %v, go/token says %v", text, got.Lines(), want.Lines())
		}
	}
}
