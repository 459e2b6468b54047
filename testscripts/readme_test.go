package testscripts

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ryekit/rye/cmd/rye/cli"
	"github.com/ryekit/rye/config"
	"github.com/ryekit/rye/internal/cleancopy"
)

// TestReadmeQuickstart runs every `go run ./cmd/rye ...` line of the
// README's Quickstart section, in-process, on a copy of the example
// project: the quickstart must keep working as the code changes. A line
// whose comment says it needs python3 is skipped without python3.
func TestReadmeQuickstart(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## Quickstart\n")
	if !ok {
		t.Fatal("README has no Quickstart section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	example := filepath.Join(t.TempDir(), "hello")
	if err := cleancopy.Copy(example, "../examples/hello"); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USER_SPACE", "")
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, "cache"))
	t.Setenv("RYE_SYSTEM_PATH", "")
	_, noPython := exec.LookPath("python3")
	ran := 0
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "go run ./cmd/rye ") {
			continue
		}
		command, comment, _ := strings.Cut(line, "#")
		if strings.Contains(comment, "needs python3") && noPython != nil {
			t.Logf("skipped without python3: %s", line)
			continue
		}
		args := strings.Fields(command)[3:]
		for i, a := range args {
			if a == "examples/hello" {
				args[i] = example
			}
		}
		var stdout, stderr bytes.Buffer
		if code := cli.Main(args, strings.NewReader(""), &stdout, &stderr); code != 0 {
			t.Errorf("%s\nexit %d\n%s%s", line, code, stdout.String(), stderr.String())
		}
		// The first command is the main one: it runs a tool of the example
		// and prints the result of spec 3.8.
		if ran == 0 && (!strings.Contains(line, " execute tool ") || !strings.Contains(stdout.String(), `"status": "success"`) || !strings.Contains(stdout.String(), `"verdict": "verified"`)) {
			t.Errorf("the quickstart's first command does not run a verified tool: %s\n%s", line, stdout.String())
		}
		ran++
	}
	if ran < 2 {
		t.Errorf("only %d quickstart commands found", ran)
	}
}

// TestConfigTemplate keeps the configuration file rye init writes, and the
// example project's copy of it, pointing at documentation that exists:
// every docs/*.md they name is there, and a README section they name is a
// heading of the README.
func TestConfigTemplate(t *testing.T) {
	example, err := os.ReadFile("../examples/hello/.ai/config/rye.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if string(example) != config.Default {
		t.Errorf("examples/hello/.ai/config/rye.yaml is not what rye init writes:\n%s", example)
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`docs/[a-z-]+\.md`).FindAllString(config.Default, -1) {
		if _, err := os.Stat("../" + m); err != nil {
			t.Errorf("the template names %s: %v", m, err)
		}
	}
	for _, m := range regexp.MustCompile(`README, "([^"]+)"`).FindAllStringSubmatch(config.Default, -1) {
		if !regexp.MustCompile(`(?m)^#+ ` + regexp.QuoteMeta(m[1]) + `$`).Match(readme) {
			t.Errorf("the template names the README section %q, which does not exist", m[1])
		}
	}
	if !strings.Contains(config.Default, "docs/configuration.md") {
		t.Error("the template does not point to docs/configuration.md")
	}
}

// TestReadmeInstallSaysTheGoVersion: the README's Install section names
// the Go version go.mod requires (an older Go refuses to build rye under
// GOTOOLCHAIN=local), and the three ways in.
func TestReadmeInstallSaysTheGoVersion(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(gomod)
	if m == nil {
		t.Fatal("go.mod has no go line")
	}
	_, section, ok := strings.Cut(string(readme), "\n## Install\n")
	if !ok {
		t.Fatal("README has no Install section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	for _, want := range []string{
		"**Go " + string(m[1]) + "**",
		"rye version verify",
		"go install github.com/ryekit/rye/cmd/...@",
		"uses: ryekit/rye@",
	} {
		if !strings.Contains(section, want) {
			t.Errorf("the Install section does not say %q", want)
		}
	}
}
