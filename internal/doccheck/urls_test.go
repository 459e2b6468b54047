package doccheck

import (
	"regexp"
	"strings"
	"testing"
)

// The documentation URLs the code gives (a finding's rule help, SARIF's
// helpUri, a fix in a message) lead to a heading that exists: a rule that
// points at a section nobody wrote tells its reader nothing. Literal URLs
// into docs/, and the anchors verify's and lint's docURL are given as
// literals, are checked; every verdict's anchor too.
func TestCodeURLsResolve(t *testing.T) {
	d := docs(t)
	full := regexp.MustCompile(`github\.com/ryekit/rye/blob/main/(docs/[a-z0-9_/-]+\.md)#([a-z0-9-]+)`)
	short := regexp.MustCompile(`\b[dD]ocURL\("([a-z0-9-]+)"\)`)
	checked := 0
	for _, f := range files(t, ".go") {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src := read(t, f)
		for _, m := range full.FindAllStringSubmatchIndex(src, -1) {
			file, anchor := src[m[2]:m[3]], src[m[4]:m[5]]
			doc, ok := d[file]
			switch {
			case !ok:
				t.Errorf("%s:%d: links to %s, which does not exist", f, lineOf(src, m[0]), file)
			case !doc.anchors[anchor]:
				t.Errorf("%s:%d: links to %s#%s, which has no such heading", f, lineOf(src, m[0]), file, anchor)
			}
			checked++
		}
		target := map[string]string{"verify/": "docs/verify.md", "lint/": "docs/lint.md"}
		for prefix, file := range target {
			if !strings.HasPrefix(f, prefix) {
				continue
			}
			for _, m := range short.FindAllStringSubmatchIndex(src, -1) {
				if anchor := src[m[2]:m[3]]; !d[file].anchors[anchor] {
					t.Errorf("%s:%d: DocURL(%q) leads to %s#%s, which has no such heading", f, lineOf(src, m[0]), anchor, file, anchor)
				}
				checked++
			}
		}
	}
	// Every verdict is a heading of docs/verify.md (DocURL(string(verdict))).
	verdicts := regexp.MustCompile(`Verdict = "([a-z-]+)"`)
	for _, m := range verdicts.FindAllStringSubmatch(read(t, "verify/verdict.go"), -1) {
		if m[1] != "verified" && !d["docs/verify.md"].anchors[m[1]] {
			t.Errorf("verdict %s has no heading in docs/verify.md", m[1])
		}
		checked++
	}
	if checked < 20 {
		t.Fatalf("only %d URLs checked: the patterns no longer find the code's URLs", checked)
	}
}
