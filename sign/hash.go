package sign

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/ryekit/rye/item"
)

// hashV2 is the v2 content hash: SHA-256 of the file's bytes with exactly
// the signature line (start..end, including its line ending) removed.
// Nothing is decoded or normalised, so everything else is covered: the
// shebang, preamble, body, front matter, line endings and a BOM.
func hashV2(src []byte, start, end int) string {
	h := sha256.New()
	h.Write(src[:start])
	h.Write(src[end:])
	return hex.EncodeToString(h.Sum(nil))
}

// hashAfterLine is the hash of the RYE OS Rust engine's formats (r1,
// ryeos; spec 6.3.2): SHA-256 of the exact bytes after the signature line's
// terminator (end), to the end of the file. A #! line before the signature
// line is not covered.
func hashAfterLine(src []byte, end int) string {
	sum := sha256.Sum256(src[end:])
	return hex.EncodeToString(sum[:])
}

// ErrNotUTF8 is returned for v1 hashing of a file that is not UTF-8 text
// (the reference reads files as text).
var ErrNotUTF8 = errors.New("not UTF-8 text")

// errNoDirective is returned for v1 hashing of a directive without a
// <directive ...> ... </directive> element.
var errNoDirective = errors.New("no <directive> element to hash (v1 signs the XML of the directive)")

// hashInputV1 returns the text the reference implementation hashes for a
// v1 signature (spec 2.2). The signature line (start..end, including its
// line ending, as Find gives it; start == end when there is none) is
// dropped, the rest is decoded as UTF-8 with "\r\n" and lone "\r" turned
// into "\n", and then:
//   - tool: a leading "#!" line is dropped too; the rest is hashed as is;
//   - directive: from the first "<directive...>" tag to the end of the last
//     "</directive>";
//   - knowledge: the rest; if it starts with "---", only what follows the
//     next "---", trimmed.
//
// The reference removes the first signature line; the position rule of
// spec 2.1, applied to the bytes as stored, decides which line that is, so
// that signer and verifier agree even on files with odd line ends.
func hashInputV1(kind item.Kind, src []byte, start, end int) (string, error) {
	if end > start {
		src = append(append(make([]byte, 0, len(src)-(end-start)), src[:start]...), src[end:]...)
	}
	if !utf8.Valid(src) {
		return "", ErrNotUTF8
	}
	text := normalizeNewlines(src)
	s := string(text)
	switch kind {
	case item.Tool:
		if strings.HasPrefix(s, "#!") {
			if i := strings.IndexByte(s, '\n'); i >= 0 {
				s = s[i+1:]
			} else {
				s = ""
			}
		}
		return s, nil
	case item.Directive:
		from := directiveTag(s)
		to := strings.LastIndex(s, "</directive>")
		if from < 0 || to < 0 {
			return "", errNoDirective
		}
		to += len("</directive>")
		if to < from {
			return "", nil // Python's slice of an empty range
		}
		return pyStrip(s[from:to]), nil
	case item.Knowledge:
		if strings.HasPrefix(s, "---") {
			// Python: rest[rest.find("---", 3) + 3:].strip(); find gives
			// -1 when there is no second "---".
			i := strings.Index(s[3:], "---")
			if i >= 0 {
				i += 3
			}
			return pyStrip(s[i+3:]), nil
		}
		return s, nil
	}
	return "", errors.New("unknown kind " + string(kind))
}

// directiveTag returns where the first complete "<directive...>" tag starts
// (what the reference's regular expression <directive[^>]*> finds), or -1.
// A "<directive" with no '>' after it cannot start a tag, and neither can
// a later one.
func directiveTag(s string) int {
	i := strings.Index(s, "<directive")
	if i < 0 || strings.IndexByte(s[i+len("<directive"):], '>') < 0 {
		return -1
	}
	return i
}

// hashV1 is the v1 content hash: SHA-256 hex of hashInputV1.
func hashV1(kind item.Kind, src []byte, start, end int) (string, error) {
	in, err := hashInputV1(kind, src, start, end)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(in))
	return hex.EncodeToString(sum[:]), nil
}

// normalizeNewlines turns "\r\n" and lone "\r" into "\n", as Python's
// universal-newline text mode does when the reference reads a file.
func normalizeNewlines(src []byte) []byte {
	if bytes.IndexByte(src, '\r') < 0 {
		return src
	}
	out := make([]byte, 0, len(src))
	for i := 0; i < len(src); i++ {
		if src[i] == '\r' {
			out = append(out, '\n')
			if i+1 < len(src) && src[i+1] == '\n' {
				i++
			}
			continue
		}
		out = append(out, src[i])
	}
	return out
}

// pyStrip trims what Python's str.strip() trims: the characters for which
// str.isspace() is true, which include the ASCII separators \x1c-\x1f that
// Go's unicode.IsSpace leaves alone.
func pyStrip(s string) string {
	return strings.TrimFunc(s, pyIsSpace)
}

func pyIsSpace(r rune) bool {
	switch {
	case r >= '\t' && r <= '\r', r >= 0x1c && r <= 0x20, r == 0x85, r == 0xa0, r == 0x1680,
		r >= 0x2000 && r <= 0x200a, r == 0x2028, r == 0x2029, r == 0x202f, r == 0x205f, r == 0x3000:
		return true
	}
	return false
}
