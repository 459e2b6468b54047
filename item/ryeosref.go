package item

import (
	"strings"
	"unicode"
)

// This file is RyeOS 0.2+'s reference syntax (spec 7.4): canonical refs
// kind:bare_id[@suffix], the executor aliases of each kind, and what an
// executor_id may be. It is not rye's v1 id charset, which must never be
// applied to 0.2+ items.

// RefError is a reference RyeOS refuses, with the code rye reports it
// under: "ref/bare" (no kind), "ref/invalid" (the syntax), "alias/unknown"
// (an alias the kind does not declare).
type RefError struct {
	Code string
	Msg  string
}

func (e *RefError) Error() string { return e.Msg }

// ref is a parsed canonical ref.
type ref struct {
	Kind   string
	BareID string
	Suffix string // after '@', "" when there is none
}

func (r ref) String() string {
	s := r.Kind + ":" + r.BareID
	if r.Suffix != "" {
		s += "@" + r.Suffix
	}
	return s
}

// ParseRef reads a canonical ref as RyeOS's CanonicalRef::parse does: a
// kind of lowercase ASCII letters, digits, '_' and '-'; a bare id of
// segments of Unicode letters and digits, '-', '_' and '.' (never "." or
// ".."), joined by '/'; an optional suffix cap:X:X:X, sig:X:X or t:...
// Whether the kind exists is not a question of syntax.
func ParseRef(s string) (ref, error) {
	return parseRef(s, false)
}

// parseSignTarget reads what RyeOS's sign takes: a ref without a suffix
// whose bare id may hold the globs * and ?.
func parseSignTarget(s string) (ref, error) {
	return parseRef(s, true)
}

func parseRef(s string, target bool) (ref, error) {
	kind, rest, ok := strings.Cut(s, ":")
	if !ok {
		return ref{}, &RefError{"ref/bare", "a bare ref without a kind (" + quoteRef(s) + "): RyeOS wants kind:id, such as tool:" + s}
	}
	if kind == "" || strings.ContainsFunc(kind, func(r rune) bool {
		return !('a' <= r && r <= 'z' || '0' <= r && r <= '9' || r == '_' || r == '-')
	}) {
		return ref{}, &RefError{"ref/invalid", "the kind of " + quoteRef(s) + " must be lowercase letters, digits, '_' and '-'"}
	}
	bare, suffix, hasSuffix := strings.Cut(rest, "@")
	if hasSuffix && target {
		return ref{}, &RefError{"ref/invalid", quoteRef(s) + ": what RyeOS signs takes no @ suffix"}
	}
	if hasSuffix && !validSuffix(suffix) {
		return ref{}, &RefError{"ref/invalid", quoteRef(s) + ": the suffix after @ must be cap:X:X:X, sig:X:X or t:..."}
	}
	if bare == "" || strings.HasPrefix(bare, "/") || strings.HasSuffix(bare, "/") {
		return ref{}, &RefError{"ref/invalid", quoteRef(s) + ": the id has no leading or trailing '/'"}
	}
	for seg := range strings.SplitSeq(bare, "/") {
		switch {
		case seg == "":
			return ref{}, &RefError{"ref/invalid", quoteRef(s) + ": the id has an empty segment"}
		case seg == "." || seg == "..":
			return ref{}, &RefError{"ref/invalid", quoteRef(s) + ": the id may not name " + seg}
		}
		for _, r := range seg {
			ok := unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Other_Alphabetic, r) || r == '-' || r == '_' || r == '.' ||
				target && (r == '*' || r == '?')
			if !ok {
				return ref{}, &RefError{"ref/invalid", quoteRef(s) + ": " + quoteRef(string(r)) + " is not allowed in an id (letters, digits, '-', '_' and '.')"}
			}
		}
	}
	return ref{Kind: kind, BareID: bare, Suffix: suffix}, nil
}

// validSuffix is cap:X:X:X, sig:X:X or t:<anything>, X holding no ':'.
func validSuffix(s string) bool {
	typ, rest, ok := strings.Cut(s, ":")
	if !ok {
		return false
	}
	parts := func(n int) bool {
		ps := strings.Split(rest, ":")
		if len(ps) != n {
			return false
		}
		for _, p := range ps {
			if p == "" {
				return false
			}
		}
		return true
	}
	switch typ {
	case "cap":
		return parts(3)
	case "sig":
		return parts(2)
	case "t":
		return rest != ""
	}
	return false
}

func quoteRef(s string) string { return "\"" + printable(s) + "\"" }

// executorAliases are the execution.aliases of the kind schemas at the
// release spec 7 was read from.
var executorAliases = map[Kind]map[string]string{
	Tool:          {"@subprocess": "tool:ryeos/core/subprocess/execute", "@method_dispatch": "tool:ryeos/core/method-dispatch/execute"},
	StreamingTool: {"@subprocess": "tool:ryeos/core/subprocess/execute"},
}

// ResolveExecutor checks an executor_id of an item of kind k as RyeOS
// resolves the first hop of its chain: an alias the kind declares (its
// target returned), or a canonical ref. A bare id, an unknown alias and a
// malformed ref load but never run; the error says which.
func ResolveExecutor(k Kind, executor string) (string, error) {
	if strings.HasPrefix(executor, "@") {
		if to, ok := executorAliases[k][executor]; ok {
			return to, nil
		}
		return "", &RefError{"alias/unknown", quoteRef(executor) + " is not an alias of the " + string(k) + " kind (" + aliasList(k) + "): RyeOS cannot run the item"}
	}
	r, err := ParseRef(executor)
	if err != nil {
		return "", err
	}
	return r.String(), nil
}

func aliasList(k Kind) string {
	var names []string
	for _, name := range []string{"@subprocess", "@method_dispatch"} {
		if _, ok := executorAliases[k][name]; ok {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return "it declares none"
	}
	return "it declares " + strings.Join(names, ", ")
}
