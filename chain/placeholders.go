package chain

import (
	"strings"

	"github.com/ryekit/rye/item/syntax"
)

// placeholder is a {name} in a config string.
type placeholder struct {
	Name string
	Off  int // byte offset of '{' in the string
}

// Placeholders finds the {name} placeholders of s (spec 3.6): '{', an
// identifier [A-Za-z_][A-Za-z0-9_]*, '}'. "{{" and "}}" are literal braces,
// ${...} is an environment variable, and any other brace text ("{}",
// `{"a": 1}`) is literal.
func Placeholders(s string) []placeholder {
	var out []placeholder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '$' && i+1 < len(s) && s[i+1] == '{':
			if j := strings.IndexByte(s[i+2:], '}'); j >= 0 {
				i += 2 + j
			} else {
				i = len(s)
			}
		case s[i] == '{' && i+1 < len(s) && s[i+1] == '{', s[i] == '}' && i+1 < len(s) && s[i+1] == '}':
			i++
		case s[i] == '{':
			j := i + 1
			for j < len(s) && isIdent(s[j], j == i+1) {
				j++
			}
			if j > i+1 && j < len(s) && s[j] == '}' {
				out = append(out, placeholder{Name: s[i+1 : j], Off: i})
				i = j
			}
		}
	}
	return out
}

func isIdent(c byte, first bool) bool {
	return c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || (!first && '0' <= c && c <= '9')
}

// walkStrings calls fn for every string in a config tree.
// UsesPlaceholder reports whether an element of the chain writes {name}
// in its config.
func UsesPlaceholder(c *Chain, name string) bool {
	used := false
	for _, el := range c.Elements {
		walkStrings(el.Meta.Get("config"), func(s *syntax.Node) {
			for _, p := range Placeholders(s.Str) {
				used = used || p.Name == name
			}
		})
	}
	return used
}

func walkStrings(n *syntax.Node, fn func(*syntax.Node)) {
	if n == nil {
		return
	}
	switch n.Kind {
	case syntax.StringNode:
		fn(n)
	case syntax.ListNode:
		for _, it := range n.Items {
			walkStrings(it, fn)
		}
	case syntax.MapNode:
		for _, f := range n.Fields {
			walkStrings(f.Value, fn)
		}
	}
}
