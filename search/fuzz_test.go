package search

import (
	"strings"
	"testing"

	"github.com/ryekit/rye/item"
)

// FuzzParseScope: any text is a scope or an error, never a panic; a scope
// that parses has kinds, and a namespace that is an id (or, partial, the
// start of one).
func FuzzParseScope(f *testing.F) {
	for _, s := range []string{"tool", "tool/hello/*", "hello/*", "tool.rye.core.*", "rye.search.tool.rye.core.*", "all/tool/**", "tool/hello/gr*", "*", "", "/", "tool//x", "tool/../x", "tool/a/*/b", "knowledge/my.notes/x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sc, err := parseScope(s)
		if err != nil {
			return
		}
		if len(sc.Kinds) == 0 {
			t.Fatalf("%q: no kind", s)
		}
		if sc.Namespace != "" {
			if _, err := item.ParseID(sc.Namespace); err != nil && !sc.Partial {
				t.Fatalf("%q: namespace %q is not an id: %v", s, sc.Namespace, err)
			}
		}
	})
}

// FuzzStem: a stem is never longer than its word, and a word's stem is
// its own stem's stem or shorter (the rule terminates and shrinks).
func FuzzStem(f *testing.F) {
	for _, s := range []string{"greeting", "greets", "libraries", "running", "falling", "create", "ies", "sses", "bing", "naïve", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, w string) {
		w = strings.ToLower(w)
		s := stem(w)
		if len(s) > len(w) {
			t.Fatalf("stem(%q) = %q grew", w, s)
		}
		if !strings.HasPrefix(w, s[:min(len(s), 1)]) {
			t.Fatalf("stem(%q) = %q does not start like its word", w, s)
		}
	})
}
