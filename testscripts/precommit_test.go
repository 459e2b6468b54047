package testscripts

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ryekit/rye/internal/cleancopy"
)

// TestPreCommitForReal installs this repository's hooks with the real
// pre-commit (the golang language: go install ./... in a clone of this
// worktree) and runs them in a repository whose projects are in
// subfolders, as a monorepo keeps them: pre-commit passes the staged files
// from the repository's root and rye checks each in its project. It checks
// that the hook environment holds rye alone, that rye-verify fails a
// modified item with a fix that names the hook's own binary (which is not
// on the user's PATH) and the project, that rye-lint does not repeat it,
// and that rye-check reports it too; then that the language: system
// twins (rye-check-system, rye-lint-system) run the rye on PATH. It needs
// pre-commit, git and go, and builds rye from source: it is skipped when
// one is missing and in -short runs. Nothing is fetched from the network:
// modules come from the local module cache.
func TestPreCommitForReal(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: installing the hooks builds rye")
	}
	tools := map[string]string{}
	for _, name := range []string{"pre-commit", "git", "go"} {
		p, err := exec.LookPath(name)
		if err != nil {
			t.Skipf("%s is not installed: this test runs the pre-commit hooks for real (apt-get install pre-commit)", name)
		}
		tools[name] = p
	}
	work := t.TempDir()
	goenv := func(name string) string {
		out, err := exec.Command(tools["go"], "env", name).Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	env := append(os.Environ(),
		"HOME="+filepath.Join(work, "home"),
		"PRE_COMMIT_HOME="+filepath.Join(work, "pre-commit-cache"),
		"GOMODCACHE="+goenv("GOMODCACHE"), "GOCACHE="+goenv("GOCACHE"),
		"GOFLAGS=-mod=mod", "GOPROXY=off", "GOTOOLCHAIN=local", "GOWORK=off",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
		"GIT_CONFIG_NOSYSTEM=1", "NO_COLOR=1", "RYE_SIGNING_KEY=", "USER_SPACE=", "RYE_SYSTEM_PATH=",
	)
	run := func(dir string, want int, name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env = dir, env
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		cmd.Run()
		if code := cmd.ProcessState.ExitCode(); code != want {
			t.Fatalf("%s %s: exit %d, want %d\n%s", name, strings.Join(args, " "), code, want, out.String())
		}
		return out.String()
	}
	os.MkdirAll(filepath.Join(work, "home"), 0o755)

	// The hook repository: this worktree's files as they are now (tracked
	// and new, not ignored), committed in a throwaway repository.
	hooks := filepath.Join(work, "hooks")
	root, _ := filepath.Abs("..")
	files := run(root, 0, tools["git"], "ls-files", "--cached", "--others", "--exclude-standard", "-z")
	for _, name := range strings.Split(strings.TrimRight(files, "\x00"), "\x00") {
		src := filepath.Join(root, name)
		info, err := os.Lstat(src)
		if err != nil || !info.Mode().IsRegular() {
			continue // deleted in the worktree, or a link
		}
		copyFile(t, src, filepath.Join(hooks, name), info.Mode().Perm())
	}
	run(hooks, 0, tools["git"], "init", "-q", "-b", "main")
	run(hooks, 0, tools["git"], "add", "-A")
	run(hooks, 0, tools["git"], "commit", "-q", "-m", "hooks")
	rev := strings.TrimSpace(run(hooks, 0, tools["git"], "rev-parse", "HEAD"))

	// A repository with two projects in subfolders and none at its root.
	repo := filepath.Join(work, "repo")
	for _, dir := range []string{"apps/one", "apps/two"} {
		copyTree(t, "../examples/hello", filepath.Join(repo, dir))
	}
	config := "repos:\n  - repo: " + hooks + "\n    rev: " + rev + "\n    hooks:\n      - id: rye-check\n      - id: rye-verify\n      - id: rye-lint\n"
	os.WriteFile(filepath.Join(repo, ".pre-commit-config.yaml"), []byte(config), 0o644)
	run(repo, 0, tools["git"], "init", "-q", "-b", "main")
	run(repo, 0, tools["git"], "add", "-A")
	run(repo, 0, tools["git"], "commit", "-q", "-m", "base")

	// Every staged item verifies: the hooks pass.
	out := run(repo, 0, tools["pre-commit"], "run", "--all-files")
	for _, name := range []string{"rye check (verify and lint staged items)", "rye verify (staged items)", "rye lint"} {
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + `\.+Passed$`).MatchString(out) {
			t.Fatalf("%s did not pass:\n%s", name, out)
		}
	}
	// rye and its confinement helper, beside it (nothing else: no
	// benchmark or fuzz-list program).
	bins, _ := filepath.Glob(filepath.Join(work, "pre-commit-cache", "repo*", "golangenv-*", "bin", "*"))
	if len(bins) != 2 || filepath.Base(bins[0]) != "rye" || filepath.Base(bins[1]) != "rye-confine" {
		t.Fatalf("the hook environment installs %v, want rye and rye-confine", bins)
	}

	// A modified item in apps/two, staged.
	item := filepath.Join(repo, "apps/two/.ai/tools/hello/greet.py")
	data, _ := os.ReadFile(item)
	os.WriteFile(item, bytes.Replace(data, []byte("Greet someone"), []byte("Greet anyone"), 1), 0o644)
	run(repo, 0, tools["git"], "add", "apps/two/.ai/tools/hello/greet.py")

	out = run(repo, 1, tools["pre-commit"], "run", "rye-verify")
	if !strings.Contains(out, "apps/two/.ai/tools/hello/greet.py:2:1: error: modified: ") {
		t.Fatalf("rye-verify:\n%s", out)
	}
	// The fix names the hook's binary and the project: pasted as it is,
	// from the repository's root, it runs.
	fix := regexp.MustCompile(`sign it again: (\S+/golangenv-[^/\s]+/bin/rye) -C apps/two sign tool hello/greet`).FindStringSubmatch(out)
	if fix == nil {
		t.Fatalf("the fix does not name the hook's rye and the project:\n%s", out)
	}
	if got := run(repo, 1, fix[1], "-C", "apps/two", "verify", "tool", "hello/greet"); !strings.Contains(got, "1 item: 1 failed") {
		t.Errorf("the binary the fix names: %s", got)
	}
	out = run(repo, 0, tools["pre-commit"], "run", "rye-lint")
	if strings.Contains(out, "modified") {
		t.Errorf("rye-lint repeats rye-verify's finding:\n%s", out)
	}
	out = run(repo, 1, tools["pre-commit"], "run", "rye-check")
	if strings.Count(out, "apps/two/.ai/tools/hello/greet.py:2:1: error: modified") != 1 {
		t.Errorf("rye-check:\n%s", out)
	}

	// The language: system hooks run the rye on PATH (here the one the
	// golang hook built, copied into a folder put first on PATH), with the
	// same files and arguments as their golang twins.
	pathBin := filepath.Join(work, "path-bin")
	copyFile(t, bins[0], filepath.Join(pathBin, "rye"), 0o755)
	env = append(env, "PATH="+pathBin+string(os.PathListSeparator)+os.Getenv("PATH"))
	config = "repos:\n  - repo: " + hooks + "\n    rev: " + rev + "\n    hooks:\n      - id: rye-check-system\n      - id: rye-lint-system\n"
	os.WriteFile(filepath.Join(repo, ".pre-commit-config.yaml"), []byte(config), 0o644)
	run(repo, 0, tools["git"], "add", ".pre-commit-config.yaml")
	out = run(repo, 1, tools["pre-commit"], "run", "rye-check-system")
	if strings.Count(out, "apps/two/.ai/tools/hello/greet.py:2:1: error: modified") != 1 ||
		!strings.Contains(out, pathBin+"/rye -C apps/two sign tool hello/greet") {
		t.Errorf("rye-check-system does not run the rye on PATH:\n%s", out)
	}
	out = run(repo, 0, tools["pre-commit"], "run", "rye-lint-system")
	if !regexp.MustCompile(`(?m)^rye lint \(rye from PATH\)\.+Passed$`).MatchString(out) {
		t.Errorf("rye-lint-system:\n%s", out)
	}
}

func copyFile(t *testing.T, src, dst string, mode os.FileMode) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	if err := cleancopy.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
}
