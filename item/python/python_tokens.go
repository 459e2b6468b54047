package python

import (
	"strings"

	"github.com/ryekit/rye/item/syntax"
)

// The Python tokenizer.
//
// Tool metadata in a .py file is a handful of module-level assignments, but
// finding them safely needs the whole file tokenized: a "=" or a newline
// inside a string, a bracket or an f-string replacement field is not a
// statement boundary, and a line at column 0 may still be the continuation
// of a bracketed expression or of a triple-quoted string. So the scanner
// below knows all of Python 3 lexically (3.8 to 3.13, including PEP 701
// f-strings where a replacement field may hold any expression, strings with
// the same quote and nested f-strings) and tracks brackets and indentation
// exactly as CPython's tokenizer does. It only reports positions and kinds:
// decoding string contents and evaluating values is done by the literal
// evaluator (python.go) for the few statements that need it.
//
// The scanner is deliberately lenient about things CPython rejects later
// (in its parser or compiler): it errs only where CPython's tokenizer does
// and where continuing would make statement boundaries unreliable:
// unterminated strings, unbalanced brackets, inconsistent indentation and
// characters that cannot start any token.

// pyKind is the kind of a token.
type pyKind uint8

const (
	pyEOF     pyKind = iota
	pyNewline        // the end of a logical line
	pyName           // an identifier or keyword
	pyNumber
	pyString // a whole string literal, prefix and quotes included; an f-string is one token
	pyOp     // an operator or delimiter
)

// String prefix flags of a pyString token.
const (
	pyRaw      uint8 = 1 << iota // r: backslashes are kept
	pyBytes                      // b
	pyFormat                     // f: an f-string
	pyTemplate                   // t: a template string (Python 3.14), never a literal
)

// pyToken is one token: its kind and where it is in the file.
type pyToken struct {
	kind  pyKind
	flags uint8 // string prefix flags
	start int   // offset of the first byte
	end   int   // offset just past the last byte
}

// pyMaxNesting bounds bracket and f-string nesting, like CPython's MAXLEVEL
// (200 parentheses) and MAXFSTRINGLEVEL (150): deeper input is an error,
// which also bounds the evaluator's recursion.
const pyMaxNesting = 200

// pyScanner splits Python source into tokens, one at a time.
type pyScanner struct {
	src       []byte
	pos       int
	lineStart bool  // the next token starts a logical line: measure its indentation
	indents   []int // indentation columns of the open blocks (tab stops every 8)
	altIndent []int // the same with tab stops every 1, to detect ambiguous tabs
	brackets  []int // offsets of the open brackets, innermost last
	// lines turns offsets into positions, for errors only: Tokens
	// passes nil and the table is built when an error needs it, so that
	// a file that tokenizes is not scanned for its lines (its readers
	// have their own table).
	lines *syntax.LineIndex
	// comment, when set, is told of every comment [start, end): Tokens
	// keeps them; the metadata reader has no use for them.
	comment func(start, end int)
}

func newPyScanner(src []byte, start int, lines *syntax.LineIndex) *pyScanner {
	return &pyScanner{
		src:       src,
		pos:       start,
		lineStart: true,
		indents:   make([]int, 1, 16),
		altIndent: make([]int, 1, 16),
		lines:     lines,
	}
}

// level is the indentation depth of the current logical line: 0 for a
// statement at module level.
func (s *pyScanner) level() int { return len(s.indents) - 1 }

func (s *pyScanner) errAt(off int, format string, args ...any) *syntax.Error {
	return syntax.Errorf(s.posAt(off), format, args...)
}

// posAt is the position of offset off, from the line table (built on
// first use).
func (s *pyScanner) posAt(off int) syntax.Pos {
	if s.lines == nil {
		s.lines = syntax.NewLineIndex(s.src)
	}
	return s.lines.Pos(off)
}

