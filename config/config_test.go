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
	if c.MinSignatureVersion != 1 || c.Sign.Format != "v2" {
		t.Errorf("%+v", c)
	}
}

func TestParseErrors(t *testing.T) {
	cases := map[string]string{
		"min_signature_versoin: 2\n": "field min_signature_versoin not found",
		"sign: {fromat: v1}\n":       "field fromat not found",
		"min_signature_version: 3\n": "is not 1 or 2",
		"sign: {format: v3}\n":       `"v3" is not v1 or v2`,
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

func TestLoadMerges(t *testing.T) {
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
	c, err := Load(user, project)
	if err != nil {
		t.Fatal(err)
	}
	if c.Sign.Format != "v1" || c.MinSignatureVersion != 2 || strings.Join(c.Lint.Disable, ",") != "secrets,ids" || c.Lint.Severity["chain"] != "error" {
		t.Errorf("%+v", c)
	}
	if c, err := Load("", filepath.Join(project, "missing")); err != nil || c.MinSignatureVersion != 0 {
		t.Errorf("missing: %+v %v", c, err)
	}
	write(project, "bogus: 1\n")
	if _, err := Load(user, project); err == nil || !strings.Contains(err.Error(), "bogus") {
		t.Errorf("unknown key: %v", err)
	}
}
