package paramschema

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/ryekit/rye/item/syntax"
)

// A Resolver finds values inside one schema's node tree by JSON pointer.
// It indexes the keys of large maps as it goes, so that many look-ups in
// a large "$defs" stay cheap; it is not safe for concurrent use.
type Resolver struct {
	root  *syntax.Node
	index map[*syntax.Node]map[string]*syntax.Node
}

// NewResolver resolves inside root.
func NewResolver(root *syntax.Node) *Resolver { return &Resolver{root: root} }

// resolve is the schema a local reference names ("#", "#/$defs/x",
// percent-encoded or not), or nil for anything else: another document, an
// anchor, a pointer to nothing.
func resolve(root *syntax.Node, ref string) *syntax.Node { return NewResolver(root).Resolve(ref) }

// Resolve is the schema a local reference names, as the function Resolve.
func (r *Resolver) Resolve(ref string) *syntax.Node {
	frag, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil
	}
	toks, ok := PointerTokens(frag)
	if !ok {
		return nil
	}
	n := r.root
	for _, t := range toks {
		if n = r.Child(n, t); n == nil {
			return nil
		}
	}
	return n
}

// Child is the value under one JSON pointer token, or nil. A list index is
// written in its canonical form ("1", never "01" or "+1"), as RFC 6901
// says (lint's copy; the executor's took "01" for 1).
func (r *Resolver) Child(n *syntax.Node, tok string) *syntax.Node {
	if n == nil {
		return nil
	}
	switch n.Kind {
	case syntax.MapNode:
		if len(n.Fields) <= 16 {
			return n.Get(tok)
		}
		m := r.index[n]
		if m == nil {
			m = make(map[string]*syntax.Node, len(n.Fields))
			for _, f := range n.Fields {
				m[f.Key] = f.Value // the last duplicate wins, as in Get
			}
			if r.index == nil {
				r.index = map[*syntax.Node]map[string]*syntax.Node{}
			}
			r.index[n] = m
		}
		return m[tok]
	case syntax.ListNode:
		if !IsIndex(tok) {
			return nil
		}
		i, _ := strconv.Atoi(tok)
		if i >= len(n.Items) {
			return nil
		}
		return n.Items[i]
	}
	return nil
}

// PointerTokens splits a URI-fragment JSON pointer ("/a~1b/0", "/%24defs/x").
func PointerTokens(frag string) ([]string, bool) {
	frag, err := url.PathUnescape(frag)
	if err != nil || (frag != "" && frag[0] != '/') {
		return nil, false
	}
	return SplitPointer(frag), true
}

// SplitPointer splits a JSON pointer ("/a~1b/0") into its tokens.
func SplitPointer(p string) []string {
	if p == "" {
		return nil
	}
	toks := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for i, t := range toks {
		toks[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
	}
	return toks
}

// JSONPointer joins tokens into a JSON pointer: "/properties/a~1b".
func JSONPointer(ptr []string) string {
	var b strings.Builder
	for _, t := range ptr {
		b.WriteByte('/')
		b.WriteString(escapeToken(t))
	}
	return b.String()
}

func escapeToken(t string) string {
	return strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1")
}

// IsIndex says whether a token is a list index in canonical form.
func IsIndex(s string) bool {
	i, err := strconv.Atoi(s)
	return err == nil && i >= 0 && strconv.Itoa(i) == s
}

// ValueAt is the value under a JSON pointer's tokens in a plain JSON value
// (map[string]any, []any, scalars), or nil when there is none. List
// indexes are canonical, as in Child.
func ValueAt(v any, ptr []string) any {
	for _, t := range ptr {
		switch x := v.(type) {
		case map[string]any:
			v = x[t]
		case []any:
			i, _ := strconv.Atoi(t)
			if !IsIndex(t) || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}
