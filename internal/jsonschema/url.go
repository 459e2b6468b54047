package jsonschema

import (
	"net/url"
	"strconv"
	"strings"
)

// split cuts a reference at its first "#": the document and the fragment.
func split(s string) (string, string) {
	doc, frag, _ := strings.Cut(s, "#")
	return doc, frag
}

// splitFragment cuts a reference and percent-decodes its fragment.
func splitFragment(s string) (string, string, error) {
	doc, frag := split(s)
	f, err := url.PathUnescape(frag)
	if err != nil {
		return "", "", &ParseURLError{URL: s, Err: err}
	}
	return doc, f, nil
}

// join resolves a reference against a base URL (RFC 3986): the document
// URL and the decoded fragment. bases keeps the base URLs parsed.
func join(bases map[string]*baseURL, base, ref string) (string, string, error) {
	bu := bases[base]
	if bu == nil {
		u, err := url.Parse(base)
		if err != nil {
			return "", "", &ParseURLError{URL: base, Err: err}
		}
		bu = &baseURL{u, u.Opaque == "" && u.String() == base}
		bases[base] = bu
	}
	b := bu.u
	doc, frag, err := splitFragment(ref)
	if err != nil {
		return "", "", err
	}
	if doc == "" && bu.same {
		return base, frag, nil // "#...": the base itself
	}
	r, err := url.Parse(doc)
	if err != nil {
		return "", "", &ParseURLError{URL: doc, Err: err}
	}
	resolved := b.ResolveReference(r)
	// net/url drops an opaque base ("urn:x") when resolving a relative
	// reference against it; the reference then means the base itself.
	if !r.IsAbs() && b.Opaque != "" {
		resolved.Opaque = b.Opaque
	}
	return resolved.String(), frag, nil
}

// A baseURL is a base URL parsed; same: it resolves an empty reference
// to itself, as written.
type baseURL struct {
	u    *url.URL
	same bool
}

// isPointer says whether a decoded fragment is a JSON pointer ("" or
// "/..."), not an anchor name.
func isPointer(frag string) bool { return frag == "" || frag[0] == '/' }

// escape writes a JSON pointer token: "~" as "~0", "/" as "~1".
func escape(tok string) string {
	if !strings.ContainsAny(tok, "~/") {
		return tok
	}
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}

// unescape reads a JSON pointer token; false when a "~" is followed by
// neither 0 nor 1.
func unescape(tok string) (string, bool) {
	if !strings.Contains(tok, "~") {
		return tok, true
	}
	var b strings.Builder
	for i := 0; i < len(tok); i++ {
		if tok[i] != '~' {
			b.WriteByte(tok[i])
			continue
		}
		if i+1 == len(tok) {
			return "", false
		}
		switch tok[i+1] {
		case '0':
			b.WriteByte('~')
		case '1':
			b.WriteByte('/')
		default:
			return "", false
		}
		i++
	}
	return b.String(), true
}

// pointer joins tokens into a JSON pointer.
func pointer(toks []string) string {
	var b strings.Builder
	for _, t := range toks {
		b.WriteByte('/')
		b.WriteString(escape(t))
	}
	return b.String()
}

// encode percent-encodes a JSON pointer (or anchor) for a URL fragment,
// token by token, keeping the slashes.
func encode(frag string) string {
	plain := true
	for i := 0; i < len(frag) && plain; i++ {
		c := frag[i]
		plain = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("/-._~$&+:=@", c) >= 0
	}
	if plain { // what url.PathEscape keeps in a path segment
		return frag
	}
	toks := strings.Split(frag, "/")
	for i, t := range toks {
		toks[i] = url.PathEscape(t)
	}
	return strings.Join(toks, "/")
}

// location is the absolute location of a place in a document: its URL,
// "#" and the JSON pointer, percent-encoded.
func location(doc, ptr string) string { return doc + "#" + encode(ptr) }

// lookup is the value at a JSON pointer (escaped, "/a/0") of v. An index
// is read as strconv.Atoi reads it.
func lookup(v any, doc, ptr string) (any, error) {
	if ptr == "" {
		return v, nil
	}
	for _, raw := range strings.Split(ptr, "/")[1:] {
		tok, ok := unescape(raw)
		if !ok {
			return nil, &InvalidPointerError{URL: location(doc, ptr)}
		}
		switch x := v.(type) {
		case map[string]any:
			if next, ok := x[tok]; ok {
				v = next
				continue
			}
		case []any:
			if i, err := strconv.Atoi(tok); err == nil && i >= 0 && i < len(x) {
				v = x[i]
				continue
			}
		}
		return nil, &PointerNotFoundError{URL: location(doc, ptr)}
	}
	return v, nil
}
