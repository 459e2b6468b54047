package testscripts

import (
	"io"
	"os"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/ryekit/rye/cmd/rye/cli"
)

// TestPreCommitHooks checks .pre-commit-hooks.yaml: the four hooks exist,
// run rye with the golang language on files under .ai/, and each entry is
// a rye command line that rye accepts.
func TestPreCommitHooks(t *testing.T) {
	data, err := os.ReadFile("../.pre-commit-hooks.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var hooks []struct {
		ID       string `yaml:"id"`
		Entry    string `yaml:"entry"`
		Language string `yaml:"language"`
		Files    string `yaml:"files"`
	}
	if err := yaml.Unmarshal(data, &hooks); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"rye-check": "rye check --staged", "rye-verify": "rye verify --staged", "rye-lint": "rye lint", "rye-sign": "rye sign"}
	if len(hooks) != len(want) {
		t.Errorf("%d hooks, want %d", len(hooks), len(want))
	}
	for _, h := range hooks {
		if want[h.ID] != h.Entry || h.Language != "golang" {
			t.Errorf("hook %s: entry %q language %q", h.ID, h.Entry, h.Language)
		}
		re, err := regexp.Compile(h.Files)
		if err != nil || !re.MatchString(".ai/tools/x/y.py") || re.MatchString("src/main.go") {
			t.Errorf("hook %s: files %q (%v)", h.ID, h.Files, err)
		}
		args := append(strings.Fields(h.Entry)[1:], "--help")
		if code := cli.Main(args, strings.NewReader(""), io.Discard, io.Discard); code != 0 {
			t.Errorf("hook %s: %q exits %d", h.ID, h.Entry, code)
		}
	}
}

// TestAction checks action.yml: a composite action that installs rye from
// its own ref and runs rye check against the base commit with GitHub
// annotations, optionally uploading SARIF.
func TestAction(t *testing.T) {
	data, err := os.ReadFile("../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var action struct {
		Runs struct {
			Using string `yaml:"using"`
			Steps []struct {
				Uses string `yaml:"uses"`
				Run  string `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"runs"`
	}
	if err := yaml.Unmarshal(data, &action); err != nil {
		t.Fatal(err)
	}
	if action.Runs.Using != "composite" {
		t.Errorf("using %q", action.Runs.Using)
	}
	var script strings.Builder
	uses := map[string]bool{}
	for _, s := range action.Runs.Steps {
		script.WriteString(s.Run + "\n")
		uses[strings.Split(s.Uses, "@")[0]] = true
	}
	for _, want := range []string{"go install ./cmd/rye", "rye check \"${trust[@]}\" --format github", "--trust-ref \"$RYE_TRUST_REF\"", "--format sarif"} {
		if !strings.Contains(script.String(), want) {
			t.Errorf("action.yml does not run %q", want)
		}
	}
	if !uses["actions/setup-go"] || !uses["github/codeql-action/upload-sarif"] {
		t.Errorf("steps use %v", uses)
	}
}
