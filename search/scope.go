package search

import (
	"fmt"
	"strings"

	"github.com/ryekit/rye/item"
)

// Scope limits a search to kinds and to a namespace of ids.
type Scope struct {
	Kinds     []item.Kind
	Namespace string // "" for all ids; else ids equal to it or below it
}

// ParseScope reads the scopes of spec 4.1: "tool", "directive.my-project.*",
// "tool.rye.core", the reference's long form "rye.search.tool.rye.core.*",
// and "all" or "*" for every kind. Namespace segments are joined by dots
// and matched segment by segment: "rye.core" matches rye/core and
// rye/core/x, not rye/core_x.
func ParseScope(s string) (Scope, error) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "rye.search.")
	head, rest, _ := strings.Cut(s, ".")
	var sc Scope
	switch head {
	case "all", "*", "":
		sc.Kinds = item.Kinds
	default:
		k, err := item.ParseKind(head)
		if err != nil {
			return Scope{}, fmt.Errorf("invalid scope %q: it starts with directive, tool, knowledge or all (e.g. tool.rye.core.*)", s)
		}
		sc.Kinds = []item.Kind{k}
	}
	rest = strings.TrimSuffix(strings.TrimSuffix(rest, "*"), ".")
	if rest != "" {
		ns := strings.ReplaceAll(rest, ".", "/")
		if _, err := item.ParseID(ns); err != nil {
			return Scope{}, fmt.Errorf("invalid scope %q: namespace %s", s, err)
		}
		sc.Namespace = ns
	}
	return sc, nil
}

// Contains reports whether an item is inside the scope.
func (sc Scope) Contains(k item.Kind, id item.ID) bool {
	ok := false
	for _, sk := range sc.Kinds {
		ok = ok || sk == k
	}
	if !ok {
		return false
	}
	return sc.Namespace == "" || string(id) == sc.Namespace || strings.HasPrefix(string(id), sc.Namespace+"/")
}
