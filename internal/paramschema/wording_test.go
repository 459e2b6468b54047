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
		{joinOr(nil), ""},
		{joinOr([]string{"a"}), "a"},
		{joinOr([]string{"a", "b"}), "a or b"},
		{joinOr([]string{"a", "b", "c"}), "a, b or c"},
		{plural(1, "property"), "1 property"},
		{plural(3, "property"), "3 properties"},
		{plural(0, "item"), "0 items"},
		{rat(big.NewRat(6, 2)), "3"},
		{rat(big.NewRat(1, 4)), "0.25"},
		{rat(nil), "?"},
		{ValueAt(doc, []string{"a", "1", "b"}), "x"},
		{ValueAt(doc, nil), doc},
		{Quote(`a"b`), `"a\"b"`},
		{Quote(long), `"` + strings.Repeat("é", 30) + `…"`},
		{Shorten("abc", 3), "abc"},
		{Shorten("héllo", 2), "h…"}, // not inside the é
		{QuoteList("property", []string{"b", "a"}), `properties "a", "b"`},
		{QuoteList("entry", []string{"x"}), `entry "x"`},
		{article("integer"), "an integer"},
		{article("string"), "a string"},
		{article("null"), "null"},
		{article("boolean"), "a boolean"},
		{wantTypes([]string{"integer"}), "an integer"},
		{wantTypes([]string{"null", "string"}), "a string or null"},
		{wantTypes([]string{"string", "integer", "null"}), "an integer, a string or null"},
		{wantTypes([]string{"boolean"}), "true or false"},
		{wantTypes([]string{"boolean", "null"}), "a boolean or null"},
		{wantTypes([]string{"object", "boolean"}), "a schema (an object or boolean)"},
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
		{typeOf(int64(3)), "integer"},
		{typeOf(2.0), "integer"},
		{typeOf(2.5), "number"},
		{sameType(json.Number("1"), 2.5), true},
		{sameType("1", json.Number("1")), false},
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
