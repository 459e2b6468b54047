package sign

import (
	"bytes"
	"strings"

	"github.com/ryekit/rye/item"
)

// coverage is what a signature's hash covers of a signed file: every byte
// outside the signature line, but for the spans the format leaves out
// (Format.Uncovered says which in words). Those bytes can change without
// changing the verdict, so rye never serves them to an agent as part of
// an item it calls verified: the executor refuses a directive whose
// instructions are not covered, the MCP server's load an item with
// uncovered text, its search the metadata read from uncovered bytes.
type coverage struct {
	// Uncovered are the byte ranges [start, end) of the file that the
	// hash does not cover, in order; the signature line is in none.
	Uncovered [][2]int
}

// CoverageOf returns what the signature line found in src (a file of kind
// k) covers. For v2 that is everything; for the Rust-family eras all but
// what comes before the line (a #! line); for v1 and v1u what hashInputV1
// hashes: a tool without its #! line, a directive's <directive> element,
// a knowledge entry without its --- front matter. A file without a
// signature line is not covered at all.
func CoverageOf(found Found, k item.Kind, src []byte) coverage {
	if found.Line == nil {
		return coverage{Uncovered: [][2]int{{0, len(src)}}}
	}
	switch f := found.Line.Format; {
	case f == V2:
		return coverage{}
	case f.rustFamily():
		if found.Start > 0 {
			return coverage{Uncovered: [][2]int{{0, found.Start}}}
		}
		return coverage{}
	}
	// v1, v1u: hashInputV1's rules on the file without its line. The
	// markers it looks for contain no '\r', so they are where they are in
	// the normalised text; a lone '\r' ending a #! line makes the span
	// longer than the reference's, never shorter.
	start, end := found.Start, found.End
	view := make([]byte, 0, len(src)-(end-start))
	view = append(append(view, src[:start]...), src[end:]...)
	var spans [][2]int
	switch k {
	case item.Tool:
		if bytes.HasPrefix(view, []byte("#!")) {
			nl := bytes.IndexByte(view, '\n')
			if nl < 0 {
				nl = len(view) - 1
			}
			spans = append(spans, [2]int{0, nl + 1})
		}
	case item.Directive:
		s := string(view)
		from, to := directiveTag(s), strings.LastIndex(s, "</directive>")
		if from < 0 || to < 0 || to+len("</directive>") < from {
			spans = append(spans, [2]int{0, len(view)})
			break
		}
		to += len("</directive>")
		spans = append(spans, [2]int{0, from}, [2]int{to, len(view)})
	case item.Knowledge:
		if bytes.HasPrefix(view, []byte("---")) {
			i := bytes.Index(view[3:], []byte("---"))
			if i >= 0 {
				i += 3
			}
			spans = append(spans, [2]int{0, i + 3})
		}
	default:
		spans = append(spans, [2]int{0, len(view)})
	}
	// Back to the file's offsets: the line's bytes come back in.
	var c coverage
	for _, sp := range spans {
		a, b := sp[0], sp[1]
		switch {
		case a >= b:
		case b <= start:
			c.Uncovered = append(c.Uncovered, [2]int{a, b})
		case a >= start:
			c.Uncovered = append(c.Uncovered, [2]int{a + end - start, b + end - start})
		default:
			c.Uncovered = append(c.Uncovered, [2]int{a, start}, [2]int{end, b + end - start})
		}
	}
	return c
}

// FirstUncovered returns the offset of the first byte of src[from:to]
// that is not white space and that the signature does not cover, or -1
// when every such byte is covered: white space alone changes nothing an
// agent reads.
func (c coverage) FirstUncovered(src []byte, from, to int) int {
	for _, sp := range c.Uncovered {
		a, b := max(sp[0], from), min(sp[1], to, len(src))
		for i := a; i < b; i++ {
			switch src[i] {
			case ' ', '\t', '\n', '\r', '\v', '\f':
			default:
				return i
			}
		}
	}
	return -1
}
