package jsonschema

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
)

// typeOf is the JSON type of a plain value (numberType for every number;
// 0 for what JSON cannot hold).
func typeOf(v any) typeSet {
	switch v.(type) {
	case nil:
		return nullType
	case bool:
		return booleanType
	case string:
		return stringType
	case []any:
		return arrayType
	case map[string]any:
		return objectType
	case json.Number, float32, float64, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return numberType
	}
	return 0
}

// isInteger says whether a number has no fractional part (5.0 has none).
func isInteger(v any) bool {
	switch x := v.(type) {
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return true
	case float64:
		return !math.IsInf(x, 0) && x == math.Trunc(x)
	case float32:
		return !math.IsInf(float64(x), 0) && float64(x) == math.Trunc(float64(x))
	}
	r, ok := ratOf(v)
	return ok && r.IsInt()
}

// asInt64 is an integer value that fits an int64 without conversion.
func asInt64(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case int:
		return int64(x), true
	case int32:
		return int64(x), true
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return i, true
		}
	}
	return 0, false
}

// equal is JSON equality: numbers by value (1 equals 1.0), objects
// regardless of key order.
func equal(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !equal(xv, yv) {
				return false
			}
		}
		return true
	}
	if typeOf(a) != numberType || typeOf(b) != numberType {
		return false
	}
	if i, ok := asInt64(a); ok {
		if j, ok := asInt64(b); ok {
			return i == j
		}
	}
	ra, okA := ratOf(a)
	rb, okB := ratOf(b)
	return okA && okB && ra.Cmp(rb) == 0
}

// duplicates is the first pair of equal items (j < i, i as small as can
// be, then j), or -1, -1.
func duplicates(arr []any) (int, int) {
	if len(arr) <= 20 {
		for i := 1; i < len(arr); i++ {
			for j := 0; j < i; j++ {
				if equal(arr[i], arr[j]) {
					return j, i
				}
			}
		}
		return -1, -1
	}
	seen := make(map[string][]int, len(arr))
	var b strings.Builder
	for i, it := range arr {
		b.Reset()
		canonical(&b, it)
		k := b.String()
		for _, j := range seen[k] {
			if equal(it, arr[j]) {
				return j, i
			}
		}
		seen[k] = append(seen[k], i)
	}
	return -1, -1
}

// canonical writes a key under which equal values meet (numbers in their
// exact form, object keys sorted).
func canonical(b *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("n")
	case bool:
		if x {
			b.WriteString("t")
		} else {
			b.WriteString("f")
		}
	case string:
		b.WriteString(strconv.Quote(x))
	case []any:
		b.WriteByte('[')
		for _, it := range x {
			canonical(b, it)
			b.WriteByte(',')
		}
		b.WriteByte(']')
	case map[string]any:
		b.WriteByte('{')
		for _, k := range sortedKeys(x) {
			b.WriteString(strconv.Quote(k))
			b.WriteByte(':')
			canonical(b, x[k])
			b.WriteByte(',')
		}
		b.WriteByte('}')
	default:
		if r, ok := ratOf(v); ok {
			b.WriteString(r.RatString())
		} else {
			b.WriteString("?")
		}
	}
}

// sortedKeys are an object's keys in order: the validator visits
// properties in this order, so that its errors come out the same on every
// run.
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