// next returns the next token. Comments and blank lines produce nothing;
// every logical line ends with a pyNewline token, even at the end of a file
// without a final newline, and pyEOF follows the last one.
func (s *pyScanner) next() (pyToken, *syntax.Error) {
	src := s.src
	for {
		if s.lineStart && len(s.brackets) == 0 {
			if err := s.indent(); err != nil {
				return pyToken{}, err
			}
		}
		s.skipSpace()
		if s.pos >= len(src) {
			return s.eof()
		}
		c := src[s.pos]
		switch {
		case c == '#':
			end := pySkipComment(src, s.pos)
			if s.comment != nil {
				s.comment(s.pos, end)
			}
			s.pos = end
		case c == '\n' || c == '\r':
			start := s.pos
			s.pos = pySkipNewline(src, s.pos)
			if len(s.brackets) == 0 {
				s.lineStart = true
				return pyToken{kind: pyNewline, start: start, end: s.pos}, nil
			}
		case c == '\\':
			if s.pos+1 < len(src) && src[s.pos+1] != '\n' && src[s.pos+1] != '\r' {
				return pyToken{}, s.errAt(s.pos, "unexpected character after line continuation character")
			}
			if s.pos = pySkipNewline(src, s.pos+1); s.pos >= len(src) {
				return pyToken{}, s.errAt(s.pos, "unexpected end of file after a line continuation character")
			}
		case pyIdentByte[c] && !pyIsDigit(c):
			s.lineStart = false
			return s.nameOrString()
		case pyIsDigit(c) || c == '.' && s.pos+1 < len(src) && pyIsDigit(src[s.pos+1]):
			s.lineStart = false
			return s.number(), nil
		case c == '\'' || c == '"':
			s.lineStart = false
			return s.stringToken(s.pos, s.pos, 0)
		default:
			s.lineStart = false
			return s.operator()
		}
	}
}

// eof ends the last logical line, then reports the end of the file, or an
// error for brackets still open.
func (s *pyScanner) eof() (pyToken, *syntax.Error) {
	n := len(s.src)
	if len(s.brackets) > 0 {
		open := s.brackets[len(s.brackets)-1]
		return pyToken{}, s.errAt(open, "'%c' was never closed", s.src[open])
	}
	if !s.lineStart {
		s.lineStart = true
		return pyToken{kind: pyNewline, start: n, end: n}, nil
	}
	return pyToken{kind: pyEOF, start: n, end: n}, nil
}

// indent measures the indentation of a line that may start a logical line
// and updates the block stack as CPython does. Blank and comment-only lines
// are skipped whole: they neither open nor close blocks.
func (s *pyScanner) indent() *syntax.Error {
	src := s.src
	for {
		col, alt, i := 0, 0, s.pos
	measure:
		for ; i < len(src); i++ {
			switch src[i] {
			case ' ':
				col++
				alt++
			case '\t':
				col = (col/8 + 1) * 8
				alt++
			case '\f':
				col, alt = 0, 0
			default:
				break measure
			}
		}
		s.pos = i
		if i >= len(src) {
			return nil
		}
		if c := src[i]; c == '#' || c == '\n' || c == '\r' {
			end := pySkipComment(src, i)
			if s.comment != nil && end > i {
				s.comment(i, end)
			}
			s.pos = pySkipNewline(src, end)
			continue
		}
		s.lineStart = false
		return s.setIndent(col, alt)
	}
}

// setIndent opens or closes blocks for a logical line indented by col
// (alt: the same with tab stops every 1).
func (s *pyScanner) setIndent(col, alt int) *syntax.Error {
	top := len(s.indents) - 1
	switch {
	case col == s.indents[top]:
		if alt != s.altIndent[top] {
			return s.errAt(s.pos, "inconsistent use of tabs and spaces in indentation")
		}
	case col > s.indents[top]:
		if alt <= s.altIndent[top] {
			return s.errAt(s.pos, "inconsistent use of tabs and spaces in indentation")
		}
		s.indents = append(s.indents, col)
		s.altIndent = append(s.altIndent, alt)
	default:
		for top > 0 && col < s.indents[top] {
			top--
		}
		s.indents, s.altIndent = s.indents[:top+1], s.altIndent[:top+1]
		if col != s.indents[top] {
			return s.errAt(s.pos, "unindent does not match any outer indentation level")
		}
		if alt != s.altIndent[top] {
			return s.errAt(s.pos, "inconsistent use of tabs and spaces in indentation")
		}
	}
	return nil
}

func (s *pyScanner) skipSpace() {
	for s.pos < len(s.src) {
		switch s.src[s.pos] {
		case ' ', '\t', '\f':
			s.pos++
		default:
			return
		}
	}
}

