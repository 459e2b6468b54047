package syntax

import (
	"fmt"
	"strings"
)

// Error is a problem found in an item file: where it is, which field it is
// about, what is wrong and, when there is one, how to fix it. Readers return
// *Error for syntax problems; the rule engine returns one per broken rule.
type Error struct {
	Path  string // the file, as the user named it; may be filled in by the caller
	Pos   Pos    // where the offending text starts; invalid when there is none
	Field string // the metadata field concerned, if any
	Msg   string // what was found and what was expected
	Fix   string // a one-line hint, optional

	// Set by the rule engine, for lint and its fixes:
	Rule  string // the rule broken: "required", "type", "match_path", ...
	Value *Node  // the offending value, nil when it is missing
	Want  string // the value that would satisfy the rule, when there is exactly one
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Path != "" {
		b.WriteString(e.Path)
		if e.Pos.IsValid() {
			fmt.Fprintf(&b, ":%d:%d", e.Pos.Line, e.Pos.Col)
		}
		b.WriteString(": ")
	} else if e.Pos.IsValid() {
		fmt.Fprintf(&b, "%d:%d: ", e.Pos.Line, e.Pos.Col)
	}
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	if e.Fix != "" {
		b.WriteString(" (fix: ")
		b.WriteString(e.Fix)
		b.WriteString(")")
	}
	return b.String()
}

// Errorf builds an *Error at pos.
func Errorf(pos Pos, format string, args ...any) *Error {
	return &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)}
}
