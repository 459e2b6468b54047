package sign

import (
	"strings"
	"testing"
	"time"

	"github.com/ryekit/rye/item"
)

const (
	hash64 = "e38a83e87bee8863329ab2b437b88bfb0cd4449e86bb725f7d80895063dc81c6"
	sig88  = "FZypLieaDCyr0g-PCqjd-l6QMK_JAIdImZW9TQntoZv6pyo7La5KUiOdqY32_w1JGET23XAldzpOZ-T2CsOQDA=="
	fp16   = "f0ff50dacf109dea"
	ts     = "2026-02-21T05:56:40Z"
)

func TestFindClassifies(t *testing.T) {
	v2 := "rye:signed:v2:" + ts + ":" + hash64 + ":" + sig88 + ":" + fp16
	v1 := "rye:signed:" + ts + ":" + hash64 + ":" + sig88 + ":" + fp16
	cases := []struct {
		name, ext, src string
		want           status
		reason         string
	}{
		{"v2 python", ".py", "# " + v2 + "\nx = 1\n", Signed, ""},
		{"v2 after shebang", ".sh", "#!/bin/sh\n# " + v2 + "\necho\n", Signed, ""},
		{"v2 markdown", ".md", "<!-- " + v2 + " -->\n# x\n", Signed, ""},
		{"v2 js", ".js", "// " + v2 + "\n", Signed, ""},
		{"v1 with provenance", ".yaml", "# " + v1 + "|github@alice\na: 1\n", Signed, ""},
		{"v2 CRLF", ".py", "# " + v2 + "\r\nx = 1\r\n", Signed, ""},
		{"v2 without final newline", ".py", "# " + v2, Signed, ""},
		{"v2 after BOM", ".yaml", item.BOM + "# " + v2 + "\n", Signed, ""},
		{"no line", ".py", "x = 1\n", Unsigned, ""},
		{"empty file", ".md", "", Unsigned, ""},
		{"line not first", ".py", "\n# " + v2 + "\n", Unsigned, ""},
		{"placeholder", ".md", "<!-- rye:signed:" + ts + ":placeholder:unsigned:unsigned -->\n", Unsigned, ""},
		{"legacy", ".py", "# rye:validated:2026-02-02T00:00:00Z:placeholder\n", Unsigned, ""},
		{"YAML has no shebang", ".yaml", "#!/x\n# " + v2 + "\n", Unsigned, ""},
		{"unknown version", ".py", "# rye:signed:v9:" + ts + ":" + hash64 + ":" + sig88 + ":" + fp16 + "\n", Malformed, "unsupported signature version v9"},
		{"bad hash", ".py", "# rye:signed:v2:" + ts + ":nothex:" + sig88 + ":" + fp16 + "\n", Malformed, "does not match"},
		{"uppercase hash", ".py", "# rye:signed:v2:" + ts + ":" + strings.ToUpper(hash64) + ":" + sig88 + ":" + fp16 + "\n", Malformed, "does not match"},
		{"short signature", ".py", "# rye:signed:v2:" + ts + ":" + hash64 + ":" + sig88[2:] + ":" + fp16 + "\n", Malformed, "does not match"},
		{"two spaces", ".py", "#  " + v2 + "\n", Malformed, "exactly one space"},
		{"no space", ".py", "#" + v2 + "\n", Malformed, "exactly one space"},
		{"markdown without closer", ".md", "<!-- " + v2 + "\n", Malformed, `must end with " -->"`},
		{"trailing space", ".py", "# " + v2 + " \n", Malformed, "does not match"},
		{"bad timestamp", ".py", "# rye:signed:v2:2026-02-21 05:56:40:" + hash64 + ":" + sig88 + ":" + fp16 + "\n", Malformed, "does not match"},
		{"provenance on v2", ".py", "# " + v2 + "|github@alice\n", Malformed, "does not match"},
		{"duplicate", ".md", "<!-- " + v2 + " -->\n<!-- " + v2 + " -->\n", Duplicate, "second signature line"},
		{"duplicate placeholder after", ".py", "# " + v2 + "\n# rye:validated:x\n", Duplicate, ""},
		{"wrong envelope for the form", ".js", "# " + v2 + "\n", Unsigned, ""},
	}
	for _, c := range cases {
		f := Find([]byte(c.src), c.ext)
		if f.Status != c.want || !strings.Contains(f.Reason, c.reason) {
			t.Errorf("%s: %s %q, want %s %q", c.name, f.Status, f.Reason, c.want, c.reason)
		}
	}
}

