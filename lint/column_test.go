package lint

import (
	"go/token"
	"testing"
)

// Findings count columns in characters: "x" after "dé " is column 4,
// though it is the fifth byte.
func TestCharColumn(t *testing.T) {
	f := &File{Src: []byte("first line\ndé x\n")}
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
