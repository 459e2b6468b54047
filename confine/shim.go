package confine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Version managers (pyenv, rbenv, nodenv, asdf, mise) put shims on PATH:
// a python3 that is a small script, or a link to the manager, which picks
// an installation (from the folder's .python-version, an environment
// variable, the global setting) and runs it from a folder below the home
// folder. Confined, a shim fails: the manager's own files, and the
// installation it picks, are none of what the sandbox opens, and picking
// may start subprocesses. So a confined run asks the manager, before
// anything is confined, which program the shim would run, in the tool's
// working folder, with the user's own environment and the tool's version
// variables (so it picks what the shim would, and runs nothing the tool's
// signer chose), and runs that program instead; its installation is then
// granted as any interpreter's.

// shimTimeout bounds the manager's answer.
const shimTimeout = 10 * time.Second

// shim is a version manager's shim and the manager that answers for it.
type shim struct {
	Path    string   // the shim, as found on PATH
	Manager string   // the manager's program
	Which   []string // its arguments that print the program the shim runs
	// Env are the variables the shim script sets before it hands over
	// (pyenv's PYENV_ROOT): the manager answers for the shim only with
	// them.
	Env []string
}

// findShim reports whether program (a path found on PATH) is a version
// manager's shim: a file in a folder named shims that is either a script
// ending in `exec MANAGER exec PROGRAM` (pyenv, rbenv, nodenv, asdf) or a
// link to a program named mise. ok is false for anything else, which is
// run as it is.
func findShim(program string) (s shim, ok bool) {
	if filepath.Base(filepath.Dir(program)) != "shims" {
		return shim{}, false
	}
	name := filepath.Base(program)
	if real, err := filepath.EvalSymlinks(program); err == nil && real != program && filepath.Base(real) == "mise" {
		return shim{Path: program, Manager: real, Which: []string{"which", name}}, true
	}
	f, err := os.Open(program)
	if err != nil {
		return shim{}, false
	}
	defer f.Close()
	head := make([]byte, 4096)
	n, _ := f.Read(head)
	head = head[:n]
	if !bytes.HasPrefix(head, []byte("#!")) {
		return shim{}, false
	}
	manager, env := shimManager(string(head))
	if manager == "" {
		return shim{}, false
	}
	return shim{Path: program, Manager: manager, Which: []string{"which", name}, Env: env}, true
}

// shimManager is the program a shim script hands over to: the first word
// after "exec" on the line that execs it with "exec" as that program's
// own sub-command (`exec "/home/u/.pyenv/libexec/pyenv" exec "$program"
// "$@"`, `exec asdf exec "python3" "$@"`), "" when there is none; and the
// variables the script exports with a literal value before that line
// (`export PYENV_ROOT="/home/u/.pyenv"`).
func shimManager(script string) (manager string, env []string) {
	for line := range strings.SplitSeq(script, "\n") {
		f := strings.Fields(strings.TrimSpace(line))
		if len(f) == 2 && f[0] == "export" {
			name, value, ok := strings.Cut(f[1], "=")
			value = strings.Trim(value, `"'`)
			if ok && name != "" && !strings.ContainsAny(value, "$`\\") {
				env = append(env, name+"="+value)
			}
			continue
		}
		if len(f) < 3 || f[0] != "exec" || f[2] != "exec" {
			continue
		}
		m := strings.Trim(f[1], `"'`)
		if m == "" || strings.ContainsAny(m, "$`") {
			continue
		}
		return m, env
	}
	return "", nil
}

// Resolve asks the manager which program the shim runs for a process in
// dir. The answer must be an absolute path to an executable file that is
// not itself in a shims folder.
//
// The manager runs unconfined, so it runs with the user's own environment
// (userEnv: rye's, without its secrets), never with the tool's: the
// tool's comes partly from its chain's env_config, which the tool's signer
// wrote, and a BASH_ENV, a PATH or a manager's hook folder there would run
// that signer's code outside the sandbox. Of the tool's environment only
// the variables that pick a version (versionVar) are passed, with a value
// that names a version and nothing else.
func (s shim) Resolve(dir string, userEnv, toolEnv []string) (string, error) {
	env := append([]string(nil), userEnv...)
	for _, kv := range toolEnv {
		if name, value, _ := strings.Cut(kv, "="); versionVar(name) && versionValue(value) {
			env = append(env, kv)
		}
	}
	env = append(env, s.Env...)
	manager := s.Manager
	if !filepath.IsAbs(manager) {
		p, err := lookPathIn(manager, env)
		if err != nil {
			return "", fmt.Errorf("the interpreter %s is a shim of %s, which is not on your PATH: %v", s.Path, manager, err)
		}
		manager = p
	}
	ctx, cancel := context.WithTimeout(context.Background(), shimTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, manager, s.Which...)
	cmd.Dir, cmd.Env = dir, env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	what := fmt.Sprintf("the interpreter %s is a shim of %s; asked which program it runs (%s %s)", s.Path, filepath.Base(manager), filepath.Base(manager), strings.Join(s.Which, " "))
	if err != nil {
		return "", fmt.Errorf("%s, it failed: %v %s", what, err, strings.TrimSpace(stderr.String()))
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	p := strings.TrimSpace(lines[len(lines)-1])
	info, statErr := os.Stat(p)
	switch {
	case len(lines) != 1 || !filepath.IsAbs(p):
		return "", fmt.Errorf("%s, it did not answer with one absolute path: %q", what, strings.TrimSpace(string(out)))
	case statErr != nil:
		return "", fmt.Errorf("%s, it named %s: %v", what, p, statErr)
	case !info.Mode().IsRegular() || info.Mode().Perm()&0o111 == 0:
		return "", fmt.Errorf("%s, it named %s, which is not an executable file", what, p)
	case filepath.Base(filepath.Dir(p)) == "shims":
		return "", fmt.Errorf("%s, it named another shim, %s", what, p)
	}
	return p, nil
}

// versionVar reports whether name is a version manager's variable that
// picks a version: PYENV_VERSION, RBENV_VERSION, NODENV_VERSION,
// ASDF_<TOOL>_VERSION, MISE_<TOOL>_VERSION.
func versionVar(name string) bool {
	switch name {
	case "PYENV_VERSION", "RBENV_VERSION", "NODENV_VERSION":
		return true
	}
	for _, prefix := range []string{"ASDF_", "MISE_"} {
		if tool, ok := strings.CutPrefix(name, prefix); ok {
			tool, ok = strings.CutSuffix(tool, "_VERSION")
			if ok && tool != "" && strings.Trim(tool, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == "" {
				return true
			}
		}
	}
	return false
}

// versionValue reports whether v names versions ("3.12.1", "system",
// "3.12:3.11", "lts-iron") and nothing else: no path, no option.
func versionValue(v string) bool {
	if v == "" || v[0] == '-' || v[0] == '.' {
		return false
	}
	for _, c := range v {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune(".:_+-", c)) {
			return false
		}
	}
	return true
}

// lookPathIn finds name on the PATH of env (the manager's environment:
// the user's own).
func lookPathIn(name string, env []string) (string, error) {
	path := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, name)
		if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() && info.Mode().Perm()&0o111 != 0 {
			return p, nil
		}
	}
	return "", errors.New("not found")
}