func TestFindSpans(t *testing.T) {
	src := "#!/bin/sh\n# rye:signed:v2:" + ts + ":" + hash64 + ":" + sig88 + ":" + fp16 + "\r\necho\n"
	f := Find([]byte(src), ".sh")
	if src[f.Start:f.End] != src[10:strings.Index(src, "echo")] {
		t.Errorf("span %q", src[f.Start:f.End])
	}
	f = Find([]byte("#!/bin/sh\necho\n"), ".sh")
	if f.Start != 10 || f.End != 10 {
		t.Errorf("insert position %d..%d", f.Start, f.End)
	}
}

func TestEncodeRoundTrip(t *testing.T) {
	// .json, .mjs and .cjs are not items but files of RYE OS tool
	// packages that verify_deps verifies (spec 6.6).
	for _, ext := range []string{".md", ".py", ".yaml", ".yml", ".sh", ".toml", ".js", ".ts", ".json", ".mjs", ".cjs"} {
		for _, l := range []*line{
			{Format: V2, Timestamp: ts, Hash: hash64, Signature: sig88, Fingerprint: fp16},
			{Format: V1, Timestamp: ts, Hash: hash64, Signature: sig88, Fingerprint: fp16, Provenance: "registry@bob"},
		} {
			text, err := l.Encode(ext)
			if err != nil {
				t.Fatal(err)
			}
			f := Find([]byte(text+"body\n"), ext)
			if f.Status != Signed || *f.Line != *l || f.End != len(text) {
				t.Errorf("%s %s: %s %+v", ext, l.Format, f.Status, f.Line)
			}
		}
	}
	if _, err := (&line{Format: V2}).Encode(".txt"); err == nil {
		t.Error("encoded a line for .txt")
	}
}

func TestSignInsertsAndReplaces(t *testing.T) {
	key := vectorKey()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	src := []byte("#!/usr/bin/env bash\n# ---\n# version: \"1.0.0\"\n# ---\necho hi\n")
	once, err := Sign(key, V2, item.Tool, "a/b", ".sh", src, now)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(once), "\n")
	if lines[0] != "#!/usr/bin/env bash" || !strings.HasPrefix(lines[1], "# rye:signed:v2:2026-03-01T12:00:00Z:") {
		t.Fatalf("signed:\n%s", once)
	}
	if strings.Join(append(lines[:1:1], lines[2:]...), "\n") != string(src) {
		t.Error("signing changed other bytes")
	}
	// Re-signing replaces the line; v1 then v2 again.
	v1, err := Sign(key, V1, item.Tool, "a/b", ".sh", once, now.Add(time.Hour))
	if err != nil || !SignedBy(key, V1, item.Tool, "a/b", ".sh", v1) || SignedBy(key, V2, item.Tool, "a/b", ".sh", v1) {
		t.Fatalf("v1: %v\n%s", err, v1)
	}
	if strings.Count(string(v1), "rye:signed:") != 1 {
		t.Error("re-signing added a line")
	}
	// A placeholder is replaced; a duplicate is refused.
	ph := []byte("<!-- rye:signed:" + ts + ":placeholder:unsigned:unsigned -->\n```xml\n<directive name=\"b\"></directive>\n```\n")
	out, err := Sign(key, V2, item.Directive, "a/b", ".md", ph, now)
	if err != nil || strings.Contains(string(out), "placeholder") {
		t.Errorf("placeholder: %v\n%s", err, out)
	}
	dup := append(append([]byte{}, once[:strings.Index(string(once), "\n# ---")+1]...), once[strings.Index(string(once), "# rye"):]...)
	if _, err := Sign(key, V2, item.Tool, "a/b", ".sh", dup, now); err != errDuplicate {
		t.Errorf("duplicate: %v", err)
	}
	// SignedBy checks the id: the same bytes at another id are not signed.
	if SignedBy(key, V2, item.Tool, "a/c", ".sh", once) {
		t.Error("SignedBy ignores the id")
	}
	// v1 of a directive without a <directive> element cannot be hashed.
	if _, err := Sign(key, V1, item.Directive, "a/b", ".md", []byte("# no xml\n"), now); err != errNoDirective {
		t.Errorf("v1 without directive: %v", err)
	}
	if _, err := hashV1(item.Tool, []byte("x = '\xff'\n"), 0, 0); err != ErrNotUTF8 {
		t.Errorf("not UTF-8: %v", err)
	}
}

