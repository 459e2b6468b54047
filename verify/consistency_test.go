package verify

import (
	"crypto/ed25519"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/ryekit/rye/bundle"
	"github.com/ryekit/rye/internal/corpus"
	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/sign"
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
func signedProject(t testing.TB, root string, n int) *bundle.Space {
	t.Helper()
	if _, err := corpus.Generate(root, n, 3); err != nil {
		t.Fatal(err)
	}
	key := testKey()
	pemText, _ := sign.CanonicalPublicPEM(key.Public)
	k := &TrustedKey{Fingerprint: key.Fingerprint, Owner: "test", PEM: pemText, Public: key.Public}
	dir := filepath.Join(root, ".ai", TrustedKeysDir)
	os.MkdirAll(dir, 0o755)
	if err := os.WriteFile(filepath.Join(dir, key.Fingerprint+".toml"), FormatTrustedKey(k), 0o644); err != nil {
		t.Fatal(err)
	}
	sp := bundle.NewDiskSpace(bundle.Project, root, "")
	found, _, err := sp.Walk(item.Kinds)
	if err != nil {
		t.Fatal(err)
	}
	var targets []sign.Target
	for _, f := range found {
		targets = append(targets, sign.Target{Kind: f.Kind, ID: f.ID, File: filepath.Join(root, ".ai", filepath.FromSlash(f.Rel))})
	}
	b := &sign.Batch{Key: key, Format: sign.V2, Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	for _, r := range b.Run(targets) {
		if r.Err != nil {
			t.Fatal(r.Err)
		}
	}
	return sp
}

func allSources(t testing.TB, sp *bundle.Space) ([]Source, []string) {
	t.Helper()
	sel, err := bundle.Select(sp, item.Kinds, nil, sp.Root)
	if err != nil {
		t.Fatal(err)
	}
	var rels []string
	for _, f := range sel.Items {
		rels = append(rels, f.Rel)
	}
	for _, l := range sel.Links {
		rels = append(rels, l.Rel)
	}
	return SelectionSources(sel), rels
}

func verdicts(rs []Result) map[string]Verdict {
	m := map[string]Verdict{}
	for _, r := range rs {
		m[r.Path] = r.Verdict
	}
	return m
}

// TestCacheAndChangedSinceAgreeWithFullRun: after random edits, a cached
// run (cold and warm) and a --changed-since run give the same verdicts as
// verifying everything.
func TestCacheAndChangedSinceAgreeWithFullRun(t *testing.T) {
	root := t.TempDir()
	sp := signedProject(t, root, 300)
	repo, err := git.PlainInit(root, false)
	if err != nil {
		t.Fatal(err)
	}
	wt, _ := repo.Worktree()
	if err := wt.AddGlob("."); err != nil {
		t.Fatal(err)
	}
	sig := &object.Signature{Name: "t", Email: "t@example.com", When: time.Now()}
	if _, err := wt.Commit("base", &git.CommitOptions{Author: sig}); err != nil {
		t.Fatal(err)
	}
	ts, err := LoadTrustStore(TrustSources([]*bundle.Space{sp}))
	if err != nil {
		t.Fatal(err)
	}
	policy := Policy{Now: time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)}
	cacheFile := filepath.Join(t.TempDir(), "verify.cache")
	r := rand.New(rand.NewPCG(9, 9))
	for round := 0; round < 4; round++ {
		// Random edits: flip a byte, append, delete, add an unsigned item,
		// or re-sign an item by another key.
		sources, _ := allSources(t, sp)
		for i := 0; i < 15; i++ {
			s := sources[r.IntN(len(sources))]
			file := s.Path // absolute: the space has no display root
			data, err := os.ReadFile(file)
			if err != nil {
				continue
			}
			switch r.IntN(4) {
			case 0:
				p := 5 + r.IntN(len(data)-5)
				data[p] ^= 0x20
				os.WriteFile(file, data, 0o644)
			case 1:
				os.WriteFile(file, append(data, " "...), 0o644)
			case 2:
				os.Remove(file)
			case 3:
				os.WriteFile(filepath.Join(root, ".ai", "knowledge", fmt.Sprintf("new%d_%d.md", round, i)), []byte("---\nid: x\n---\n"), 0o644)
			}
		}
		sources, rels := allSources(t, sp)
		full := verdicts((&Verifier{Trust: ts, Policy: policy}).Run(sources))
		for pass := 0; pass < 2; pass++ {
			cache := OpenCache(cacheFile)
			sources, _ := allSources(t, sp)
			got := verdicts((&Verifier{Trust: ts, Policy: policy, Cache: cache}).Run(sources))
			if err := cache.Save(); err != nil {
				t.Fatal(err)
			}
			for p, v := range full {
				if got[p] != v {
					t.Fatalf("round %d pass %d: %s cached %s, full %s", round, pass, p, got[p], v)
				}
			}
		}
		g, err := OpenRepo(root)
		if err != nil {
			t.Fatal(err)
		}
		exists := func(rel string) bool { _, err := os.Lstat(filepath.Join(root, ".ai", rel)); return err == nil }
		changed, deleted, err := ChangedSince(g, "HEAD", ".ai", sources, rels, item.Kinds, exists)
		if err != nil {
			t.Fatal(err)
		}
		partial := verdicts((&Verifier{Trust: ts, Policy: policy}).Run(changed))
		failedFull := 0
		for p, v := range full {
			if pv, ok := partial[p]; ok {
				if pv != v {
					t.Fatalf("round %d: %s changed-since %s, full %s", round, p, pv, v)
				}
			} else if v != Verified {
				t.Fatalf("round %d: %s was skipped by --changed-since but fails (%s)", round, p, v)
			}
			if v != Verified {
				failedFull++
			}
		}
		if failedFull == 0 || len(changed) == 0 {
			t.Fatalf("round %d: the edits changed nothing", round)
		}
		if round > 0 && len(deleted) == 0 {
			t.Logf("round %d: nothing deleted", round)
		}
	}
}

// TestCacheKeyCoversTrustAndPolicy: a cached "verified" must not survive a
// change of the trust store, the policy, the day or the bytes.
func TestCacheKeyCoversTrustAndPolicy(t *testing.T) {
	root := t.TempDir()
	sp := signedProject(t, root, 6)
	ts, _ := LoadTrustStore(TrustSources([]*bundle.Space{sp}))
	empty, _ := LoadTrustStore(nil)
	c := OpenCache(filepath.Join(t.TempDir(), "c"))
	in := Input{Kind: item.Tool, ID: "a/b", Space: "project", Path: "x.py", Data: []byte("data")}
	base := c.Key(in, ts, Policy{Now: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)})
	variants := map[string][32]byte{
		"trust":    c.Key(in, empty, Policy{Now: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)}),
		"policy":   c.Key(in, ts, Policy{RequireV2: true, Now: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)}),
		"day":      c.Key(in, ts, Policy{Now: time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)}),
		"bytes":    c.Key(Input{Kind: item.Tool, ID: "a/b", Space: "project", Path: "x.py", Data: []byte("datA")}, ts, Policy{Now: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)}),
		"id":       c.Key(Input{Kind: item.Tool, ID: "a/c", Space: "project", Path: "x.py", Data: []byte("data")}, ts, Policy{Now: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)}),
		"kind":     c.Key(Input{Kind: item.Knowledge, ID: "a/b", Space: "project", Path: "x.py", Data: []byte("data")}, ts, Policy{Now: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)}),
		"space":    c.Key(Input{Kind: item.Tool, ID: "a/b", Space: "user", Path: "x.py", Data: []byte("data")}, ts, Policy{Now: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)}),
		"same day": c.Key(in, ts, Policy{Now: time.Date(2026, 1, 1, 23, 0, 0, 0, time.UTC)}),
	}
	for name, k := range variants {
		if (k == base) != (name == "same day") {
			t.Errorf("%s: key equality %v", name, k == base)
		}
	}
	// Only verified results are stored; a damaged file is an empty cache.
	c.Put(base, Result{Verdict: Modified})
	if _, ok := c.Get(base, in); ok {
		t.Error("a failing verdict was cached")
	}
	os.WriteFile(c.path, []byte(cacheMagic+"{not json"), 0o600)
	if len(OpenCache(c.path).entries) != 0 {
		t.Error("damaged cache read")
	}
}
