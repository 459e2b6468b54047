package space

import (
	"os"
	"path/filepath"
	"testing"
)

// WithProject keeps the user and system spaces, shows the new project from
// the same working directory, and refuses a system root inside it; a file
// path's project is the nearest folder above it with a .ai/ folder.
func TestWithProjectAndProjectOf(t *testing.T) {
	top := t.TempDir()
	for _, dir := range []string{"a/.ai/tools/x", "b/c/.ai/tools", "b/c/sys/.ai"} {
		os.MkdirAll(filepath.Join(top, dir), 0o755)
	}
	env := map[string]string{"HOME": filepath.Join(top, "home"), "RYE_SYSTEM_PATH": filepath.Join(top, "b/c/sys")}
	ss, err := Discover(Options{WorkDir: filepath.Join(top, "a"), Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	other, err := ss.WithProject(filepath.Join(top, "a"))
	if err != nil {
		t.Fatal(err)
	}
	if other.User != ss.User || len(other.System) != len(ss.System) || other.Project.Shown != "." {
		t.Errorf("spaces %+v", other)
	}
	if _, err := ss.WithProject(filepath.Join(top, "b/c")); err == nil {
		t.Error("a RYE_SYSTEM_PATH root inside the project was accepted")
	}
	for p, want := range map[string]string{
		"a/.ai/tools/x/y.py":    filepath.Join(top, "a"),
		"b/c/.ai/tools/gone.py": filepath.Join(top, "b/c"),
		"elsewhere/z.py":        "",
	} {
		got, err := ProjectOf(p, top, "")
		if err != nil || got != want {
			t.Errorf("ProjectOf(%s) = %q, %v; want %q", p, got, err, want)
		}
	}
	os.MkdirAll(filepath.Join(top, "node_modules/n/.ai"), 0o755)
	// A .ai that git tracks as a link to a folder is a project's .ai (rye
	// follows it); a file named .ai is not.
	for _, dir := range []string{"linked", "payload", "file"} {
		os.MkdirAll(filepath.Join(top, dir), 0o755)
	}
	if err := os.Symlink("../payload", filepath.Join(top, "linked/.ai")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	os.WriteFile(filepath.Join(top, "file/.ai"), nil, 0o644)
	got := ProjectsFromPaths(top, []string{"a/.ai/tools/x/y.py", "a/.ai/tools/x/.ai/z.py", "b/c/.ai/k", "node_modules/n/.ai/x", "gone/.ai/x", "README.md", "linked/.ai", "file/.ai"}, filepath.Join(top, "b/c"))
	want := []string{filepath.Join(top, "a"), filepath.Join(top, "a/.ai/tools/x"), filepath.Join(top, "linked"), filepath.Join(top, "node_modules/n")}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] || got[3] != want[3] {
		t.Errorf("from paths: %v, want %v", got, want)
	}
}
