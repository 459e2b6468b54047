package verify

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/ryekit/rye/gitrepo"
	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/space"
)

// TestOversizedGitFilesAreReportedNotFatal: a file over bundle.MaxItemSize
// in the trusted keys of a commit or of the index is reported and ignored,
// never fails the whole store; the same file among staged items is
// unreadable, alone. Both ways of reading git behave alike.
func TestOversizedGitFilesAreReportedNotFatal(t *testing.T) {
	root := t.TempDir()
	key := testKey()
	write := func(rel string, data []byte) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	big := []byte(strings.Repeat("#", space.MaxItemSize+1))
	write(".ai/trusted_keys/"+key.Fingerprint+".toml", FormatTrustedKey(&TrustedKey{Owner: "t", Public: key.Public}))
	write(".ai/trusted_keys/big.toml", big)
	write(".ai/tools/a/big.py", big)
	write(".ai/tools/a/small.py", []byte("x = 1\n"))
	repo, err := git.PlainInit(root, false)
	if err != nil {
		t.Fatal(err)
	}
	wt, _ := repo.Worktree()
	if err := wt.AddGlob("."); err != nil {
		t.Fatal(err)
	}
	if _, err := wt.Commit("base", &git.CommitOptions{Author: &object.Signature{Name: "t", Email: "t@example.com", When: time.Now()}}); err != nil {
		t.Fatal(err)
	}
	g, _, err := OpenRepo(root)
	if err != nil {
		t.Fatal(err)
	}
	atRef, err := trustAtRef(g, "HEAD", "")
	if err != nil {
		t.Fatalf("--trust-ref failed on one large file: %v", err)
	}
	staged, err := trustInIndex(g, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, srcs := range [][]TrustSource{atRef, staged} {
		ts, err := LoadTrustStore(srcs)
		if err != nil {
			t.Fatal(err)
		}
		if ts.Lookup(key.Fingerprint) == nil {
			t.Errorf("%s: the good key is not trusted", srcs[0].Label)
		}
		if len(ts.Problems) != 1 || !strings.HasSuffix(ts.Problems[0].Path, "/big.toml") || ts.Problems[0].Reason != "is larger than 1048576 bytes: ignored" {
			t.Errorf("%s: problems %v", srcs[0].Label, ts.Problems)
		}
	}
	// Without data nothing is read, so nothing is too large.
	files, err := g.Tree("HEAD", ".ai", 0)
	if err != nil || files["tools/a/big.py"].TooLarge || files["tools/a/big.py"].Blob == (gitrepo.Hash{}) {
		t.Errorf("tree without data: %+v %v", files["tools/a/big.py"], err)
	}
	files, err = g.Tree("HEAD", ".ai", space.MaxItemSize)
	if f := files["tools/a/big.py"]; err != nil || !f.TooLarge || f.Data != nil || string(files["tools/a/small.py"].Data) != "x = 1\n" {
		t.Errorf("tree with data: %+v %v", f, err)
	}
	sp := space.NewDiskSpace(space.Project, root, "")
	srcs, _, err := stagedSources(g, ".ai", sp, []item.Kind{item.Tool}, nil, nil)
	if err != nil || len(srcs) != 2 {
		t.Fatalf("staged sources: %d %v", len(srcs), err)
	}
	rs := (&verifier{Trust: &TrustStore{}, Policy: Policy{Now: time.Now()}}).Run(srcs)
	if rs[0].ID != "a/big" || rs[0].Verdict != unreadable || rs[0].Reason != "staged file is larger than 1048576 bytes" || rs[1].Verdict != Unsigned {
		t.Errorf("staged: %+v", rs)
	}
	if _, err := srcs[0].Read(); !errors.Is(err, space.ErrTooLarge) {
		t.Errorf("staged read: %v", err)
	}
}

// TestTracker: a tracked file, folder or symbolic link is tracked (a link
// to a folder elsewhere is asked about as itself); an untracked one is not;
// outside a repository nothing is.
func TestTracker(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	root, elsewhere := t.TempDir(), t.TempDir()
	run := func(args ...string) {
		t.Helper()
		c := exec.Command("git", append([]string{"-C", root, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("init", "-q")
	os.WriteFile(filepath.Join(root, ".env"), []byte("A=b\n"), 0o644)
	os.MkdirAll(filepath.Join(root, "vendor", "pkg"), 0o755)
	os.WriteFile(filepath.Join(root, "vendor", "pkg", "x.js"), nil, 0o644)
	os.Symlink(elsewhere, filepath.Join(root, "node_modules"))
	run("add", ".env", "vendor", "node_modules")
	run("commit", "-q", "-m", "x")
	os.MkdirAll(filepath.Join(root, ".venv", "bin"), 0o755)
	tracked := Tracker(root)
	for p, want := range map[string]bool{".env": true, "vendor": true, "node_modules": true, ".venv": false, "nothing": false} {
		got, err := tracked(filepath.Join(root, p))
		if err != nil || got != want {
			t.Errorf("%s: tracked %v (%v), want %v", p, got, err, want)
		}
	}
	if got, err := Tracker(elsewhere)(filepath.Join(elsewhere, ".env")); got || err != nil {
		t.Errorf("outside a repository: %v %v", got, err)
	}
}
