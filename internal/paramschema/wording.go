package paramschema

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Quote is a double-quoted, escaped string, shortened to 60 bytes.
func Quote(s string) string { return strconv.Quote(Shorten(s, 60)) }

// Shorten cuts s to at most bytes (at a character boundary) and marks the
// cut with "…".
func Shorten(s string, most int) string {
	if len(s) <= most {
		return s
	}
	cut := most
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// QuoteList writes `property "a"`, `properties "a", "b"`: the names
// quoted and sorted, as the executor's copy did (lint's did not sort, but
// the validator lists additional properties in its own order).
func QuoteList(what string, names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = Quote(n)
	}
	slices.Sort(q)
	if len(names) != 1 {
		what = pluralWord(what)
	}
	return what + " " + strings.Join(q, ", ")
}

// article is a JSON type with its article: "a string", "an integer", "null".
func article(t string) string {
	switch t {
	case "null":
		return "null"
	case "array", "object", "integer":
		return "an " + t
	}
	return "a " + t
}

// wantTypes writes the types a "type" keyword wants: "an integer", "a
// string or null" (sorted as lint did, null last as the executor did),
// "true or false" for a lone boolean (the executor's words), "a schema (an
// object or boolean)".
func wantTypes(types []string) string {
	w := slices.Clone(types)
	slices.SortFunc(w, func(a, b string) int {
		if (a == "null") != (b == "null") {
			if a == "null" {
				return 1
			}
			return -1
		}
		return strings.Compare(a, b)
	})
	switch {
	case len(w) == 1 && w[0] == "boolean":
		return "true or false"
	case len(w) == 2 && w[0] == "boolean" && w[1] == "object":
		return "a schema (an object or boolean)"
	}
	for i, t := range w {
		w[i] = article(t)
	}
	return joinOr(w)
}

// Compact is a value as compact JSON (fmt's form for what JSON cannot
// write).
func Compact(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// Display shows a value briefly: a string quoted, anything else as compact
// JSON, shortened to 60 bytes (the executor's style; Describe is lint's).
func Display(v any) string {
	if s, ok := v.(string); ok {
		return Quote(s)
	}
	return Shorten(Compact(v), 60)
}

// Describe shows a value briefly, saying what arrays and objects are:
// `"x"`, `5`, `[1,2] (an array)`, `an object` (when long).
func Describe(v any) string {
	switch x := v.(type) {
	case string:
		return Quote(x)
	case nil:
		return "null"
	case []any:
		if s := Compact(x); len(s) <= 40 {
			return s + " (an array)"
		}
		return "an array"
	case map[string]any:
		if s := Compact(x); len(s) <= 40 {
			return s + " (an object)"
		}
		return "an object"
	}
	return Compact(v)
}

// TypeNote is " (a string)" for a scalar, to follow Describe; arrays,
// objects and null say what they are already.
func TypeNote(v any) string {
	switch v.(type) {
	case []any, map[string]any, nil:
		return ""
	}
	return " (" + article(typeOf(v)) + ")"
}

// typeOf is the JSON type of a plain value, "integer" for whole numbers.
func typeOf(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		if r, ok := new(big.Rat).SetString(string(v)); ok && r.IsInt() {
			return "integer"
		}
		return "number"
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return "integer"
	case float32:
		return typeOf(float64(v))
	case float64:
		if v == math.Trunc(v) && !math.IsInf(v, 0) {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "value"
}

// sameType says whether two plain values have the same JSON type, an
// integer being a number.
func sameType(a, b any) bool {
	ta, tb := typeOf(a), typeOf(b)
	if ta == "integer" {
		ta = "number"
	}
	if tb == "integer" {
		tb = "number"
	}
	return ta == tb
}

// joinOr writes "a", "a or b", "a, b or c".
func joinOr(s []string) string {
	if len(s) <= 1 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

// plural writes "1 property", "2 properties".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + pluralWord(what)
}

// pluralWord is the plural of an English noun of the kinds schema messages
// use (item, property, entry).
func pluralWord(w string) string {
	if strings.HasSuffix(w, "y") {
		return w[:len(w)-1] + "ies"
	}
	return w + "s"
}

// rat writes a schema bound (the validator keeps them as big.Rat): integers
// exactly, other numbers in the shortest float form.
func rat(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// RegexpReason is why a regular expression does not compile, without Go's
// "error parsing regexp: ".
func RegexpReason(err error) string {
	if err == nil {
		return "invalid"
	}
	return strings.TrimPrefix(err.Error(), "error parsing regexp: ")
}
