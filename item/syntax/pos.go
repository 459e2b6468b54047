package syntax

import (
	"bytes"
	"fmt"
	"sort"
)

// Pos is a place in an item file. Offsets and columns count bytes of the
// file as stored (signature line, BOM and CR characters included), so that a
// position can be handed unchanged to an editor, to SARIF or to a text edit.
type Pos struct {
	Offset int // 0-based byte offset
	Line   int // 1-based; 0 means "no position"
	Col    int // 1-based byte column
}

// IsValid reports whether p names a real place.
func (p Pos) IsValid() bool { return p.Line > 0 }

func (p Pos) String() string {
	if !p.IsValid() {
		return "-"
	}
	return fmt.Sprintf("%d:%d", p.Line, p.Col)
}

// LineIndex turns byte offsets of one file into line:column positions.
type LineIndex struct {
	starts []int // offset of the first byte of each line
	size   int
}

// NewLineIndex indexes the line starts of src.
func NewLineIndex(src []byte) *LineIndex {
	starts := make([]int, 1, 64)
	for off := 0; ; {
		i := bytes.IndexByte(src[off:], '\n')
		if i < 0 {
			return &LineIndex{starts: starts, size: len(src)}
		}
		off += i + 1
		starts = append(starts, off)
	}
}

// Pos returns the position of a byte offset (clamped to the file).
func (x *LineIndex) Pos(offset int) Pos {
	if offset < 0 {
		offset = 0
	}
	if offset > x.size {
		offset = x.size
	}
	line := sort.Search(len(x.starts), func(i int) bool { return x.starts[i] > offset }) - 1
	return Pos{Offset: offset, Line: line + 1, Col: offset - x.starts[line] + 1}
}

// LineStart returns the offset of the first byte of a 1-based line, or -1.
func (x *LineIndex) LineStart(line int) int {
	if line < 1 || line > len(x.starts) {
		return -1
	}
	return x.starts[line-1]
}

// Lines is the number of lines (a final line without '\n' counts).
func (x *LineIndex) Lines() int { return len(x.starts) }