func TestHashInputV1Edges(t *testing.T) {
	cases := []struct {
		kind     item.Kind
		ext, src string
		want     string
	}{
		{item.Knowledge, ".md", "---\nid: x\n---\n\n body \n", "body"},
		{item.Knowledge, ".md", "---\nno closing", "-\nno closing"}, // Python: find() = -1
		{item.Knowledge, ".md", "\x1c---\n", "\x1c---\n"},           // no --- at the start: verbatim
		{item.Knowledge, ".md", "---\n---\x1f", ""},                 // \x1f is Python whitespace
		{item.Directive, ".md", "</directive> <directive a> x", ""},
		{item.Directive, ".md", "p <directives>\n<directive n=\"1\">b</directive>\nz</directive>\n", "<directives>\n<directive n=\"1\">b</directive>\nz</directive>"},
		{item.Tool, ".py", "#!/x\r\n# rye:signed:whatever\r\na\rb\r\n", "a\nb\n"},
		{item.Tool, ".py", "#!/only", ""},
	}
	for _, c := range cases {
		f := Find([]byte(c.src), c.ext)
		got, err := hashInputV1(c.kind, []byte(c.src), f.Start, f.End)
		if err != nil || got != c.want {
			t.Errorf("%s %q: %q %v, want %q", c.kind, c.src, got, err, c.want)
		}
	}
}

// A #! line that a legacy signature leaves out may hold no line break an
// interpreter honours (Python: a lone '\r'; Node: '\r', U+2028, U+2029):
// code after it would run under the signature. A CRLF line end is fine,
// and v2, which covers the line, is not concerned.
func TestFindHiddenBreakInShebang(t *testing.T) {
	hash := strings.Repeat("a", 64)
	sig := strings.Repeat("A", 86) + "=="
	ryeos := "# ryeos:signed:2026-08-01T12:00:00Z:" + hash + ":" + sig + ":" + hash + "\n"
	v1 := "// rye:signed:2026-01-01T00:00:00Z:" + hash + ":" + strings.Repeat("A", 86) + ":0123456789abcdef\n"
	for _, c := range []struct {
		name, src, ext string
		want           status
	}{
		{"ryeos plain", "#!/usr/bin/env python3\n" + ryeos + "x = 1\n", ".py", Signed},
		{"ryeos crlf", "#!/usr/bin/env python3\r\n" + ryeos + "x = 1\n", ".py", Signed},
		{"ryeos lone cr", "#!/usr/bin/env python3\rimport os\n" + ryeos + "x = 1\n", ".py", Malformed},
		{"ryeos cr before crlf", "#!/usr/bin/env python3\rimport os\r\n" + ryeos, ".py", Malformed},
		{"ryeos bom and cr", item.BOM + "#!/x\ry\n" + ryeos, ".py", Unsigned}, // a BOM hides a Rust line anyway
		{"v1 line separator", "#!/usr/bin/env node\u2028evil()\n" + v1 + "x()\n", ".js", Malformed},
		{"v1 paragraph separator", "#!/usr/bin/env node\u2029evil()\n" + v1, ".js", Malformed},
		{"v1 plain", "#!/usr/bin/env node\n" + v1, ".js", Signed},
	} {
		if got := Find([]byte(c.src), c.ext); got.Status != c.want {
			t.Errorf("%s: status %v (%s), want %v", c.name, got.Status, got.Reason, c.want)
		}
	}
}

// rye signs no file whose #! line its signature would leave out with such
// a break in it: the result would not verify. v2 covers the line, and r1
// and ryeos outside Python put their line above it.
func TestSignRefusesHiddenBreakInShebang(t *testing.T) {
	key := vectorKey()
	now := time.Date(2026, 8, 1, 12, 0, 0, 0, time.UTC)
	py := []byte("#!/usr/bin/env python3\rimport os\n# ryeos-tool:\n#   category: a\nx = 1\n")
	js := []byte("#!/usr/bin/env node\u2028evil()\nx()\n")
	if _, _, err := signRyeOS(key, ".py", py, now); err == nil || !strings.Contains(err.Error(), "U+000D") {
		t.Errorf("ryeos .py: %v", err)
	}
	if _, err := Sign(key, V1, item.Tool, "a/b", ".js", js, now); err == nil || !strings.Contains(err.Error(), "U+2028") {
		t.Errorf("v1 .js: %v", err)
	}
	if _, err := Sign(key, V1, item.Tool, "a/b", ".py", py, now); err != nil {
		t.Errorf("v1 .py with a lone CR (covered once normalised): %v", err)
	}
	if out, err := Sign(key, V2, item.Tool, "a/b", ".js", js, now); err != nil || !SignedBy(key, V2, item.Tool, "a/b", ".js", out) {
		t.Errorf("v2 .js: %v", err)
	}
	if out, err := signR1(key, ".py", py, now); err != nil || Find(out, ".py").Status != Signed {
		t.Errorf("r1 .py (line 1, covering the #! line): %v", err)
	}
}
