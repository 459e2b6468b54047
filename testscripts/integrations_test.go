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
// run rye with the golang language on files under every .ai/ folder, at
// any depth, and each entry is a rye command line that rye accepts; each
// has a language: system twin (rye-check-system, ...) with the same
// entry, files and serial run, for a rye installed on PATH.
func TestPreCommitHooks(t *testing.T) {
	data, err := os.ReadFile("../.pre-commit-hooks.yaml")
	if err != nil {
		t.Fatal(err)
	}
	type hook struct {
		ID            string `yaml:"id"`
		Entry         string `yaml:"entry"`
		Language      string `yaml:"language"`
		Files         string `yaml:"files"`
		RequireSerial bool   `yaml:"require_serial"`
	}
	var hooks []hook
	if err := yaml.Unmarshal(data, &hooks); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"rye-check": "rye check --staged", "rye-verify": "rye verify --staged", "rye-lint": "rye lint --no-verify", "rye-sign": "rye sign"}
	if len(hooks) != 2*len(want) {
		t.Errorf("%d hooks, want %d (each golang hook and its -system twin)", len(hooks), 2*len(want))
	}
	byID := map[string]hook{}
	for _, h := range hooks {
		byID[h.ID] = h
	}
	for _, h := range hooks {
		id, system := strings.CutSuffix(h.ID, "-system")
		language := map[bool]string{false: "golang", true: "system"}[system]
		if want[id] != h.Entry || h.Language != language {
			t.Errorf("hook %s: entry %q language %q", h.ID, h.Entry, h.Language)
		}
		if twin, ok := byID[id+"-system"]; !system && (!ok || twin.Entry != h.Entry || twin.Files != h.Files || twin.RequireSerial != h.RequireSerial) {
			t.Errorf("hook %s: its -system twin %+v differs from it (%+v)", h.ID, twin, h)
		}
		re, err := regexp.Compile(h.Files)
		if err != nil || !re.MatchString(".ai/tools/x/y.py") || !re.MatchString("packages/a/.ai/tools/x/y.py") || re.MatchString("src/main.go") || re.MatchString("src/x.ai/tools/y.py") {
			t.Errorf("hook %s: files %q (%v)", h.ID, h.Files, err)
		}
		args := append(strings.Fields(h.Entry)[1:], "--help")
		if code := cli.Main(args, strings.NewReader(""), io.Discard, io.Discard); code != 0 {
			t.Errorf("hook %s: %q exits %d", h.ID, h.Entry, code)
		}
	}
}

