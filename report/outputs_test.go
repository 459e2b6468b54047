package report

import (
	"strings"
	"testing"
)

// TestParseOutputs: the standard output's format and each FORMAT=FILE,
// refused with what is wrong and which spec says it.
func TestParseOutputs(t *testing.T) {
	outs, err := ParseOutputs("github", []string{"sarif=a.sarif", "json=out/r.json"})
	if err != nil || len(outs) != 3 || outs[0] != (Output{Format: "github"}) || outs[2] != (Output{Format: "json", File: "out/r.json"}) {
		t.Fatalf("%v, %v", outs, err)
	}
	for _, c := range []struct {
		format string
		specs  []string
		spec   string
		why    string
	}{
		{"xml", nil, "", "use text, json, sarif or github"},
		{"text", []string{"sarif"}, "sarif", "write FORMAT=FILE"},
		{"text", []string{"sarif="}, "sarif=", "write FORMAT=FILE"},
		{"text", []string{"pdf=x"}, "pdf=x", "the format is one of text, json, sarif or github"},
		{"text", []string{"json=-"}, "json=-", "standard output has --format"},
		{"text", []string{"json=a", "sarif=./a"}, "sarif=./a", "./a is written once"},
	} {
		_, err := ParseOutputs(c.format, c.specs)
		oe, ok := err.(*OutputError)
		if !ok || oe.Spec != c.spec || !strings.Contains(oe.Why, c.why) {
			t.Errorf("%s %v: %#v", c.format, c.specs, err)
		}
	}
}
