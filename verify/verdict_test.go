package verify

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryVerdictIsDescribed: every verdict has a description (the rule
// text of SARIF and JSON) and a section of docs/verify.md, which a
// failing verdict's help URL points at.
func TestEveryVerdictIsDescribed(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "verify.md"))
	if err != nil {
		t.Fatal(err)
	}
	headings := map[string]bool{}
	for _, line := range strings.Split(string(doc), "\n") {
		if h, ok := strings.CutPrefix(line, "## "); ok {
			headings[strings.TrimSpace(h)] = true
		}
	}
	for _, v := range Verdicts {
		if !headings[string(v)] {
			t.Errorf("docs/verify.md has no heading \"## %s\"", v)
		}
		if strings.TrimSpace(v.Description()) == "" {
			t.Errorf("%s has no description", v)
		}
	}
	if len(descriptions) != len(Verdicts) {
		t.Errorf("%d descriptions for %d verdicts", len(descriptions), len(Verdicts))
	}
}
