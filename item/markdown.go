package item

import "bytes"

// fence is a fenced code block at the top level of a Markdown file.
type fence struct {
	openStart  int // offset of the opening ``` line
	bodyStart  int // offset of the first line inside the fence
	bodyEnd    int // offset of the closing line (end of the content)
	closeEnd   int // offset just past the closing line
	closeFound bool
}

// findFence returns the first top-level fenced block whose opening line is
// exactly "```"+info (trailing blanks allowed), scanning from offset from.
// Fences are tracked the CommonMark way: inside a block opened by N
// backticks or tildes, nothing counts until a line of at least N of the same
// character, so a ```yaml example inside a ````markdown block is content,
// not metadata (spec 1.4, 1.6).
func findFence(src []byte, from int, info string) (fence, bool) {
	var open struct {
		char  byte
		count int
		want  bool // this open fence is the one we are looking for
		f     fence
	}
	for off := from; off < len(src); {
		next := lineEnd(src, off)
		line := trimRightBlank(src[off:next])
		if open.count == 0 {
			char, count := FenceRun(line)
			if count >= 3 {
				open.char, open.count = char, count
				open.want = count == 3 && char == '`' && string(line[3:]) == info
				open.f = fence{openStart: off, bodyStart: next}
			}
		} else if char, count := FenceRun(line); char == open.char && count >= open.count && count == len(line) {
			if open.want {
				open.f.bodyEnd, open.f.closeEnd, open.f.closeFound = off, next, true
				return open.f, true
			}
			open.count = 0
		}
		off = next
	}
	if open.count > 0 && open.want {
		open.f.bodyEnd, open.f.closeEnd = len(src), len(src)
		return open.f, true
	}
	return fence{}, false
}

// CodeBlocks returns the byte ranges [start, end) of the fenced code
// blocks of a Markdown text, from the opening fence line to the end of the
// closing one (or of the text, for a block that never closes). Fences are
// tracked as findFence tracks them. An example in a code block is content,
// never something the file itself declares (lint's misplaced signature
// lines).
func CodeBlocks(src []byte) [][2]int {
	var out [][2]int
	var char byte
	count, start := 0, 0
	for off := 0; off < len(src); {
		next := lineEnd(src, off)
		line := trimRightBlank(src[off:next])
		if count == 0 {
			if c, n := FenceRun(line); n >= 3 {
				char, count, start = c, n, off
			}
		} else if c, n := FenceRun(line); c == char && n >= count && n == len(line) {
			out = append(out, [2]int{start, next})
			count = 0
		}
		off = next
	}
	if count > 0 {
		out = append(out, [2]int{start, len(src)})
	}
	return out
}

// FenceRun returns the fence character and how many times it repeats at the
// start of a line (0 when the line does not start a fence): the Markdown
// code fences every reader of an item's body agrees on.
func FenceRun(line []byte) (byte, int) {
	if len(line) == 0 || (line[0] != '`' && line[0] != '~') {
		return 0, 0
	}
	n := 0
	for n < len(line) && line[n] == line[0] {
		n++
	}
	return line[0], n
}

// trimRightBlank drops the line ending and trailing spaces and tabs.
func trimRightBlank(line []byte) []byte {
	return bytes.TrimRight(line, " \t\r\n")
}

// isDashes reports whether a line is a front-matter delimiter "---".
func isDashes(line []byte) bool { return string(trimRightBlank(line)) == "---" }