// pySkipComment returns the offset of the end of the comment at i (the line
// break or the end of the file); i itself when there is no comment.
func pySkipComment(src []byte, i int) int {
	if i >= len(src) || src[i] != '#' {
		return i
	}
	for i < len(src) && src[i] != '\n' && src[i] != '\r' {
		i++
	}
	return i
}

// pySkipNewline returns the offset past the line break at i ("\n", "\r\n" or
// a lone "\r", which CPython also reads as a line break); i itself when
// there is none.
func pySkipNewline(src []byte, i int) int {
	if i < len(src) && src[i] == '\r' {
		i++
	}
	if i < len(src) && src[i] == '\n' {
		i++
	}
	return i
}

// pyIdentByte tells which bytes may appear in an identifier. Bytes >= 0x80
// are accepted as they come: non-ASCII identifiers are legal Python and
// their exact validity does not matter for finding statements.
var pyIdentByte = func() (t [256]bool) {
	for c := range t {
		t[c] = c == '_' || c >= 0x80 || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || pyIsDigit(byte(c))
	}
	return t
}()

func pyIsDigit(c byte) bool { return '0' <= c && c <= '9' }

// nameOrString scans an identifier, or a string literal when the
// identifier is a string prefix directly followed by a quote.
func (s *pyScanner) nameOrString() (pyToken, *syntax.Error) {
	src, start := s.src, s.pos
	i := start
	for i < len(src) && pyIdentByte[src[i]] {
		i++
	}
	if i < len(src) && (src[i] == '\'' || src[i] == '"') {
		if flags, ok := pyStringPrefix(src[start:i]); ok {
			return s.stringToken(start, i, flags)
		}
	}
	s.pos = i
	return pyToken{kind: pyName, start: start, end: i}, nil
}

// pyStringPrefix reads a string prefix (any case): "", r, u, b, f, t and
// the two-letter combinations of r with b, f or t.
func pyStringPrefix(p []byte) (flags uint8, ok bool) {
	if len(p) > 2 {
		return 0, false
	}
	for _, c := range p {
		var f uint8
		switch c | 0x20 {
		case 'r':
			f = pyRaw
		case 'b':
			f = pyBytes
		case 'f':
			f = pyFormat
		case 't':
			f = pyTemplate
		case 'u':
			if len(p) > 1 {
				return 0, false
			}
		default:
			return 0, false
		}
		if flags&f != 0 {
			return 0, false // "rr", "bb"...
		}
		flags |= f
	}
	if len(p) == 2 && flags&pyRaw == 0 {
		return 0, false // "bf", "fb"...
	}
	return flags, true
}

// stringToken scans the string literal whose prefix starts at start and
// whose opening quote is at q.
func (s *pyScanner) stringToken(start, q int, flags uint8) (pyToken, *syntax.Error) {
	end, err := s.scanString(start, q, flags, 0)
	if err != nil {
		return pyToken{}, err
	}
	s.pos = end
	return pyToken{kind: pyString, flags: flags, start: start, end: end}, nil
}

// scanString returns the offset just past the string literal whose prefix
// starts at start and whose opening quote is at q. depth counts the
// enclosing f-string replacement fields.
func (s *pyScanner) scanString(start, q int, flags uint8, depth int) (int, *syntax.Error) {
	src := s.src
	quote := src[q]
	i := q + 1
	triple := i+1 < len(src) && src[i] == quote && src[i+1] == quote
	if triple {
		i += 2
	}
	if flags&(pyFormat|pyTemplate) != 0 {
		f := &pyFString{start: start, quote: quote, triple: triple, raw: flags&pyRaw != 0}
		return s.fstringText(f, i, depth, false)
	}
	for i < len(src) {
		switch c := src[i]; {
		case c == quote:
			if !triple {
				return i + 1, nil
			}
			if i+2 < len(src) && src[i+1] == quote && src[i+2] == quote {
				return i + 3, nil
			}
			i++
		case c == '\\':
			// Even in a raw string a backslash keeps the next character
			// (a quote, a line break) from ending the literal.
			i = pySkipEscaped(src, i)
		case (c == '\n' || c == '\r') && !triple:
			return 0, s.unterminated(start, false)
		default:
			i++
		}
	}
	return 0, s.unterminated(start, triple)
}

