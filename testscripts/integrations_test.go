package testscripts

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
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
// annotations, optionally uploading SARIF. The check step's script is run
// with bash and a stand-in rye that records its arguments: with a base it
// checks against it without the cache; without one it fails (exit 2) and
// never checks the tree against its own keys.
func TestAction(t *testing.T) {
	data, err := os.ReadFile("../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var action struct {
		Runs struct {
			Using string `yaml:"using"`
			Steps []struct {
				Name string            `yaml:"name"`
				Uses string            `yaml:"uses"`
				Run  string            `yaml:"run"`
				Env  map[string]string `yaml:"env"`
			} `yaml:"steps"`
		} `yaml:"runs"`
	}
	if err := yaml.Unmarshal(data, &action); err != nil {
		t.Fatal(err)
	}
	if action.Runs.Using != "composite" {
		t.Errorf("using %q", action.Runs.Using)
	}
	uses := map[string]bool{}
	steps := map[string]string{}
	for _, s := range action.Runs.Steps {
		uses[strings.Split(s.Uses, "@")[0]] = true
		steps[s.Name] = s.Run
		if strings.HasPrefix(s.Name, "rye check") && !strings.Contains(s.Env["RYE_TRUST_REF"], "github.event.merge_group.base_sha") {
			t.Errorf("step %q does not take the merge queue's base: %q", s.Name, s.Env["RYE_TRUST_REF"])
		}
	}
	if !uses["actions/setup-go"] || !uses["github/codeql-action/upload-sarif"] || !strings.Contains(steps["Install rye from this action's ref"], "go install ./cmd/rye") {
		t.Errorf("steps use %v", uses)
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash to run the action's script")
	}
	bin := t.TempDir()
	log := filepath.Join(bin, "args")
	os.WriteFile(filepath.Join(bin, "rye"), []byte("#!/bin/sh\necho \"$@\" >> "+log+"\n"), 0o755)
	run := func(step, ref string) (string, int) {
		script := regexp.MustCompile(`\$\{\{[^}]*\}\}`).ReplaceAllString(steps[step], "push")
		cmd := exec.Command(bash, "-c", script)
		cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "RYE_TRUST_REF="+ref, "RYE_ARGS=tool", "RUNNER_TEMP="+bin)
		out, _ := cmd.CombinedOutput()
		return string(out), cmd.ProcessState.ExitCode()
	}
	os.Remove(log)
	out, code := run("rye check", "")
	if code != 2 || !strings.Contains(out, "::error title=rye::no base commit to trust") {
		t.Errorf("no base: exit %d, %q", code, out)
	}
	if _, err := os.Stat(log); err == nil {
		t.Error("rye ran without a base commit")
	}
	if out, code := run("rye check", "0000000000000000000000000000000000000000"); code != 2 {
		t.Errorf("a first push: exit %d, %q", code, out)
	}
	if out, code := run("rye check", "abc123"); code != 0 {
		t.Fatalf("with a base: exit %d, %q", code, out)
	}
	run("rye check (SARIF)", "abc123")
	got, _ := os.ReadFile(log)
	want := "check --trust-ref abc123 --no-cache --format github tool\ncheck --trust-ref abc123 --no-cache --format sarif tool\n"
	if string(got) != want {
		t.Errorf("rye ran with\n%s\nwant\n%s", got, want)
	}
}
