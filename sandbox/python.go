package sandbox

import (
	"fmt"

	"github.com/ryekit/rye/item/python"
)

// pythonName is the module-level name a Python tool binds its block to.
const pythonName = "__sandbox__"

// PythonElsewhere looks in a Python tool whose metadata reader found no
// module-level __sandbox__ for the name anywhere else in its code: bound
// inside a block (`try:`, `if ...:`), through `globals()["__sandbox__"]`.
// To a reviewer such a tool looks confined; to rye, which reads only
// module-level literals, it has no block and would run unconfined. It
// returns a message naming the line ("" when the name appears nowhere)
// and the byte offset of the name, so that lint reports where the
// executor refuses; it fails closed (offset 0) on a file it cannot split
// into tokens.
func PythonElsewhere(src []byte) (off int, msg string) {
	toks, err := python.Tokens(src)
	return PythonElsewhereIn(src, toks, err)
}

// PythonElsewhereIn is PythonElsewhere over the file's tokens (and the
// error of splitting it into them), for a caller that has them already.
func PythonElsewhereIn(src []byte, toks []python.Token, err error) (off int, msg string) {
	if err != nil {
		return 0, fmt.Sprintf("cannot be read for %s: %v", pythonName, err)
	}
	for _, t := range toks {
		found := false
		switch t.Kind {
		case python.Name:
			found = string(src[t.Start:t.End]) == pythonName
		case python.String:
			v, ok := python.StringValue(src, t)
			found = ok && v == pythonName
		}
		if found {
			line := 1
			for _, c := range src[:t.Start] {
				if c == '\n' {
					line++
				}
			}
			return t.Start, fmt.Sprintf("line %d names %s, but not as a module-level assignment of a dict literal, the only form rye reads: the tool would run unconfined; write `%s = {...}` at module level", line, pythonName, pythonName)
		}
	}
	return 0, ""
}
