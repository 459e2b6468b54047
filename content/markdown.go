package content

import (
	"bytes"
	"strings"

	"github.com/ryekit/rye/item"
)

// The parts of a Markdown item that the rules tell apart. A reviewer
// reads a Markdown item rendered (on a forge, in a preview) as often as
// raw: what rendering hides (HTML comments, hidden HTML elements) is where
// an instruction meant for the model and not for the reviewer goes, and a
// fenced block is code the agent may run, not prose.

// place is the part of a file an offset is in.
type place uint8

const (
	placeProse   place = iota // Markdown text a reader sees
	placeCode                 // a tool's code, a fenced code block
	placeComment              // an HTML comment (hidden when rendered)
	placeMeta                 // the metadata block or file (YAML, TOML, XML, a comment header)
	placeSig                  // the signature line
)

func (pl place) String() string {
	return [...]string{"text", "code", "HTML comment", "metadata", "signature line"}[pl]
}

// span is [start, end) of a file, in a place.
type span struct {
	start, end int
	place      place
}

// codeBlock is a fenced code block of a Markdown item.
type codeBlock struct {
	start, end         int // the whole block, fences included
	bodyStart, bodyEnd int // its content
	info               string
	meta               bool // the item's metadata block
}

// markdown is the layout of a Markdown item.
type markdown struct {
	blocks   []codeBlock
	comments []span // HTML comments outside code blocks, "<!--" to "-->"
	// front is the YAML front matter [start, end), end 0 when none.
	frontStart, frontEnd int
	spans                []span // every non-prose part, in order
}

// markdown reads the layout of a Markdown item, once.
func (p *parsed) markdown() *markdown {
	p.mdOnce.Do(func() { p.md = scanMarkdown(p.src, p.sigStart, p.sigEnd, string(p.kind)) })
	return p.md
}

// metaInfo is the info string of the metadata fence of a kind.
func metaInfo(kind string) string {
	if kind == "directive" {
		return "xml"
	}
	return "yaml"
}

// scanMarkdown reads the layout of src, a Markdown item of kind kindName
// whose signature line is [sigStart, sigEnd). Fences are tracked the
// CommonMark way (item.CodeBlocks): inside a block opened by N backticks
// or tildes nothing counts until a line of at least N of them.
func scanMarkdown(src []byte, sigStart, sigEnd int, kindName string) *markdown {
	md := &markdown{}
	off := 0
	if sigEnd > 0 && sigStart == 0 {
		off = sigEnd
	}
	// Front matter: "---" on the first line (after the signature line).
	if next := lineEndAt(src, off); string(bytes.TrimRight(src[off:next], " \t\r\n")) == "---" && kindName != "directive" {
		for o := next; o < len(src); {
			n := lineEndAt(src, o)
			if string(bytes.TrimRight(src[o:n], " \t\r\n")) == "---" {
				md.frontStart, md.frontEnd = off, n
				break
			}
			o = n
		}
	}
	metaSeen := md.frontEnd > 0
	var open struct {
		char  byte
		count int
		b     codeBlock
	}
	proseFrom := off
	for o := off; o < len(src); {
		next := lineEndAt(src, o)
		if o < md.frontEnd {
			o = next
			proseFrom = md.frontEnd
			continue
		}
		line := bytes.TrimRight(src[o:next], " \t\r\n")
		indent := 0
		for indent < len(line) && indent < 4 && line[indent] == ' ' {
			indent++
		}
		if open.count == 0 {
			if indent < 4 {
				if c, n := item.FenceRun(line[indent:]); n >= 3 && !(c == '`' && bytes.IndexByte(line[indent+n:], '`') >= 0) {
					md.scanProse(src, proseFrom, o)
					open.char, open.count = c, n
					info := strings.TrimSpace(string(line[indent+n:]))
					if i := strings.IndexAny(info, " \t{"); i >= 0 {
						info = info[:i]
					}
					open.b = codeBlock{start: o, bodyStart: next, info: strings.ToLower(info)}
				}
			}
		} else if c, n := item.FenceRun(line[indent:]); indent < 4 && c == open.char && n >= open.count && n == len(line)-indent {
			open.b.bodyEnd, open.b.end = o, next
			if !metaSeen && open.b.info == metaInfo(kindName) {
				open.b.meta, metaSeen = true, true
			}
			md.blocks = append(md.blocks, open.b)
			open.count = 0
			proseFrom = next
		}
		o = next
	}
	if open.count > 0 {
		open.b.bodyEnd, open.b.end = len(src), len(src)
		md.blocks = append(md.blocks, open.b)
	} else {
		md.scanProse(src, proseFrom, len(src))
	}
	if sigEnd > sigStart {
		md.spans = append(md.spans, span{sigStart, sigEnd, placeSig})
	}
	if md.frontEnd > 0 {
		md.spans = append(md.spans, span{md.frontStart, md.frontEnd, placeMeta})
	}
	for _, b := range md.blocks {
		pl := placeCode
		if b.meta {
			pl = placeMeta
		}
		md.spans = append(md.spans, span{b.start, b.end, pl})
	}
	md.spans = append(md.spans, md.comments...)
	sortSpans(md.spans)
	return md
}

// scanProse finds the HTML comments of the prose [from, to).
func (md *markdown) scanProse(src []byte, from, to int) {
	for o := from; o < to; {
		i := bytes.Index(src[o:to], []byte("<!--"))
		if i < 0 {
			return
		}
		start := o + i
		end := to
		if j := bytes.Index(src[start+4:to], []byte("-->")); j >= 0 {
			end = start + 4 + j + 3
		}
		md.comments = append(md.comments, span{start, end, placeComment})
		o = end
	}
}

// lineEndAt is the offset just past the line that holds off.
func lineEndAt(src []byte, off int) int {
	if i := bytes.IndexByte(src[off:], '\n'); i >= 0 {
		return off + i + 1
	}
	return len(src)
}

func sortSpans(s []span) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j].start < s[j-1].start; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// placeIn returns the place of off among sorted spans (def outside them).
func placeIn(spans []span, off int, def place) place {
	lo, hi := 0, len(spans)
	for lo < hi {
		m := (lo + hi) / 2
		if spans[m].start <= off {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo > 0 && off < spans[lo-1].end {
		return spans[lo-1].place
	}
	return def
}

// inlineCode reports whether [start, end) of line is inside a `code
// span` of it.
func inlineCode(line string, start int) bool {
	in := false
	ticks := 0
	for i := 0; i < len(line) && i < start; {
		if line[i] != '`' {
			i++
			continue
		}
		n := 0
		for i < len(line) && line[i] == '`' {
			n++
			i++
		}
		switch {
		case !in:
			in, ticks = true, n
		case n == ticks:
			in = false
		}
	}
	if !in {
		return false
	}
	// An open span counts only if it closes later on the line.
	rest := line[start:]
	return strings.Contains(rest, strings.Repeat("`", ticks))
}
