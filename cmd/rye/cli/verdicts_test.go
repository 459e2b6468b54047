package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ryekit/rye/verify"
)

// TestEveryVerdictIsDescribed: every failing verdict has a rule
// description (SARIF, JSON) and a section of docs/verify.md, which the
// rule's help URL points at; verified has its section too.
func TestEveryVerdictIsDescribed(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "verify.md"))
	if err != nil {
		t.Fatal(err)
	}
	headings := map[string]bool{}
	for _, line := range strings.Split(string(doc), "\n") {
		if h, ok := strings.CutPrefix(line, "## "); ok {
			headings[strings.TrimSpace(h)] = true
		}
	}
	for _, v := range verify.Verdicts {
		if !headings[string(v)] {
			t.Errorf("docs/verify.md has no heading \"## %s\"", v)
		}
		if v == verify.Verified {
			if _, ok := verdictRules[v]; ok {
				t.Error("verdictRules describes verified, which is not a finding")
			}
			continue
		}
		if strings.TrimSpace(verdictRules[v]) == "" {
			t.Errorf("verdictRules has no entry for %s", v)
		}
	}
	if len(verdictRules) != len(verify.Verdicts)-1 {
		t.Errorf("verdictRules has %d entries for %d failing verdicts", len(verdictRules), len(verify.Verdicts)-1)
	}
}
