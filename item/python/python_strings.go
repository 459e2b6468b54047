package python

// Source encodings and string literal decoding.
//
// A Python file is UTF-8 unless a coding cookie on its first or second line
// (PEP 263) names another encoding. The tokenizer does not need to know:
// every encoding a cookie may name for real-world files is ASCII-compatible
// for the bytes that matter (quotes, brackets, backslashes, line breaks).
// Only the text of string literals is decoded, here. rye decodes UTF-8,
// Latin-1 and Windows-1252; a string holding non-ASCII bytes in any other
// encoding is reported as not a literal rather than guessed.

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

const (
	pyUTF8   = "utf-8"
	pyLatin1 = "iso-8859-1"
	pyCP1252 = "cp1252"
)

// pyEncoding returns the encoding named by the coding cookie of src (which
// starts after any BOM), normalised; UTF-8 when there is none. As in
// CPython, the second line is looked at only when the first is blank or a
// comment.
func pyEncoding(src []byte) string {
	line1, rest := pyCutLine(src)
	if enc := pyCodingCookie(line1); enc != "" {
		return pyNormalEncoding(enc)
	}
	if t := bytes.TrimLeft(line1, " \t\f"); len(t) > 0 && t[0] != '#' {
		return pyUTF8
	}
	line2, _ := pyCutLine(rest)
	if enc := pyCodingCookie(line2); enc != "" {
		return pyNormalEncoding(enc)
	}
	return pyUTF8
}

// pyCutLine splits src after its first line break. It is run for every
// string literal StringValue decodes (the cookie is looked up again each
// time), so it looks for the break with IndexByte rather than byte by byte.
func pyCutLine(src []byte) (line, rest []byte) {
	i := bytes.IndexByte(src, '\n')
	end := i
	if end < 0 {
		end = len(src)
	}
	if j := bytes.IndexByte(src[:end], '\r'); j >= 0 {
		i = j
	}
	if i < 0 {
		return src, nil
	}
	return src[:i], src[pySkipNewline(src, i):]
}

// pyCodingCookie returns the encoding name of a comment line matching
// ^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+), "" when it does not match.
// It works on the bytes (a string is made only of a name found): like
// pyCutLine it runs once for every string literal StringValue decodes.
func pyCodingCookie(line []byte) string {
	s := bytes.TrimLeft(line, " \t\f")
	if len(s) == 0 || s[0] != '#' {
		return ""
	}
	for {
		i := bytes.Index(s, []byte("coding"))
		if i < 0 {
			return ""
		}
		s = s[i+len("coding"):]
		if len(s) > 0 && (s[0] == ':' || s[0] == '=') {
			break
		}
	}
	s = bytes.TrimLeft(s[1:], " \t")
	n := 0
	for n < len(s) && (pyIdentByte[s[n]] && s[n] < 0x80 || s[n] == '-' || s[n] == '.') {
		n++
	}
	return string(s[:n])
}

// pyNormalEncoding maps the aliases of the encodings rye decodes to one
// name; other names are returned lower-cased.
func pyNormalEncoding(name string) string {
	n := strings.ReplaceAll(strings.ToLower(name), "_", "-")
	switch {
	case n == "utf-8" || strings.HasPrefix(n, "utf-8-") || n == "utf8" || n == "u8" ||
		n == "ascii" || n == "us-ascii":
		return pyUTF8 // ASCII is a subset; CPython rejects the file when it is not
	case n == "latin-1" || n == "iso-8859-1" || n == "iso-latin-1" || n == "latin1" ||
		n == "latin" || n == "l1" || n == "iso8859-1" || n == "8859" || n == "cp819" ||
		strings.HasPrefix(n, "latin-1-") || strings.HasPrefix(n, "iso-8859-1-") || strings.HasPrefix(n, "iso-latin-1-"):
		return pyLatin1
	case n == "cp1252" || n == "windows-1252":
		return pyCP1252
	}
	return n
}

// decodeString returns the value of a (non-f) string literal, given its
// source text, or why it cannot be decoded. A value without escapes is a
// substring of raw: no copy.
func (r *pyReader) decodeString(raw string, flags uint8) (value, why string) {
	q := strings.IndexAny(raw, `'"`) // past the prefix
	ql := 1
	if len(raw)-q >= 6 && raw[q+1] == raw[q] && raw[q+2] == raw[q] {
		ql = 3
	}
	bytesLit := flags&pyBytes != 0
	text, why := r.sourceText(raw[q+ql:len(raw)-ql], bytesLit)
	if why != "" {
		return "", why
	}
	if flags&pyRaw != 0 {
		return pyNormalizeNewlines(text), ""
	}
	return pyUnescape(text, bytesLit)
}