// pySkipEscaped returns the offset past the backslash at i and the character
// it escapes (a "\r\n" line break counts as one character).
func pySkipEscaped(src []byte, i int) int {
	if i+2 < len(src) && src[i+1] == '\r' && src[i+2] == '\n' {
		return i + 3
	}
	return min(i+2, len(src))
}

func (s *pyScanner) unterminated(start int, triple bool) *syntax.Error {
	if triple {
		return s.errAt(start, "unterminated triple-quoted string literal")
	}
	return s.errAt(start, "unterminated string literal")
}

// pyFString describes the f-string (or t-string) being scanned.
type pyFString struct {
	start  int // offset of its prefix, for errors
	quote  byte
	triple bool
	raw    bool
}

// closes reports whether the quote at i ends the f-string, and where the
// string then ends.
func (f *pyFString) closes(src []byte, i int) (int, bool) {
	if !f.triple {
		return i + 1, true
	}
	if i+2 < len(src) && src[i+1] == f.quote && src[i+2] == f.quote {
		return i + 3, true
	}
	return 0, false
}

// fstringText scans literal text of an f-string from i: the body (spec
// false), up to and past the closing quote, or the format spec of a
// replacement field (spec true), up to and past the "}" that ends the
// field. "{{" and "}}" are literal braces in the body; in a format spec
// every "{" opens a nested field, as in CPython 3.12.
func (s *pyScanner) fstringText(f *pyFString, i, depth int, spec bool) (int, *syntax.Error) {
	src := s.src
	for i < len(src) {
		switch c := src[i]; c {
		case '\\':
			i = f.skipBackslash(src, i)
		case f.quote:
			end, ok := f.closes(src, i)
			if !ok {
				i++
				continue
			}
			if spec {
				return 0, s.errAt(f.start, "f-string: expecting '}'")
			}
			return end, nil
		case '\n', '\r':
			if !f.triple && !spec { // CPython 3.12+ lets a format spec span lines
				return 0, s.unterminated(f.start, false)
			}
			i++
		case '{':
			if !spec && i+1 < len(src) && src[i+1] == '{' {
				i += 2
				continue
			}
			var err *syntax.Error
			if i, err = s.fstringField(f, i+1, depth+1); err != nil {
				return 0, err
			}
		case '}':
			if spec {
				return i + 1, nil
			}
			if i+1 < len(src) && src[i+1] == '}' {
				i++
			}
			i++ // a lone "}" is a CPython syntax error; it cannot end anything
		default:
			i++
		}
	}
	return 0, s.unterminated(f.start, f.triple)
}

// skipBackslash returns the offset past an escape in f-string text. A brace
// after a backslash keeps its meaning; \N{NAME} is skipped whole so that
// its braces are not taken for a replacement field.
func (f *pyFString) skipBackslash(src []byte, i int) int {
	if i+1 < len(src) {
		switch src[i+1] {
		case '{', '}':
			return i + 1
		case 'N':
			if !f.raw && i+2 < len(src) && src[i+2] == '{' {
				j := i + 3
				for j < len(src) && src[j] != '}' && src[j] != f.quote && src[j] != '\n' && src[j] != '\r' {
					j++
				}
				if j < len(src) && src[j] == '}' {
					j++
				}
				return j
			}
		}
	}
	return pySkipEscaped(src, i)
}

// fstringField scans a replacement field from i (just past its "{") up to
// and past its closing "}". The expression may hold anything (PEP 701):
// brackets, strings with any quote, nested f-strings, comments and line
// breaks; a ":" outside brackets starts the format spec.
func (s *pyScanner) fstringField(f *pyFString, i, depth int) (int, *syntax.Error) {
	if depth > pyMaxNesting {
		return 0, s.errAt(f.start, "f-string nested too deeply")
	}
	src := s.src
	brackets := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == '\'' || c == '"':
			end, err := s.scanString(i, i, 0, depth)
			if err != nil {
				return 0, err
			}
			i = end
		case pyIdentByte[c] && !pyIsDigit(c):
			j := i
			for j < len(src) && pyIdentByte[src[j]] {
				j++
			}
			if j < len(src) && (src[j] == '\'' || src[j] == '"') {
				if flags, ok := pyStringPrefix(src[i:j]); ok {
					end, err := s.scanString(i, j, flags, depth)
					if err != nil {
						return 0, err
					}
					j = end
				}
			}
			i = j
		case c == '#':
			i = pySkipComment(src, i)
		case c == '(' || c == '[' || c == '{':
			brackets++
			i++
		case c == ')' || c == ']':
			brackets = max(brackets-1, 0)
			i++
		case c == '}':
			if brackets == 0 {
				return i + 1, nil
			}
			brackets--
			i++
		case c == ':' && brackets == 0:
			return s.fstringText(f, i+1, depth, true)
		case c == '\\':
			i = pySkipEscaped(src, i)
		default:
			i++
		}
	}
	return 0, s.unterminated(f.start, f.triple)
}

