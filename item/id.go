package item

import (
	"fmt"
	"path"
	"strings"
	"unicode/utf8"
)

// ID is a validated item id: the file's path below .ai/<folder>/, with '/'
// separators and without the extension (spec 1.2). Only ParseID makes IDs
// from untrusted text, so an ID can be joined to a space root without
// escaping it.
type ID string

// maxIDLen is the longest id accepted, in bytes.
const maxIDLen = 255

// ParseKindID reads the kind and the id that name an item (rye load KIND
// ID, rye new, an MCP call's item_type and item_id): the kind first
// (ParseKind), then the id (ParseID); the error is the first one's.
func ParseKindID(kind, id string) (Kind, ID, error) {
	k, err := ParseKind(kind)
	if err != nil {
		return "", "", err
	}
	i, err := ParseID(id)
	return k, i, err
}

// ParseID validates s as an item id. The error says what is wrong and where,
// because ids come from users, pre-commit file lists and lockfiles.
func ParseID(s string) (ID, error) {
	if s == "" {
		return "", fmt.Errorf("invalid item id: empty")
	}
	if len(s) > maxIDLen {
		return "", fmt.Errorf("invalid item id %q: %d bytes, at most %d allowed", abbreviate(s), len(s), maxIDLen)
	}
	if s[0] == '/' {
		return "", fmt.Errorf("invalid item id %q: an id is relative to .ai/<kind>/, not an absolute path", s)
	}
	if i := strings.IndexByte(s, '\\'); i >= 0 {
		return "", fmt.Errorf("invalid item id %q: backslash at byte %d; ids use '/' between segments", s, i+1)
	}
	i := 0
	for segment := range strings.SplitSeq(s, "/") { // every walked file's id: no slice
		i++
		if err := checkSegment(segment); err != nil {
			return "", fmt.Errorf("invalid item id %q: segment %d %s", printable(s), i, err)
		}
	}
	return ID(s), nil
}

// MustID is ParseID for ids written in code and tests.
func MustID(s string) ID {
	id, err := ParseID(s)
	if err != nil {
		panic(err)
	}
	return id
}

func checkSegment(seg string) error {
	switch seg {
	case "":
		return fmt.Errorf("is empty (a leading, trailing or doubled '/')")
	case ".", "..":
		return fmt.Errorf("is %q: ids may not name the current or parent folder", seg)
	case "node_modules", "__pycache__":
		// Walks never enter these folders (spec 1.1), so an item there
		// would never be checked; no id may name one.
		return fmt.Errorf("is %q, a folder walks skip: an item there would never be verified by rye check; rename the folder", seg)
	}
	for i := 0; i < len(seg); {
		r, size := utf8.DecodeRuneInString(seg[i:])
		ok := r == '_' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9')
		if i > 0 {
			ok = ok || r == '.' || r == '-'
		}
		if !ok {
			switch {
			case r < 0x20 || r == 0x7f:
				return fmt.Errorf("contains control character %U", r)
			case i == 0 && (r == '.' || r == '-'):
				return fmt.Errorf("%q starts with %q; a segment starts with a letter, digit or '_'", seg, r)
			default:
				return fmt.Errorf("%q contains %q; allowed are letters, digits, '_', '.' and '-'", printable(seg), r)
			}
		}
		i += size
	}
	return nil
}

// Segments splits the id at '/'.
func (id ID) Segments() []string { return strings.Split(string(id), "/") }

// Name is the last segment: the file name without extension.
func (id ID) Name() string { return path.Base(string(id)) }

// Dir is the folder part ("" for an id at the root of its kind's folder).
// It is what the category metadata must equal.
func (id ID) Dir() string {
	if i := strings.LastIndexByte(string(id), '/'); i >= 0 {
		return string(id[:i])
	}
	return ""
}

func (id ID) String() string { return string(id) }

// printable replaces control characters so that an error message about a bad
// id cannot itself corrupt a terminal.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '?'
		}
		return r
	}, s)
}

func abbreviate(s string) string {
	if len(s) > 40 {
		return printable(s[:40]) + "..."
	}
	return printable(s)
}
