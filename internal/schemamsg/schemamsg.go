// Package schemamsg holds the wording helpers shared by the two places
// that explain JSON Schema validation failures to people: lint's schema
// analyzer (a tool's schema, at authoring time) and the executor's
// parameter checker (the values a caller gave, at run time). Both turn
// jsonschema errors into sentences; the small pieces they need are the
// same and live here once.
package schemamsg

import (
	"math/big"
	"strconv"
	"strings"
)

// ValueAt is the value under a JSON pointer's tokens in a plain JSON value
// (map[string]any, []any, scalars), or nil when there is none.
func ValueAt(v any, ptr []string) any {
	for _, t := range ptr {
		switch x := v.(type) {
		case map[string]any:
			v = x[t]
		case []any:
			i, err := strconv.Atoi(t)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// JoinOr writes "a", "a or b", "a, b or c".
func JoinOr(s []string) string {
	if len(s) <= 1 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

// Plural writes "1 property", "2 properties".
func Plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + PluralWord(what)
}

// PluralWord is the plural of an English noun of the kinds schema messages
// use (item, property, entry).
func PluralWord(w string) string {
	if strings.HasSuffix(w, "y") {
		return w[:len(w)-1] + "ies"
	}
	return w + "s"
}

// Rat writes a schema bound (jsonschema keeps them as big.Rat): integers
// exactly, other numbers in the shortest float form.
func Rat(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}
