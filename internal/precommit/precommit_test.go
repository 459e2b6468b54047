package precommit

import (
	"errors"
	"path/filepath"
	"testing"
)

func TestHook(t *testing.T) {
	env := map[string]string{"PRE_COMMIT": "1"}
	if !Hook(func(k string) string { return env[k] }) {
		t.Error("PRE_COMMIT=1 is not a hook")
	}
	env["PRE_COMMIT"] = "true"
	if Hook(func(k string) string { return env[k] }) {
		t.Error("only PRE_COMMIT=1 is pre-commit's")
	}
}

func TestPath(t *testing.T) {
	home := t.TempDir()
	noPath := func(string) (string, error) { return "", errors.New("not on PATH") }
	noExe := func() (string, error) { return "", errors.New("unknown") }
	homeIs := func(h string) func() (string, error) { return func() (string, error) { return h, nil } }
	bin := filepath.Join(home, ".cache", "pre-commit", "repo1", "bin", "rye")
	for _, c := range []struct {
		name string
		self self
		want string
	}{
		{"a path in the home folder", self{Arg0: bin, LookPath: noPath, Executable: noExe, Home: homeIs(home)}, "~/.cache/pre-commit/repo1/bin/rye"},
		{"a path elsewhere", self{Arg0: "/opt/rye/bin/rye", LookPath: noPath, Executable: noExe, Home: homeIs(home)}, "/opt/rye/bin/rye"},
		{"no home folder", self{Arg0: bin, LookPath: noPath, Executable: noExe, Home: homeIs("")}, bin},
		{"the home folder's parent", self{Arg0: filepath.Dir(home) + "/rye", LookPath: noPath, Executable: noExe, Home: homeIs(home)}, filepath.Dir(home) + "/rye"},
		{"a name on PATH", self{Arg0: "rye", LookPath: func(string) (string, error) { return "/usr/local/bin/rye", nil }, Executable: noExe, Home: homeIs(home)}, "/usr/local/bin/rye"},
		{"what the system says", self{Arg0: "rye", LookPath: noPath, Executable: func() (string, error) { return bin, nil }, Home: homeIs(home)}, "~/.cache/pre-commit/repo1/bin/rye"},
		{"nobody knows", self{Arg0: "rye", LookPath: noPath, Executable: noExe, Home: homeIs(home)}, ""},
	} {
		if got := c.self.Path(); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
