package verify

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"

	"github.com/ryekit/rye/space"
)

// A run over several projects verifies each with its own spaces; file
// paths name their project; ids and globs go where they match; a run of
// the user or system tier takes no roots.
func TestProjectsParts(t *testing.T) {
	top := t.TempDir()
	a, bc := filepath.Join(top, "a"), filepath.Join(top, "b", "c")
	signedProject(t, a, 4)
	signedProject(t, bc, 6)
	ss, err := space.Discover(space.Options{WorkDir: top, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	if ss.Project != nil {
		t.Fatal("a project at the top")
	}
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	calls := 0
	req := Request{Spaces: ss, WorkDir: top, Policy: Policy{Now: now}, Progress: func(done, total int) { calls++ }}
	runs, err := RunProjects(Projects{Request: req, Roots: []string{a, bc}})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 || runs[0].Request.Spaces.Project.Root != a || runs[1].Request.Spaces.Project.Root != bc || len(runs[0].Items) != 4 || len(runs[1].Items) != 6 || calls != 10 {
		t.Fatalf("%d runs, %d progress calls", len(runs), calls)
	}
	if runs[1].Request.Spaces.Project.Shown != filepath.Join("b", "c") || runs[1].Items[0].Path[:len("b/c/.ai/")] != "b/c/.ai/" {
		t.Errorf("shown %q, path %q", runs[1].Request.Spaces.Project.Shown, runs[1].Items[0].Path)
	}
	for _, r := range runs {
		for _, it := range r.Items {
			if it.Verdict != Verified {
				t.Errorf("%s: %s %s", it.Path, it.Verdict, it.Reason)
			}
		}
	}

	// File paths from the top: each to its project, none elsewhere.
	pa, pb := "a/.ai/"+runs[0].Sources[0].Rel, "b/c/.ai/"+runs[1].Sources[2].Rel
	req.Patterns = []string{pb, pa}
	parts, err := Projects{Request: req}.Parts()
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) != 2 || parts[0].Request.Spaces.Project.Root != bc || len(parts[0].Request.Patterns) != 1 || parts[0].Request.Patterns[0] != pb || parts[1].Request.Patterns[0] != pa {
		t.Fatalf("parts %+v", parts)
	}
	// An id goes where it matches, and must match somewhere.
	inA := map[string]bool{}
	for _, it := range runs[0].Items {
		inA[string(it.ID)] = true
	}
	id := ""
	for _, it := range runs[1].Items {
		if !inA[string(it.ID)] {
			id = string(it.ID)
		}
	}
	req.Patterns = []string{id}
	if parts, err = (Projects{Request: req, Roots: []string{a, bc}}).Parts(); err != nil || len(parts) != 1 || parts[0].Request.Spaces.Project.Root != bc {
		t.Fatalf("an id of b/c: %v %+v", err, parts)
	}
	req.Patterns = []string{"no/such/item"}
	var re *RequestError
	if _, err := (Projects{Request: req, Roots: []string{a, bc}}).Parts(); !errors.As(err, &re) || re.Field != FieldPatterns {
		t.Errorf("an id that matches nowhere: %v", err)
	}
	req.Patterns = []string{"nowhere/.ai/tools/x.py"}
	if _, err := (Projects{Request: req}).Parts(); !errors.As(err, &re) || re.Field != FieldPatterns {
		t.Errorf("a path in no project: %v", err)
	}
	req.Patterns = nil
	if _, err := (Projects{Request: req}).Parts(); !errors.Is(err, ErrNoProject) {
		t.Errorf("no project: %v", err)
	}
	req.Tier = "user"
	if _, err := (Projects{Request: req, Roots: []string{a, bc}}).Parts(); !errors.As(err, &re) || re.Field != FieldTier {
		t.Errorf("the user tier of several projects: %v", err)
	}
	req.Tier = "system"
	if parts, err := (Projects{Request: req}).Parts(); err != nil || len(parts) != 1 {
		t.Errorf("the system tier outside a project: %v %d", err, len(parts))
	}
}

// --all-projects: the projects of the files git tracks (wherever they
// are), or outside git every folder with a .ai/ folder (not hidden ones,
// not node_modules).
func TestAllProjects(t *testing.T) {
	top := t.TempDir()
	for _, dir := range []string{"x", "p/q", "node_modules/m", ".hidden/h", "untracked"} {
		os.MkdirAll(filepath.Join(top, dir, ".ai", "tools"), 0o755)
		os.WriteFile(filepath.Join(top, dir, ".ai", "tools", "t.py"), []byte("x = 1\n"), 0o644)
	}
	got, err := AllProjects(top, "")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(top, "p/q"), filepath.Join(top, "untracked"), filepath.Join(top, "x")}
	if len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("outside git: %v", got)
	}
	repo, err := git.PlainInit(top, false)
	if err != nil {
		t.Fatal(err)
	}
	wt, _ := repo.Worktree()
	for _, f := range []string{"x/.ai/tools/t.py", "p/q/.ai/tools/t.py", "node_modules/m/.ai/tools/t.py"} {
		if _, err := wt.Add(f); err != nil {
			t.Fatal(err)
		}
	}
	got, err = AllProjects(filepath.Join(top, "p"), "")
	if err != nil {
		t.Fatal(err)
	}
	// Every tracked project, wherever a change put it; not the untracked.
	if len(got) != 3 || got[0] != filepath.Join(top, "node_modules/m") || got[1] != filepath.Join(top, "p/q") || got[2] != filepath.Join(top, "x") {
		t.Errorf("in git: %v", got)
	}
	if got, _ := AllProjects(top, filepath.Join(top, "x")); len(got) != 2 {
		t.Errorf("the user space's root is a project: %v", got)
	}
}
