package search

import (
	"fmt"
	"strings"

	"github.com/ryekit/rye/item"
)

// scope limits a search to kinds and to a namespace of ids.
type scope struct {
	Kinds     []item.Kind
	Namespace string // "" for all ids; else ids equal to it or below it
	// Partial says Namespace ends with part of a segment ("tool/hello/gr*"):
	// every id that starts with it is in scope.
	Partial bool
}

// scopeHelp says what a scope looks like, for errors.
const scopeHelp = "a kind (directive, tool, knowledge or all) with an optional namespace: tool, tool/my-project/*, my-project/*, tool.my-project.*"

// parseScope reads a search scope (docs/search.md). Ids are written as ids
// are, with slashes: "tool/hello/*", "hello/*" (every kind), "all/hello";
// the first segment is a kind when it names one. The dotted form of spec
// 4.1 is still read: "tool", "directive.my-project.*", "tool.rye.core", the
// reference's long form "rye.search.tool.rye.core.*", and "all" or "*" for
// every kind. A namespace matches segment by segment: "rye/core" (or
// "rye.core") matches rye/core and rye/core/x, not rye/core_x; a final
// "*" after part of a segment ("hello/gr*") matches every id that starts
// so.
func parseScope(s string) (scope, error) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "rye.search.")
	if strings.Contains(s, "/") {
		return parseSlashed(s)
	}
	head, rest, _ := strings.Cut(s, ".")
	var sc scope
	switch head {
	case "all", "*", "":
		sc.Kinds = item.Kinds
	default:
		k, err := item.ParseKind(head)
		if err != nil {
			return scope{}, fmt.Errorf("invalid scope %q: write %s", s, scopeHelp)
		}
		sc.Kinds = []item.Kind{k}
	}
	rest = strings.TrimSuffix(strings.TrimSuffix(rest, "*"), ".")
	if rest != "" {
		ns := strings.ReplaceAll(rest, ".", "/")
		if _, err := item.ParseID(ns); err != nil {
			return scope{}, fmt.Errorf("invalid scope %q: namespace %s", s, err)
		}
		sc.Namespace = ns
	}
	return sc, nil
}

// parseSlashed reads a scope written with slashes, as ids are.
func parseSlashed(s string) (scope, error) {
	sc := scope{Kinds: item.Kinds}
	ns := s
	head, rest, _ := strings.Cut(s, "/")
	switch head {
	case "all", "*", "**":
		ns = rest
	default:
		if k, err := item.ParseKind(head); err == nil {
			sc.Kinds, ns = []item.Kind{k}, rest
		}
	}
	for _, all := range []string{"/**", "/*", "**"} {
		if ns == strings.TrimPrefix(all, "/") {
			ns = ""
		}
		ns = strings.TrimSuffix(ns, all)
	}
	if p, ok := strings.CutSuffix(ns, "*"); ok {
		ns, sc.Partial = p, true
	}
	if ns == "" {
		return sc, nil
	}
	if strings.ContainsAny(ns, "*?[") {
		return scope{}, fmt.Errorf("invalid scope %q: a * may only end it (tool/hello/*, hello/gr*); write %s", s, scopeHelp)
	}
	if _, err := item.ParseID(ns); err != nil {
		return scope{}, fmt.Errorf("invalid scope %q: namespace %s", s, err)
	}
	sc.Namespace = ns
	return sc, nil
}

// Contains reports whether an item is inside the scope.
func (sc scope) Contains(k item.Kind, id item.ID) bool {
	ok := false
	for _, sk := range sc.Kinds {
		ok = ok || sk == k
	}
	switch {
	case !ok:
		return false
	case sc.Partial:
		return strings.HasPrefix(string(id), sc.Namespace)
	}
	return sc.Namespace == "" || string(id) == sc.Namespace || strings.HasPrefix(string(id), sc.Namespace+"/")
}