// sourceText converts the body of a string literal from the source
// encoding to UTF-8.
func (r *pyReader) sourceText(body string, bytesLit bool) (string, string) {
	ascii := true
	for i := 0; i < len(body); i++ {
		if body[i] >= 0x80 {
			ascii = false
			break
		}
	}
	switch {
	case ascii:
		return body, ""
	case bytesLit:
		return "", "bytes can only contain ASCII literal characters"
	case r.enc == pyUTF8:
		if !utf8.ValidString(body) {
			return "", "the string is not valid UTF-8 and no coding cookie names another encoding"
		}
		return body, ""
	case r.enc == pyLatin1:
		b := make([]byte, 0, len(body)*2)
		for i := 0; i < len(body); i++ {
			b = utf8.AppendRune(b, rune(body[i]))
		}
		return string(b), ""
	case r.enc == pyCP1252:
		b := make([]byte, 0, len(body)*2)
		for i := 0; i < len(body); i++ {
			c := body[i]
			ru := rune(c)
			if 0x80 <= c && c < 0xA0 {
				if ru = pyCp1252High[c-0x80]; ru == 0 {
					return "", "the string holds a byte that cp1252 does not define"
				}
			}
			b = utf8.AppendRune(b, ru)
		}
		return string(b), ""
	}
	return "", "the string is in the file's encoding " + r.enc + ", which rye does not decode"
}

// pyCp1252High maps the bytes 0x80-0x9F of Windows-1252 (0: undefined).
var pyCp1252High = [32]rune{
	0x20AC, 0, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
	0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0, 0x017D, 0,
	0, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
	0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0, 0x017E, 0x0178,
}

// pyNormalizeNewlines turns "\r\n" and "\r" into "\n", as Python does
// when it reads source.
func pyNormalizeNewlines(s string) string {
	if strings.IndexByte(s, '\r') < 0 {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

// pyUnescape decodes the escape sequences of a non-raw string body, as
// Python does: \\ \' \" \a \b \f \n \r \t \v, octal \ooo, \xhh, and for
// str \uXXXX and \UXXXXXXXX; a backslash before a line break removes
// both; other backslashes are kept with the next character. \N{NAME} is
// kept as written: the Unicode name table is not in Go's standard library.
// Code points that UTF-8 cannot hold (lone surrogates) become U+FFFD.
func pyUnescape(s string, bytesLit bool) (string, string) {
	if strings.IndexByte(s, '\\') < 0 {
		return pyNormalizeNewlines(s), ""
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c == '\r' {
			b = append(b, '\n')
			i++
			if i < len(s) && s[i] == '\n' {
				i++
			}
			continue
		}
		if c != '\\' || i+1 >= len(s) {
			b = append(b, c)
			i++
			continue
		}
		n, out, why := pyEscape(s[i:], bytesLit, b)
		if why != "" {
			return "", why
		}
		b, i = out, i+n
	}
	return string(b), ""
}

// pyEscape decodes the escape sequence at the start of s (s[0] is a
// backslash, len(s) >= 2), appending it to b; n is its length.
func pyEscape(s string, bytesLit bool, b []byte) (n int, out []byte, why string) {
	switch e := s[1]; e {
	case '\n':
		return 2, b, ""
	case '\r':
		if len(s) > 2 && s[2] == '\n' {
			return 3, b, ""
		}
		return 2, b, ""
	case '\\', '\'', '"':
		return 2, append(b, e), ""
	case 'a':
		return 2, append(b, '\a'), ""
	case 'b':
		return 2, append(b, '\b'), ""
	case 'f':
		return 2, append(b, '\f'), ""
	case 'n':
		return 2, append(b, '\n'), ""
	case 'r':
		return 2, append(b, '\r'), ""
	case 't':
		return 2, append(b, '\t'), ""
	case 'v':
		return 2, append(b, '\v'), ""
	case '0', '1', '2', '3', '4', '5', '6', '7':
		n, v := 1, 0
		for n < 4 && n < len(s) && '0' <= s[n] && s[n] <= '7' {
			v = v*8 + int(s[n]-'0')
			n++
		}
		return n, pyAppendCode(b, v, bytesLit), ""
	case 'x':
		return pyHexEscape(s, 2, bytesLit, b)
	case 'u':
		if !bytesLit {
			return pyHexEscape(s, 4, bytesLit, b)
		}
	case 'U':
		if !bytesLit {
			return pyHexEscape(s, 8, bytesLit, b)
		}
	case 'N':
		if !bytesLit {
			end := strings.IndexByte(s, '}')
			if len(s) < 3 || s[2] != '{' || end < 4 {
				return 0, nil, "a malformed \\N character escape"
			}
			return end + 1, append(b, s[:end+1]...), ""
		}
	}
	return 2, append(b, '\\', s[1]), "" // an unknown escape keeps its backslash
}

// pyHexEscape decodes \x, \u or \U followed by digits hex digits.
func pyHexEscape(s string, digits int, bytesLit bool, b []byte) (int, []byte, string) {
	if len(s) < 2+digits {
		return 0, nil, "a truncated \\" + s[1:2] + " escape"
	}
	v := 0
	for _, c := range []byte(s[2 : 2+digits]) {
		if !pyIsHexDigit(c) {
			return 0, nil, "a truncated \\" + s[1:2] + " escape"
		}
		v = v*16 + int(pyHexValue(c))
	}
	if v > utf8.MaxRune {
		return 0, nil, "an illegal Unicode character in a \\U escape"
	}
	return 2 + digits, pyAppendCode(b, v, bytesLit), ""
}

func pyHexValue(c byte) byte {
	if pyIsDigit(c) {
		return c - '0'
	}
	return c | 0x20 - 'a' + 10
}

// pyAppendCode appends an escaped value: a byte in bytes (octal escapes
// above 0o377 wrap, as in CPython), a code point in str.
func pyAppendCode(b []byte, v int, bytesLit bool) []byte {
	if bytesLit {
		return append(b, byte(v))
	}
	return utf8.AppendRune(b, rune(v))
}
