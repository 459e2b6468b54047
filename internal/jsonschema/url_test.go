package jsonschema

import (
	"net/url"
	"strings"
	"testing"
)

// encode is url.PathEscape token by token, with a fast path for the
// pointers that need no escaping.
func TestEncode(t *testing.T) {
	for _, p := range []string{"", "/", "/properties/a", "/$defs/a~1b", "/a b/c%d", "/é", "/a?b#c;d,e", "/x:y@z=1&2+3", "/!'()*"} {
		toks := strings.Split(p, "/")
		for i, tk := range toks {
			toks[i] = url.PathEscape(tk)
		}
		if want := strings.Join(toks, "/"); encode(p) != want {
			t.Errorf("encode(%q) = %q, want %q", p, encode(p), want)
		}
	}
}