// TestAction checks action.yml: a composite action that installs rye with
// action/install.sh (a checked release binary, or a build from its own
// source with setup-go only then; install_test.go tests the script) and
// runs that rye's check once against the base commit, with GitHub
// annotations and, when asked, a SARIF file from the same run that the
// upload step then takes. The check step's script is run with bash and a
// stand-in rye that records its arguments, writes the SARIF file it is
// given and exits as told: with a base it checks against it without the
// cache, and its exit code is the step's; without one it fails (exit 2)
// and never checks the tree against its own keys.
func TestAction(t *testing.T) {
	data, err := os.ReadFile("../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	type step struct {
		Name string            `yaml:"name"`
		ID   string            `yaml:"id"`
		Uses string            `yaml:"uses"`
		If   string            `yaml:"if"`
		Run  string            `yaml:"run"`
		Env  map[string]string `yaml:"env"`
		With map[string]string `yaml:"with"`
	}
	var action struct {
		Inputs map[string]struct {
			Default string `yaml:"default"`
		} `yaml:"inputs"`
		Runs struct {
			Using string `yaml:"using"`
			Steps []step `yaml:"steps"`
		} `yaml:"runs"`
	}
	if err := yaml.Unmarshal(data, &action); err != nil {
		t.Fatal(err)
	}
	if action.Runs.Using != "composite" {
		t.Errorf("using %q", action.Runs.Using)
	}
	uses := map[string]step{}
	steps := map[string]step{}
	runsRye := 0
	for _, s := range action.Runs.Steps {
		uses[strings.Split(s.Uses, "@")[0]] = s
		steps[s.Name] = s
		if strings.Contains(s.Run, `"$RYE" check`) {
			runsRye++
		}
	}
	check := steps["rye check"]
	if runsRye != 1 || check.ID == "" {
		t.Fatalf("%d steps run rye check (want one, with an id)", runsRye)
	}
	if !strings.Contains(check.Env["RYE_TRUST_REF"], "github.event.merge_group.base_sha") {
		t.Errorf("the check does not take the merge queue's base: %q", check.Env["RYE_TRUST_REF"])
	}
	upload := uses["github/codeql-action/upload-sarif"]
	if upload.With["sarif_file"] != "${{ steps."+check.ID+".outputs.sarif }}" || !strings.Contains(upload.If, "steps."+check.ID+".outputs.sarif != ''") || !strings.Contains(upload.If, "always()") {
		t.Errorf("the upload step does not take the check's SARIF file: if %q, with %v", upload.If, upload.With)
	}
	plan, install := action.Runs.Steps[0], action.Runs.Steps[2]
	if plan.ID != "plan" || !strings.Contains(plan.Run, `action/install.sh" plan >> "$GITHUB_OUTPUT"`) ||
		uses["actions/setup-go"].If != "steps.plan.outputs.mode == 'build'" ||
		install.ID != "install" || !strings.Contains(install.Run, `action/install.sh" install "$RUNNER_TEMP/rye-bin" >> "$GITHUB_OUTPUT"`) ||
		check.Env["RYE"] != "${{ steps.install.outputs.rye }}" {
		t.Errorf("the action does not plan, set up Go only to build, install, and check with the installed rye: %+v", action.Runs.Steps)
	}
	for _, s := range []step{plan, install} {
		if s.Env["RYE_ACTION_REF"] != "${{ github.action_ref }}" || s.Env["RYE_VERSION"] != "${{ inputs.version }}" {
			t.Errorf("step %s does not pass the action's ref and version input: %v", s.Name, s.Env)
		}
	}
	for _, in := range []string{"trust-ref", "args", "working-directory", "all-projects", "sarif", "version"} {
		if _, ok := action.Inputs[in]; !ok {
			t.Errorf("no input %s", in)
		}
	}
	for _, in := range []string{"all-projects", "sarif"} {
		if !strings.Contains(check.Env["RYE_"+strings.ToUpper(strings.ReplaceAll(in, "-", "_"))], "inputs."+in) {
			t.Errorf("the check step does not read input %s: %v", in, check.Env)
		}
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash to run the action's script")
	}
	bin := t.TempDir()
	log := filepath.Join(bin, "args")
	// The stand-in rye: records its arguments, writes the file after
	// --sarif, exits with $RYE_EXIT.
	os.WriteFile(filepath.Join(bin, "rye"), []byte(`#!/bin/sh
echo "$@" >> `+log+`
while [ $# -gt 0 ]; do
  if [ "$1" = --sarif ]; then echo '{"version":"2.1.0","runs":[]}' > "$2"; fi
  shift
done
exit "${RYE_EXIT:-0}"
`), 0o755)
	run := func(ref, sarif, all, exit string) (string, int, string) {
		script := regexp.MustCompile(`\$\{\{[^}]*\}\}`).ReplaceAllString(check.Run, "push")
		output := filepath.Join(bin, "output")
		os.Remove(output)
		cmd := exec.Command(bash, "-c", script)
		cmd.Env = append(os.Environ(), "RYE="+filepath.Join(bin, "rye"), "RYE_TRUST_REF="+ref, "RYE_ARGS=tool", "RUNNER_TEMP="+bin,
			"RYE_SARIF="+sarif, "RYE_ALL_PROJECTS="+all, "RYE_EXIT="+exit, "GITHUB_OUTPUT="+output)
		out, _ := cmd.CombinedOutput()
		got, _ := os.ReadFile(output)
		return string(out), cmd.ProcessState.ExitCode(), string(got)
	}
	os.Remove(log)
	out, code, _ := run("", "true", "false", "0")
	if code != 2 || !strings.Contains(out, "::error title=rye::no base commit to trust") {
		t.Errorf("no base: exit %d, %q", code, out)
	}
	if _, err := os.Stat(log); err == nil {
		t.Error("rye ran without a base commit")
	}
	if out, code, _ := run("0000000000000000000000000000000000000000", "false", "false", "0"); code != 2 {
		t.Errorf("a first push: exit %d, %q", code, out)
	}
	if out, code, output := run("abc123", "false", "false", "0"); code != 0 || output != "" {
		t.Fatalf("with a base: exit %d, %q, outputs %q", code, out, output)
	}
	// Findings: the step fails with rye's code, and the SARIF file of the
	// same run is handed to the upload step.
	out, code, output := run("abc123", "true", "true", "1")
	if code != 1 || output != "sarif="+filepath.Join(bin, "rye.sarif")+"\n" {
		t.Fatalf("with findings and sarif: exit %d, %q, outputs %q", code, out, output)
	}
	if _, err := os.Stat(filepath.Join(bin, "rye.sarif")); err != nil {
		t.Error(err)
	}
	got, _ := os.ReadFile(log)
	want := "check --trust-ref abc123 --no-cache --format github tool\n" +
		"check --trust-ref abc123 --no-cache --format github --sarif " + filepath.Join(bin, "rye.sarif") + " --all-projects tool\n"
	if string(got) != want {
		t.Errorf("rye ran with\n%s\nwant\n%s", got, want)
	}
	// The patterns of args are rye's, not the shell's: a glob reaches rye
	// as written, so a file of the change named like a flag (in the folder
	// the check starts in) never becomes one: --trust-ref=HEAD would have
	// the change trust its own keys.
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "--trust-ref=HEAD"), nil, 0o644)
	os.Remove(log)
	cmd := exec.Command(bash, "-c", regexp.MustCompile(`\$\{\{[^}]*\}\}`).ReplaceAllString(check.Run, "push"))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "RYE="+filepath.Join(bin, "rye"), "RYE_TRUST_REF=abc123", "RYE_ARGS=tool ** --require v2", "RUNNER_TEMP="+bin,
		"RYE_SARIF=false", "RYE_ALL_PROJECTS=false", "RYE_EXIT=0", "GITHUB_OUTPUT="+filepath.Join(bin, "output"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("args with a glob: %v, %s", err, out)
	}
	got, _ = os.ReadFile(log)
	if want := "check --trust-ref abc123 --no-cache --format github tool ** --require v2\n"; string(got) != want {
		t.Errorf("args with a glob: rye ran with\n%s\nwant\n%s", got, want)
	}
}
