package search

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// tokenize lower-cases text and splits it into words of letters and digits,
// so that ids ("file-system/write"), snake_case names and prose all break
// into the words a user types. It appends to dst to avoid allocations.
func tokenize(dst []string, text string) []string {
	start := -1
	for i := 0; i < len(text); {
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(text[i:])
		}
		word := r < utf8.RuneSelf && (('a' <= r && r <= 'z') || ('0' <= r && r <= '9') || ('A' <= r && r <= 'Z'))
		if !word && r >= utf8.RuneSelf {
			word = unicode.IsLetter(r) || unicode.IsDigit(r)
		}
		if word && start < 0 {
			start = i
		}
		if !word && start >= 0 {
			dst = append(dst, strings.ToLower(text[start:i]))
			start = -1
		}
		i += size
	}
	if start >= 0 {
		dst = append(dst, strings.ToLower(text[start:]))
	}
	return dst
}
