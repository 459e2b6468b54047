package syntax

import (
	"strings"
	"testing"
)

// TestLineIndexPositions: every offset of a file gets the line and column a
// count of the newlines before it gives, a final newline starting a line.
func TestLineIndexPositions(t *testing.T) {
	for _, text := range []string{"", "\n", "ab", "ab\n", "\n\nx\n\n", "dé\r\nx\n" + strings.Repeat("y\n", 50)} {
		x := NewLineIndex([]byte(text))
		if want := strings.Count(text, "\n") + 1; x.Lines() != want {
			t.Errorf("%q: %d lines, want %d", text, x.Lines(), want)
		}
		for off := 0; off <= len(text); off++ {
			line := strings.Count(text[:off], "\n") + 1
			col := off - (strings.LastIndexByte(text[:off], '\n') + 1) + 1
			if p := x.Pos(off); p.Line != line || p.Col != col || p.Offset != off {
				t.Errorf("%q offset %d: %v, want %d:%d", text, off, p, line, col)
			}
		}
		if x.LineStart(x.Lines()+1) != -1 || x.LineStart(1) != 0 {
			t.Errorf("%q: line starts out of range", text)
		}
	}
}
