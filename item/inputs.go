package item

import "iter"

// inputPlaceholder is one {input:…} placeholder of a directive's text
// (spec 3.8): {input:key}, {input:key?}, {input:key:default} or
// {input:key|default}. Lint checks that key names a declared input; the
// executor replaces the placeholder. Both find placeholders with
// InputPlaceholders, so that what lint checks is what a run fills in.
type inputPlaceholder struct {
	Start, End int    // byte offsets of the whole placeholder, braces included
	Name       string // the key: a letter or _, then letters, digits or _
	// Modifier is 0 for {input:key}, '?' for {input:key?}, ':' or '|'
	// for a default.
	Modifier byte
	Default  string // the text after ':' or '|' (possibly empty), up to the first }
}

// inputOpen begins every placeholder.
const inputOpen = "{input:"

// InputPlaceholders yields the placeholders of s from left to right. A
// placeholder ends at the first } after its key; text that begins like
// one but is not (a key that does not begin with a letter or _, a ?
// not followed by }, no closing }) is not a placeholder, and the search
// goes on from the byte after its {, so {input:{input:x} holds one
// placeholder, {input:x}. A default may hold any byte but }, newlines
// and invalid UTF-8 included.
func InputPlaceholders[S ~string | ~[]byte](s S) iter.Seq[inputPlaceholder] {
	return func(yield func(inputPlaceholder) bool) {
		for i := 0; i < len(s); {
			if s[i] != '{' {
				i++
				continue
			}
			p, ok, more := inputAt(s, i)
			if !more {
				return
			}
			if !ok {
				i++
				continue
			}
			if !yield(p) {
				return
			}
			i = p.End
		}
	}
}

// inputAt reads the placeholder that starts at s[i], if one does. More
// is false when no placeholder can start at i or after: a default with no
// } after it means there is no } left to end one. So a failed attempt
// reads its key at most (keys hold no {, so those reads never overlap)
// and a text is read in linear time, however it is made.
func inputAt[S ~string | ~[]byte](s S, i int) (p inputPlaceholder, ok, more bool) {
	if len(s)-i < len(inputOpen) || string(s[i:i+len(inputOpen)]) != inputOpen {
		return p, false, true
	}
	j := i + len(inputOpen)
	if j == len(s) || !keyStart(s[j]) {
		return p, false, true
	}
	k := j + 1
	for k < len(s) && keyByte(s[k]) {
		k++
	}
	if k == len(s) {
		return p, false, false
	}
	switch c := s[k]; c {
	case '}':
		return inputPlaceholder{Start: i, End: k + 1, Name: string(s[j:k])}, true, true
	case '?':
		if k+1 < len(s) && s[k+1] == '}' {
			return inputPlaceholder{Start: i, End: k + 2, Name: string(s[j:k]), Modifier: '?'}, true, true
		}
	case ':', '|':
		for e := k + 1; e < len(s); e++ {
			if s[e] == '}' {
				return inputPlaceholder{Start: i, End: e + 1, Name: string(s[j:k]), Modifier: c, Default: string(s[k+1 : e])}, true, true
			}
		}
		return p, false, false
	}
	return p, false, true
}

func keyStart(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func keyByte(c byte) bool {
	return keyStart(c) || '0' <= c && c <= '9'
}