// number scans a numeric literal: decimal, hexadecimal, octal or binary
// integers, floats with fraction and exponent, and imaginary numbers, all
// with underscores. Its validity is checked when it is evaluated.
func (s *pyScanner) number() pyToken {
	src, start := s.src, s.pos
	i := start
	if src[i] == '0' && i+1 < len(src) && strings.IndexByte("xXoObB", src[i+1]) >= 0 {
		i += 2
		for i < len(src) && (pyIsHexDigit(src[i]) || src[i] == '_') {
			i++
		}
	} else {
		i = pySkipDigits(src, i)
		if i < len(src) && src[i] == '.' {
			i = pySkipDigits(src, i+1)
		}
		if i < len(src) && src[i]|0x20 == 'e' {
			j := i + 1
			if j < len(src) && (src[j] == '+' || src[j] == '-') {
				j++
			}
			if j < len(src) && pyIsDigit(src[j]) {
				i = pySkipDigits(src, j)
			}
		}
	}
	if i < len(src) && src[i]|0x20 == 'j' {
		i++
	}
	s.pos = i
	return pyToken{kind: pyNumber, start: start, end: i}
}

func pySkipDigits(src []byte, i int) int {
	for i < len(src) && (pyIsDigit(src[i]) || src[i] == '_') {
		i++
	}
	return i
}

func pyIsHexDigit(c byte) bool { return pyIsDigit(c) || 'a' <= c|0x20 && c|0x20 <= 'f' }

// operator scans an operator or delimiter and keeps the bracket stack.
func (s *pyScanner) operator() (pyToken, *syntax.Error) {
	start := s.pos
	c := s.src[start]
	n := pyOperatorLen(s.src[start:])
	if n == 0 {
		if c == 0 {
			return pyToken{}, s.errAt(start, "source code cannot contain null bytes")
		}
		return pyToken{}, s.errAt(start, "invalid character %q", rune(c))
	}
	switch c {
	case '(', '[', '{':
		if len(s.brackets) >= pyMaxNesting {
			return pyToken{}, s.errAt(start, "too many nested parentheses")
		}
		s.brackets = append(s.brackets, start)
	case ')', ']', '}':
		if len(s.brackets) == 0 {
			return pyToken{}, s.errAt(start, "unmatched '%c'", c)
		}
		open := s.brackets[len(s.brackets)-1]
		if pyClosing(s.src[open]) != c {
			return pyToken{}, s.errAt(start, "closing parenthesis '%c' does not match opening parenthesis '%c' at %s",
				c, s.src[open], s.posAt(open))
		}
		s.brackets = s.brackets[:len(s.brackets)-1]
	}
	s.pos += n
	return pyToken{kind: pyOp, start: start, end: s.pos}, nil
}

func pyClosing(open byte) byte {
	switch open {
	case '(':
		return ')'
	case '[':
		return ']'
	}
	return '}'
}

// pyOperatorLen returns the length of the operator at the start of b, 0 if
// b does not start with one.
func pyOperatorLen(b []byte) int {
	next := func(i int) byte {
		if i < len(b) {
			return b[i]
		}
		return 0
	}
	switch c := b[0]; c {
	case '(', ')', '[', ']', '{', '}', ',', ';', '~':
		return 1
	case '.':
		if next(1) == '.' && next(2) == '.' {
			return 3
		}
		return 1
	case '-':
		if next(1) == '>' || next(1) == '=' {
			return 2
		}
		return 1
	case ':', '+', '%', '&', '|', '^', '@', '=', '!':
		if next(1) == '=' {
			return 2
		}
		return 1
	case '*', '/', '<', '>':
		n := 1
		if next(1) == c {
			n = 2 // ** // << >>
		}
		if next(n) == '=' {
			n++
		}
		return n
	}
	return 0
}
