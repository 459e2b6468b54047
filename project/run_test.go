package project

import (
	"crypto/ed25519"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"

	"github.com/ryekit/rye/internal/corpus"
	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/sign"
	"github.com/ryekit/rye/space"
	"github.com/ryekit/rye/verify"
)

func testKey() *sign.Key {
	seed := make([]byte, ed25519.SeedSize)
	for i := range seed {
		seed[i] = byte(i)
	}
	return sign.NewKey(ed25519.NewKeyFromSeed(seed))
}

// signedProject generates n items under root, signs them all with the
// test key and trusts the key in the project.
func signedProject(t testing.TB, root string, n int) {
	t.Helper()
	if err := corpus.Generate(root, n, 3); err != nil {
		t.Fatal(err)
	}
	key := testKey()
	k := &verify.TrustedKey{Owner: "test", Public: key.Public}
	dir := filepath.Join(root, ".ai", verify.TrustedKeysDir)
	os.MkdirAll(dir, 0o755)
	if err := os.WriteFile(filepath.Join(dir, key.Fingerprint+".toml"), verify.FormatTrustedKey(k), 0o644); err != nil {
		t.Fatal(err)
	}
	sp := space.NewDiskSpace(space.Project, root, "")
	found, _, err := sp.Walk(item.Kinds)
	if err != nil {
		t.Fatal(err)
	}
	var targets []sign.Target
	for _, f := range found {
		targets = append(targets, sign.Target{Kind: f.Kind, ID: f.ID, Space: sp, Rel: f.Rel})
	}
	b := &sign.Batch{Key: key, Format: sign.V2, Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	for _, r := range b.Run(targets) {
		if r.Err != nil {
			t.Fatal(r.Err)
		}
	}
}

func noEnv(string) string { return "" }

// A run over several projects opens each with its own spaces and trust;
// file paths name their project; ids and globs go where they match; a run
// of the user or system tier takes no roots.
func TestOpenRun(t *testing.T) {
	top := t.TempDir()
	a, bc := filepath.Join(top, "a"), filepath.Join(top, "b", "c")
	signedProject(t, a, 4)
	signedProject(t, bc, 6)
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	run := Run{Dir: top, Options: Options{Getenv: noEnv, Now: now}}
	run.Dirs = []string{a, bc}
	parts, err := OpenRun(run)
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) != 2 || parts[0].Root() != a || parts[1].Root() != bc {
		t.Fatalf("%d parts", len(parts))
	}
	if parts[1].Spaces.Project.Shown != filepath.Join("b", "c") || parts[0].Policy.Now != now {
		t.Errorf("shown %q, now %v", parts[1].Spaces.Project.Shown, parts[0].Policy.Now)
	}
	var results [2]*verify.Results
	for i, p := range parts {
		res, err := verify.Run(verify.Request{Spaces: p.Spaces, WorkDir: top, Trust: p.Trust, Policy: p.Policy, KeepBytes: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range res.Items {
			if it.Verdict != verify.Verified {
				t.Errorf("%s: %s %s", it.Path, it.Verdict, it.Reason)
			}
		}
		results[i] = res
	}
	if len(results[0].Items) != 4 || len(results[1].Items) != 6 || results[1].Items[0].Path[:len("b/c/.ai/")] != "b/c/.ai/" {
		t.Fatalf("%d and %d items, path %q", len(results[0].Items), len(results[1].Items), results[1].Items[0].Path)
	}

	// File paths from the top: each to its project, none elsewhere.
	pa, pb := "a/.ai/"+results[0].Sources[0].Rel, "b/c/.ai/"+results[1].Sources[2].Rel
	run.Dirs, run.Patterns = nil, []string{pb, pa}
	if parts, err = OpenRun(run); err != nil {
		t.Fatal(err)
	}
	if len(parts) != 2 || parts[0].Root() != bc || len(parts[0].Patterns) != 1 || parts[0].Patterns[0] != pb || parts[1].Patterns[0] != pa {
		t.Fatalf("parts %+v", parts)
	}
	// An id goes where it matches, and must match somewhere.
	inA := map[string]bool{}
	for _, it := range results[0].Items {
		inA[string(it.ID)] = true
	}
	id := ""
	for _, it := range results[1].Items {
		if !inA[string(it.ID)] {
			id = string(it.ID)
		}
	}
	run.Dirs, run.Patterns = []string{a, bc}, []string{id}
	if parts, err = OpenRun(run); err != nil || len(parts) != 1 || parts[0].Root() != bc {
		t.Fatalf("an id of b/c: %v %+v", err, parts)
	}
	run.Patterns = []string{"no/such/item"}
	var re *verify.RequestError
	if _, err := OpenRun(run); !errors.As(err, &re) || re.Field != verify.FieldPatterns {
		t.Errorf("an id that matches nowhere: %v", err)
	}
	run.Dirs, run.Patterns = nil, []string{"nowhere/.ai/tools/x.py"}
	if _, err := OpenRun(run); !errors.As(err, &re) || re.Field != verify.FieldPatterns {
		t.Errorf("a path in no project: %v", err)
	}
	run.Patterns = nil
	var np *NoProjectError
	if _, err := OpenRun(run); !errors.As(err, &np) || np.Dir != top || !errors.Is(err, verify.ErrNoProject) || len(np.Below) != 2 {
		t.Errorf("no project, two below: %v", err)
	}
	// --all-projects finds both; a -C folder in no project is the error
	// of its field.
	run.All = true
	if parts, err := OpenRun(run); err != nil || len(parts) != 2 || parts[0].Root() != a {
		t.Errorf("all projects: %v %d", err, len(parts))
	}
	run.All, run.Dirs = false, []string{a, top}
	if _, err := OpenRun(run); !errors.As(err, &re) || re.Field != FieldDirs {
		t.Errorf("a folder in no project: %v", err)
	}
	run.Dirs = nil
	run.Tier, run.Dirs = "user", []string{a, bc}
	if _, err := OpenRun(run); !errors.As(err, &re) || re.Field != verify.FieldTier {
		t.Errorf("the user tier of several projects: %v", err)
	}
	run.Tier, run.Dirs = "system", nil
	if parts, err := OpenRun(run); err != nil || len(parts) != 1 {
		t.Errorf("the system tier outside a project: %v %d", err, len(parts))
	}
}

// --all-projects: the projects of the files git tracks (wherever they
// are), or outside git every folder with a .ai/ folder (not hidden ones,
// not node_modules).
func TestAll(t *testing.T) {
	top := t.TempDir()
	for _, dir := range []string{"x", "p/q", "node_modules/m", ".hidden/h", "untracked"} {
		os.MkdirAll(filepath.Join(top, dir, ".ai", "tools"), 0o755)
		os.WriteFile(filepath.Join(top, dir, ".ai", "tools", "t.py"), []byte("x = 1\n"), 0o644)
	}
	got, err := all(top, "")
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
	got, err = all(filepath.Join(top, "p"), "")
	if err != nil {
		t.Fatal(err)
	}
	// Every tracked project, wherever a change put it; not the untracked.
	if len(got) != 3 || got[0] != filepath.Join(top, "node_modules/m") || got[1] != filepath.Join(top, "p/q") || got[2] != filepath.Join(top, "x") {
		t.Errorf("in git: %v", got)
	}
	if got, _ := all(top, filepath.Join(top, "x")); len(got) != 2 {
		t.Errorf("the user space's root is a project: %v", got)
	}
}
