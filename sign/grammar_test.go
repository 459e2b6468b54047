package sign

import (
	"regexp"
	"strings"
	"testing"
)

// The grammar as regular expressions: the reference for the hand-written
// parser in line.go, which avoids compiling them at start-up.
var (
	tsPattern     = `(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z)`
	v2RE          = regexp.MustCompile(`^v2:` + tsPattern + `:([0-9a-f]{64}):([A-Za-z0-9_-]{86}==):([0-9a-f]{16})$`)
	v1RE          = regexp.MustCompile(`^` + tsPattern + `:([0-9a-f]{64}):([A-Za-z0-9_-]{86}==):([0-9a-f]{16})(?:\|([A-Za-z0-9_-]+@[A-Za-z0-9_-]+))?$`)
	versionRE     = regexp.MustCompile(`^v(\d+):`)
	placeholderRE = regexp.MustCompile(`^` + tsPattern + `:placeholder:unsigned:unsigned$`)
	directiveRE   = regexp.MustCompile(`<directive[^>]*>`)
)

// checkGrammar compares the hand-written parser with the regular
// expressions on one body (the part of a line after "rye:signed:").
func checkGrammar(t *testing.T, body []byte) {
	t.Helper()
	if got, want := isPlaceholder(body), placeholderRE.Match(body); got != want {
		t.Fatalf("%q: placeholder %v, regexp %v", body, got, want)
	}
	want := ""
	if m := versionRE.FindSubmatch(body); m != nil {
		want = string(m[1])
	}
	if got := versionOf(body); got != want {
		t.Fatalf("%q: version %q, regexp %q", body, got, want)
	}
	var l *line
	if rest, ok := strings.CutPrefix(string(body), "v2:"); ok {
		if f, tail, ok := parseFields([]byte(rest)); ok && len(tail) == 0 {
			l = f
		}
	}
	m := v2RE.FindSubmatch(body)
	if (l != nil) != (m != nil) {
		t.Fatalf("%q: v2 parsed %v, regexp %v", body, l != nil, m != nil)
	}
	if m != nil && (l.Timestamp != string(m[1]) || l.Hash != string(m[2]) || l.Signature != string(m[3]) || l.Fingerprint != string(m[4])) {
		t.Fatalf("%q: v2 fields %+v, regexp %q", body, l, m)
	}
	l = nil
	if f, tail, ok := parseFields(body); ok && (len(tail) == 0 || tail[0] == '|' && isProvenance(tail[1:])) {
		l = f
		if len(tail) > 0 {
			l.Provenance = string(tail[1:])
		}
	}
	m = v1RE.FindSubmatch(body)
	if (l != nil) != (m != nil) {
		t.Fatalf("%q: v1 parsed %v, regexp %v", body, l != nil, m != nil)
	}
	if m != nil && (l.Timestamp != string(m[1]) || l.Hash != string(m[2]) || l.Signature != string(m[3]) || l.Fingerprint != string(m[4]) || l.Provenance != string(m[5])) {
		t.Fatalf("%q: v1 fields %+v, regexp %q", body, l, m)
	}
	s := string(body)
	wantTag := -1
	if loc := directiveRE.FindStringIndex(s); loc != nil {
		wantTag = loc[0]
	}
	if got := directiveTag(s); got != wantTag {
		t.Fatalf("%q: directive tag at %d, regexp %d", s, got, wantTag)
	}
}

func TestGrammarMatchesRegexps(t *testing.T) {
	fields := ts + ":" + hash64 + ":" + sig88 + ":" + fp16
	bodies := []string{
		"", "v", "v2", "v2:", "v:", "v12:", "v02:x", "vv2:", "v2x:", "v9:" + fields,
		"v2:" + fields, "v2:" + fields + " ", "v2:" + fields + "|a@b", "v2:" + fields[:len(fields)-1],
		fields, fields + "|github@alice", fields + "|@alice", fields + "|alice@", fields + "|a@b@c", fields + "|a b@c",
		fields + "|", fields + "x", fields[1:], "X" + fields[1:],
		strings.Replace(fields, ":", "-", 1), strings.Replace(fields, "==", "=A", 1), strings.Replace(fields, "==", "A=", 1),
		strings.ToUpper(fields), strings.Replace(fields, "T", "t", 1), strings.Replace(fields, "2026", "２0", 1),
		ts + ":placeholder:unsigned:unsigned", ts + ":placeholder:unsigned:unsigned\n", "v2:" + ts + ":placeholder:unsigned:unsigned",
		ts[:19] + ":placeholder:unsigned:unsigned",
		"<directive>", "a <directive", "<directive x <directive>", "<directives><directive a>", "<direct>", "x <directive\n>",
	}
	for _, b := range bodies {
		checkGrammar(t, []byte(b))
	}
	// Every single-byte change of a valid line, in every position.
	for _, base := range []string{"v2:" + fields, fields + "|github@alice", ts + ":placeholder:unsigned:unsigned"} {
		for i := 0; i < len(base); i++ {
			for _, c := range []byte{'0', '9', 'a', 'f', 'g', 'A', 'Z', '_', '-', '=', ':', '|', '@', 'T', 'Z', ' ', 0xff} {
				b := []byte(base)
				b[i] = c
				checkGrammar(t, b)
			}
			checkGrammar(t, []byte(base[:i]))
			checkGrammar(t, []byte(base[:i]+base[i+1:]))
		}
	}
}

// FuzzGrammar: the hand-written parser agrees with the regular
// expressions on any input.
func FuzzGrammar(f *testing.F) {
	fields := ts + ":" + hash64 + ":" + sig88 + ":" + fp16
	for _, s := range []string{"v2:" + fields, fields + "|github@alice", ts + ":placeholder:unsigned:unsigned", "v12:", "<directive a>"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		checkGrammar(t, body)
	})
}
