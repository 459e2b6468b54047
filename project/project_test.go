package project

import (
	"crypto/ed25519"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/ryekit/rye/sign"
	"github.com/ryekit/rye/verify"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// env is an environment with only a user space.
func env(user string) func(string) string {
	return func(k string) string {
		if k == "USER_SPACE" {
			return user
		}
		return ""
	}
}

// A project is found upwards, or named exactly; without one the spaces
// are the user's and the system's, and the verbs that need one are told.
func TestOpenFindsTheRoot(t *testing.T) {
	top, user := t.TempDir(), t.TempDir()
	sub := filepath.Join(top, "a", "b")
	os.MkdirAll(filepath.Join(top, ".ai"), 0o755)
	os.MkdirAll(sub, 0o755)
	p, err := Open(sub, Options{Getenv: env(user)})
	if err != nil {
		t.Fatal(err)
	}
	if p.Root() != top || p.Spaces.Project.Shown != filepath.Join("..", "..") || p.UserRoot() != user || p.Trust == nil || p.Settings == nil {
		t.Errorf("root %q shown %q user %q", p.Root(), p.Spaces.Project.Shown, p.UserRoot())
	}
	var np *NoProjectError
	if _, err = Open(top, Options{Root: "a/b", Getenv: env(user)}); !errors.As(err, &np) || !np.Exact || np.Dir != sub {
		t.Errorf("--project a/b without .ai/: %v", err)
	}
	if _, err = Open(top, Options{Root: "missing", Getenv: env(user)}); !errors.As(err, &np) || !np.Exact {
		t.Errorf("--project of a missing folder: %v", err)
	}
	os.MkdirAll(filepath.Join(sub, ".ai"), 0o755)
	if p, err = Open(top, Options{Root: "a/b", Getenv: env(user)}); err != nil || p.Root() != sub {
		t.Errorf("--project a/b: %v", err)
	}
	none, err := Open(t.TempDir(), Options{Getenv: env(user)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := none.Space(); !errors.As(err, &np) || !errors.Is(err, verify.ErrNoProject) {
		t.Errorf("no project: %v", err)
	}
	if sp, err := none.Writable("user"); err != nil || sp.Root != user {
		t.Errorf("the user space: %v", err)
	}
	if _, err := none.Writable("system"); err == nil {
		t.Error("the system space is writable")
	}
	if _, err := (&Project{Spaces: none.Spaces, opts: Options{Getenv: env("")}}).Writable("user"); err != nil {
		t.Errorf("a user space was given: %v", err)
	}
}

// The policy is the strictest of the caller's, the user's file and the
// tree's; a broken configuration stops a verb that reads it, not one that
// opens the spaces alone.
func TestOpenPolicy(t *testing.T) {
	root, user := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(root, ".ai"), 0o755)
	open := func(o Options) *Project {
		t.Helper()
		o.Getenv = env(user)
		p, err := Open(root, o)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	if open(Options{}).Policy.RequireV2 {
		t.Error("v2 required with no configuration")
	}
	if !open(Options{RequireV2: true}).Policy.RequireV2 {
		t.Error("the caller's --require v2 dropped")
	}
	write(t, filepath.Join(user, ".ai/config/rye.yaml"), "min_signature_version: 2\n")
	if !open(Options{}).Policy.RequireV2 {
		t.Error("the user's min_signature_version: 2 dropped")
	}
	write(t, filepath.Join(user, ".ai/config/rye.yaml"), "min_signature_version: 1\n")
	write(t, filepath.Join(root, ".ai/config/rye.yaml"), "min_signature_version: 2\n")
	if !open(Options{}).Policy.RequireV2 {
		t.Error("the tree's min_signature_version: 2 dropped")
	}
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	if open(Options{Now: now}).Policy.Now != now {
		t.Error("Options.Now")
	}
	write(t, filepath.Join(root, ".ai/config/rye.yaml"), "min_signature_version: 7\n")
	if _, err := Open(root, Options{Getenv: env(user)}); err == nil {
		t.Error("a broken configuration opened")
	}
	if _, err := Open(root, Options{Getenv: env(user), SpacesOnly: true}); err != nil {
		t.Errorf("the spaces alone: %v", err)
	}
}

// Under a trust ref the project's keys and the settings that could loosen
// a check are the ref's: a key the tree adds is reported, not trusted, and
// a lower min_signature_version in the tree changes nothing. A gate takes
// its ref from the user's file, never the project's.
func TestOpenAtRef(t *testing.T) {
	root, user := t.TempDir(), t.TempDir()
	repo, err := git.PlainInit(root, false)
	if err != nil {
		t.Fatal(err)
	}
	key := testKey()
	keyFile := filepath.Join(root, ".ai/trusted_keys", key.Fingerprint+".toml")
	write(t, keyFile, string(verify.FormatTrustedKey(&verify.TrustedKey{Owner: "maintainer", Public: key.Public})))
	write(t, filepath.Join(root, ".ai/config/rye.yaml"), "min_signature_version: 2\n")
	wt, _ := repo.Worktree()
	wt.Add(".ai")
	sig := &object.Signature{Name: "t", Email: "t@example.com", When: time.Now()}
	if _, err := wt.Commit("base", &git.CommitOptions{Author: sig}); err != nil {
		t.Fatal(err)
	}
	// The change: another key, a softer policy, a ref of its own.
	seed := make([]byte, ed25519.SeedSize)
	seed[0] = 9
	other := sign.NewKey(ed25519.NewKeyFromSeed(seed))
	write(t, filepath.Join(root, ".ai/trusted_keys", other.Fingerprint+".toml"), string(verify.FormatTrustedKey(&verify.TrustedKey{Owner: "intruder", Public: other.Public})))
	write(t, filepath.Join(root, ".ai/config/rye.yaml"), "min_signature_version: 1\nverify:\n  trust_ref: nowhere\n")

	p, err := Open(root, Options{TrustRef: "HEAD", Gate: true, Getenv: env(user)})
	if err != nil {
		t.Fatal(err)
	}
	if p.Trust.Lookup(other.Fingerprint) != nil || p.Trust.Lookup(key.Fingerprint) == nil || len(p.Trust.Added()) != 1 || p.Trust.Ref() != "HEAD" {
		t.Errorf("trust at the ref: added %d", len(p.Trust.Added()))
	}
	if !p.Policy.RequireV2 || p.Git == nil || p.Settings.TrustRef != "HEAD" {
		t.Errorf("policy %+v, git %v, ref %q", p.Policy, p.Git, p.Settings.TrustRef)
	}
	if len(p.Settings.Ignored()) == 0 {
		t.Error("the project's verify.trust_ref is not reported as ignored")
	}
	// A gate without a ref takes the user's, not the project's.
	write(t, filepath.Join(user, ".ai/config/rye.yaml"), "verify:\n  trust_ref: HEAD\n")
	if p, err = Open(root, Options{Gate: true, Getenv: env(user)}); err != nil || p.Trust.Ref() != "HEAD" {
		t.Errorf("the user's trust ref: %v", err)
	}
	if p, err = Open(root, Options{Getenv: env(user)}); err != nil || p.Trust.Ref() != "" || p.Trust.Lookup(other.Fingerprint) == nil {
		t.Errorf("outside a gate the tree's keys: %v", err)
	}
	// Staged: the index's keys (the intruder's is not staged).
	if p, err = Open(root, Options{Staged: true, Getenv: env(user)}); err != nil || p.Trust.Lookup(other.Fingerprint) != nil || p.Trust.Lookup(key.Fingerprint) == nil {
		t.Errorf("staged trust: %v", err)
	}
	var re *verify.RequestError
	if _, err := Open(root, Options{TrustRef: "no-such-ref", Getenv: env(user)}); !errors.As(err, &re) || re.Field != verify.FieldTrustRef {
		t.Errorf("a ref that does not exist: %v", err)
	}
}

// A held folder is opened only while the path still names it.
func TestOpenHeld(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(a, ".ai"), 0o755)
	held, err := os.Open(a)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	if p, err := Open(a, Options{Root: a, Held: held, Getenv: env("")}); err != nil || p.Root() != a {
		t.Errorf("the held folder: %v", err)
	}
	if _, err := Open(b, Options{Root: b, Held: held, Getenv: env("")}); err == nil {
		t.Error("another folder opened as the held one")
	}
}

// The signing setup: the caller's format, else the settings', else v2;
// SOURCE_DATE_EPOCH from the project's environment; the project or the
// user space.
func TestSignRequest(t *testing.T) {
	root, user := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(root, ".ai"), 0o755)
	getenv := func(k string) string {
		switch k {
		case "USER_SPACE":
			return user
		case "SOURCE_DATE_EPOCH":
			return "1767225600"
		}
		return ""
	}
	p, err := Open(root, Options{Getenv: getenv})
	if err != nil {
		t.Fatal(err)
	}
	req, err := p.SignRequest(Signing{})
	if err != nil || req.Format != sign.V2 || req.Space.Root != root || !req.Time.Equal(time.Unix(1767225600, 0)) || req.Rules == nil || req.WorkDir != root {
		t.Errorf("default: %v %+v", err, req)
	}
	write(t, filepath.Join(root, ".ai/config/rye.yaml"), "sign:\n  format: v1\n")
	if p, err = Open(root, Options{Getenv: getenv}); err != nil {
		t.Fatal(err)
	}
	if req, err = p.SignRequest(Signing{}); err != nil || req.Format != sign.V1 {
		t.Errorf("the settings' format: %v %v", err, req.Format)
	}
	if req, err = p.SignRequest(Signing{Format: "v2", Space: "user"}); err != nil || req.Format != sign.V2 || req.Space.Root != user {
		t.Errorf("the caller's format in the user space: %v %+v", err, req)
	}
	var re *verify.RequestError
	if _, err := p.SignRequest(Signing{Format: "v9"}); !errors.As(err, &re) || re.Field != FieldFormat {
		t.Errorf("a bad format: %v", err)
	}
}

// Init makes the layout once and leaves what is there.
func TestInit(t *testing.T) {
	dir := t.TempDir()
	root, created, err := Init(dir, "p")
	if err != nil || root != filepath.Join(dir, "p") || len(created) != 8 {
		t.Fatalf("%v %q %q", err, root, created)
	}
	if _, created, err = Init(dir, "p"); err != nil || len(created) != 0 {
		t.Errorf("again: %v %q", err, created)
	}
	if p, err := Open(root, Options{Getenv: env("")}); err != nil || p.Root() != root {
		t.Errorf("the new project does not open: %v", err)
	}
}

// A message names at most three of the projects below, from where rye
// was started, and says how many there are.
func TestNoProjectBelowText(t *testing.T) {
	top := filepath.Join(t.TempDir(), "repo")
	e := &NoProjectError{Dir: top, Below: []string{filepath.Join(top, "a"), filepath.Join(top, "b", "c"), filepath.Join(top, "d"), filepath.Join(top, "e")}}
	if got := e.BelowText(top); got != "4 projects (a, b/c, d, …)" {
		t.Errorf("%q", got)
	}
	e.Below = e.Below[1:2]
	if got := e.BelowText(filepath.Join(top, "b")); got != "1 project (c)" {
		t.Errorf("%q", got)
	}
}
