package paramschema

import (
	"encoding/json"
	"errors"
	"math/big"
	"reflect"
	"strings"
	"testing"
)

func TestWording(t *testing.T) {
	doc := map[string]any{"a": []any{int64(1), map[string]any{"b": "x"}}}
	long := strings.Repeat("é", 40) // 80 bytes
	cases := []struct{ got, want any }{
		{JoinOr(nil), ""},
		{JoinOr([]string{"a"}), "a"},
		{JoinOr([]string{"a", "b"}), "a or b"},
		{JoinOr([]string{"a", "b", "c"}), "a, b or c"},
		{Plural(1, "property"), "1 property"},
		{Plural(3, "property"), "3 properties"},
		{Plural(0, "item"), "0 items"},
		{Rat(big.NewRat(6, 2)), "3"},
		{Rat(big.NewRat(1, 4)), "0.25"},
		{Rat(nil), "?"},
		{ValueAt(doc, []string{"a", "1", "b"}), "x"},
		{ValueAt(doc, nil), doc},
		{Quote(`a"b`), `"a\"b"`},
		{Quote(long), `"` + strings.Repeat("é", 30) + `…"`},
		{Shorten("abc", 3), "abc"},
		{Shorten("héllo", 2), "h…"}, // not inside the é
		{QuoteList("property", []string{"b", "a"}), `properties "a", "b"`},
		{QuoteList("entry", []string{"x"}), `entry "x"`},
		{Article("integer"), "an integer"},
		{Article("string"), "a string"},
		{Article("null"), "null"},
		{Article("boolean"), "a boolean"},
		{WantTypes([]string{"integer"}), "an integer"},
		{WantTypes([]string{"null", "string"}), "a string or null"},
		{WantTypes([]string{"string", "integer", "null"}), "an integer, a string or null"},
		{WantTypes([]string{"boolean"}), "true or false"},
		{WantTypes([]string{"boolean", "null"}), "a boolean or null"},
		{WantTypes([]string{"object", "boolean"}), "a schema (an object or boolean)"},
		{Compact(map[string]any{"b": 1, "a": []any{true}}), `{"a":[true],"b":1}`},
		{Display("x"), `"x"`},
		{Display([]any{int64(1), "a"}), `[1,"a"]`},
		{Display(strings.Repeat("a", 100)), `"` + strings.Repeat("a", 60) + `…"`},
		{Display([]any{strings.Repeat("a", 100)}), `["` + strings.Repeat("a", 58) + "…"},
		{Describe([]any{int64(1)}), "[1] (an array)"},
		{Describe(map[string]any{"k": strings.Repeat("v", 40)}), "an object"},
		{Describe(nil), "null"},
		{Describe(json.Number("5")), "5"},
		{TypeNote("x"), " (a string)"},
		{TypeNote(json.Number("5.5")), " (a number)"},
		{TypeNote(json.Number("5")), " (an integer)"},
		{TypeNote(true), " (a boolean)"},
		{TypeNote([]any{}), ""},
		{TypeNote(nil), ""},
		{TypeOf(int64(3)), "integer"},
		{TypeOf(2.0), "integer"},
		{TypeOf(2.5), "number"},
		{SameType(json.Number("1"), 2.5), true},
		{SameType("1", json.Number("1")), false},
		{RegexpReason(errors.New("error parsing regexp: missing closing ]")), "missing closing ]"},
		{RegexpReason(nil), "invalid"},
	}
	for i, c := range cases {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("case %d: got %#v, want %#v", i, c.got, c.want)
		}
	}
	for _, ptr := range [][]string{{"a", "2"}, {"a", "x"}, {"a", "0", "b"}, {"nope"}, {"a", "01"}, {"a", "-1"}} {
		if v := ValueAt(doc, ptr); v != nil {
			t.Errorf("ValueAt %v: %v, want nil", ptr, v)
		}
	}
}

func TestPointers(t *testing.T) {
	for _, c := range []struct {
		ptr  string
		toks []string
	}{
		{"", nil},
		{"/", []string{""}},
		{"/a~1b/~0c/0", []string{"a/b", "~c", "0"}},
	} {
		got := SplitPointer(c.ptr)
		if !reflect.DeepEqual(got, c.toks) {
			t.Errorf("SplitPointer(%q) = %q, want %q", c.ptr, got, c.toks)
		}
		if back := JSONPointer(got); back != c.ptr {
			t.Errorf("JSONPointer(%q) = %q, want %q", got, back, c.ptr)
		}
	}
	if toks, ok := PointerTokens("/%24defs/a%20b"); !ok || !reflect.DeepEqual(toks, []string{"$defs", "a b"}) {
		t.Errorf("PointerTokens: %q %v", toks, ok)
	}
	for _, bad := range []string{"defs", "/%zz"} {
		if _, ok := PointerTokens(bad); ok {
			t.Errorf("PointerTokens(%q) took it", bad)
		}
	}
	for s, want := range map[string]bool{"0": true, "12": true, "01": false, "-1": false, "+1": false, "x": false, "": false} {
		if IsIndex(s) != want {
			t.Errorf("IsIndex(%q) = %v", s, !want)
		}
	}
}
