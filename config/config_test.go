package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDefaultParses(t *testing.T) {
	c, err := Parse("default", []byte(Default))
	if err != nil {
		t.Fatal(err)
	}
	if c.MinSignatureVersion != 2 || c.Sign.Format != "v2" {
		t.Errorf("%+v", c)
	}
}

func TestParseErrors(t *testing.T) {
	cases := map[string]string{
		"min_signature_versoin: 2\n": "field min_signature_versoin not found",
		"sign: {fromat: v1}\n":       "field fromat not found",
		"min_signature_version: 3\n": "is not 1 or 2",
		"sign: {format: v3}\n":       `"v3" is not v1, v2, ryeos or r1`,
		"lint: [a]\n":                "cannot unmarshal",
	}
	for src, want := range cases {
		_, err := Parse("rye.yaml", []byte(src))
		if err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "rye.yaml: ") {
			t.Errorf("%q: %v, want %q", src, err, want)
		}
	}
	if c, err := Parse("empty", nil); err != nil || c.MinSignatureVersion != 0 {
		t.Errorf("empty: %v %v", c, err)
	}
}

func TestLoadKeepsFilesApart(t *testing.T) {
	user, project := t.TempDir(), t.TempDir()
	write := func(root, data string) {
		p := filepath.Join(root, Path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(user, "sign: {format: v1}\nlint: {disable: [secrets], severity: {chain: warning}}\n")
	write(project, "min_signature_version: 2\nlint: {disable: [ids], severity: {chain: error}}\n")
	s, err := Load(user, project)
	if err != nil {
		t.Fatal(err)
	}
	base, tighten := s.Lint()
	if s.SignFormat() != "v1" || s.MinSignatureVersion() != 2 || strings.Join(base.Disable, ",") != "secrets,ids" || base.Severity["chain"] != "error" || tighten != nil {
		t.Errorf("%+v %+v %+v", s, base, tighten)
	}
	if s, err := Load("", filepath.Join(project, "missing")); err != nil || s.MinSignatureVersion() != 1 || s.Project != nil {
		t.Errorf("missing: %+v %v", s, err)
	}
	write(project, "bogus: 1\n")
	if _, err := Load(user, project); err == nil || !strings.Contains(err.Error(), "bogus") {
		t.Errorf("unknown key: %v", err)
	}
}

// The project's file can make checks stricter, never looser: a lower
// min_signature_version, a trust ref or project interpreters in it are not
// taken; under a trusted ref its lint settings come back apart.
func TestProjectFileOnlyTightens(t *testing.T) {
	parse := func(src string) *Config {
		c, err := Parse("x", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	s := &Settings{
		User:        parse("min_signature_version: 2\nverify: {trust_ref: main}\n"),
		Project:     parse("min_signature_version: 1\nverify: {trust_ref: HEAD}\nexecute: {project_interpreters: true, require_sandbox: true}\nlint: {disable: [secrets]}\n"),
		ProjectPath: "p/.ai/config/rye.yaml",
	}
	if s.MinSignatureVersion() != 2 || s.UserTrustRef() != "main" || s.IgnoredTrustRef() != "HEAD" || s.ProjectInterpreters() || s.RequireSandbox() {
		t.Errorf("min %d, ref %q, ignored %q, interpreters %v", s.MinSignatureVersion(), s.UserTrustRef(), s.IgnoredTrustRef(), s.ProjectInterpreters())
	}
	ig := s.Ignored()
	if len(ig) != 3 || ig[0].String() != `p/.ai/config/rye.yaml: verify.trust_ref ("HEAD") is ignored: the tree under check could rewrite it` || ig[1].Key != keyProjectInterpreters || strings.Contains(ig[1].String(), "(") || !strings.Contains(ig[2].String(), "execute.require_sandbox is ignored") {
		t.Errorf("ignored: %q", ig)
	}
	s.TrustRef = "main"
	s.Trusted = parse("lint: {severity: {chain: warning}}\n")
	base, tighten := s.Lint()
	if len(base.Disable) != 0 || base.Severity["chain"] != "warning" || tighten == nil || tighten.Disable[0] != "secrets" {
		t.Errorf("anchored lint: %+v %+v", base, tighten)
	}
	s.User.Execute.ProjectInterpreters = true
	if !s.ProjectInterpreters() {
		t.Error("the user's own choice of project interpreters is not taken")
	}
	s.User.Execute.RequireSandbox = true
	if !s.RequireSandbox() {
		t.Error("the user's own execute.require_sandbox is not taken")
	}
}

func TestReadRefusesHugeFiles(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, Path)
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte("# "+strings.Repeat("x", MaxSize)+"\n"), 0o644)
	if _, err := read(root); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("huge file: %v", err)
	}
}

// A billion-laughs document (aliases that expand exponentially) is an
// error, never a hang or an exhausted memory.
func TestParseRefusesAliasBombs(t *testing.T) {
	src := "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	prev := "a"
	for _, n := range []string{"b", "c", "d", "e", "f", "g", "h", "i"} {
		src += n + ": &" + n + " [*" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + "]\n"
		prev = n
	}
	src += "lint: {enable: *i}\n"
	if _, err := Parse("bomb.yaml", []byte(src)); err == nil {
		t.Error("an alias bomb parsed")
	}
}
