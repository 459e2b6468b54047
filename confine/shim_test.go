package confine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestShims: a pyenv-style shim script is found with its manager and the
// variables it exports, and resolved by asking the manager with them and
// the tool's folder; what is not a shim is not; a manager that answers
// with a shim, a relative path or nothing is an error that names the shim.
func TestShims(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, data string, mode os.FileMode) string {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(data), mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	real := write("versions/3.12/bin/python3", "#!/bin/sh\n", 0o755)
	// The manager answers from the exported root and the folder's
	// .python-version, as pyenv does.
	mgr := write("root/libexec/mgr", `#!/bin/sh
[ "$1" = which ] || exit 2
[ "$MGR_ROOT" = "`+dir+`/root" ] || { echo "no root" >&2; exit 1; }
v=$(cat .python-version 2>/dev/null || echo none)
case "$v" in
3.12) echo "`+real+`" ;;
shim) echo "`+dir+`/root/shims/python3" ;;
rel) echo "bin/python3" ;;
*) echo "no version $v" >&2; exit 1 ;;
esac
`, 0o755)
	shim := write("root/shims/python3", `#!/usr/bin/env bash
set -e
program="${0##*/}"
export MGR_ROOT="`+dir+`/root"
exec "`+mgr+`" exec "$program" "$@"
`, 0o755)
	plain := write("bin/python3", "#!/bin/sh\nexec /usr/bin/python3 \"$@\"\n", 0o755)
	notExec := write("other/shims/tool", "#!/bin/sh\necho hi\n", 0o755)

	s, ok := findShim(shim)
	if !ok || s.Manager != mgr || strings.Join(s.Which, " ") != "which python3" || strings.Join(s.Env, " ") != "MGR_ROOT="+dir+"/root" {
		t.Fatalf("FindShim(%s) = %+v, %v", shim, s, ok)
	}
	for _, p := range []string{plain, notExec, filepath.Join(dir, "missing/shims/x")} {
		if s, ok := findShim(p); ok {
			t.Errorf("%s taken for a shim: %+v", p, s)
		}
	}

	work := filepath.Join(dir, "project")
	os.MkdirAll(work, 0o755)
	env := []string{"PATH=/usr/bin:/bin"}
	resolve := func(version string) (string, error) {
		os.WriteFile(filepath.Join(work, ".python-version"), []byte(version), 0o644)
		return s.Resolve(work, env, nil)
	}
	if got, err := resolve("3.12"); err != nil || got != real {
		t.Errorf("resolved %q, %v; want %s", got, err, real)
	}
	for version, want := range map[string]string{
		"shim": "it named another shim",
		"rel":  "did not answer with one absolute path",
		"2.7":  "no version 2.7",
	} {
		if got, err := resolve(version); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), shim) {
			t.Errorf("%s: resolved %q, %v; want an error with %q", version, got, err, want)
		}
	}

	// A manager named by its bare name is looked up on the user's own
	// PATH, never on the tool's (which the tool's signer may set).
	write("path/asdf", "#!/bin/sh\necho "+real+"\n", 0o755)
	write("toolpath/asdf", "#!/bin/sh\necho /bin/sh\n", 0o755)
	asdfShim := write("asdf/shims/python3", "#!/usr/bin/env bash\n# asdf-plugin: python 3.12\nexec asdf exec \"python3\" \"$@\"\n", 0o755)
	s, ok = findShim(asdfShim)
	if !ok || s.Manager != "asdf" {
		t.Fatalf("asdf shim: %+v, %v", s, ok)
	}
	user := []string{"PATH=" + filepath.Join(dir, "path")}
	if got, err := s.Resolve(work, user, []string{"PATH=" + filepath.Join(dir, "toolpath")}); err != nil || got != real {
		t.Errorf("asdf: %q, %v", got, err)
	}
	if _, err := s.Resolve(work, []string{"PATH=/nonexistent"}, user); err == nil || !strings.Contains(err.Error(), "not on your PATH") {
		t.Errorf("asdf off PATH: %v", err)
	}
}

// Only variables that pick a version, with a value that names versions,
// pass from the tool's environment to the manager.
func TestShimVersionVariables(t *testing.T) {
	for name, want := range map[string]bool{
		"PYENV_VERSION": true, "RBENV_VERSION": true, "NODENV_VERSION": true, "ASDF_PYTHON_VERSION": true,
		"MISE_NODE_VERSION": true, "ASDF__VERSION": false, "MISE__VERSION": false,
		"PYENV_ROOT": false, "PYENV_HOOK_PATH": false, "BASH_ENV": false, "PATH": false, "ASDF_VERSION": false,
		"MISE_CONFIG_FILE": false, "MISE_python_VERSION": false, "ASDF_DATA_DIR": false,
	} {
		if got := versionVar(name); got != want {
			t.Errorf("versionVar(%s) = %v", name, got)
		}
	}
	for v, want := range map[string]bool{
		"3.12.1": true, "system": true, "3.12:3.11": true, "lts-iron": true, "pypy3.10-7.3.12": true,
		"": false, "../../evil": false, "/tmp/x": false, "-v": false, ".": false, "3.12 x": false, "$(id)": false,
	} {
		if got := versionValue(v); got != want {
			t.Errorf("versionValue(%q) = %v", v, got)
		}
	}
}
