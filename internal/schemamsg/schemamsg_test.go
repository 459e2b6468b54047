package schemamsg

import (
	"math/big"
	"testing"
)

func TestWording(t *testing.T) {
	doc := map[string]any{"a": []any{int64(1), map[string]any{"b": "x"}}}
	cases := map[string]string{
		JoinOr(nil):                     "",
		JoinOr([]string{"a"}):           "a",
		JoinOr([]string{"a", "b", "c"}): "a, b or c",
		Plural(1, "property"):           "1 property",
		Plural(3, "property"):           "3 properties",
		Plural(0, "item"):               "0 items",
		Rat(big.NewRat(6, 2)):           "3",
		Rat(big.NewRat(1, 4)):           "0.25",
		Rat(nil):                        "?",
		ValueAt(doc, []string{"a", "1", "b"}).(string): "x",
	}
	for got, want := range cases {
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
	for _, ptr := range [][]string{{"a", "2"}, {"a", "x"}, {"a", "0", "b"}, {"nope"}} {
		if v := ValueAt(doc, ptr); v != nil {
			t.Errorf("%v: %v", ptr, v)
		}
	}
}
