package verify

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/ryekit/rye/internal/corpus"
	"github.com/ryekit/rye/internal/filestat"
	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/sign"
	"github.com/ryekit/rye/space"
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
func signedProject(t testing.TB, root string, n int) *space.Space {
	t.Helper()
	if err := corpus.Generate(root, n, 3); err != nil {
		t.Fatal(err)
	}
	key := testKey()
	k := &TrustedKey{Owner: "test", Public: key.Public}
	dir := filepath.Join(root, ".ai", TrustedKeysDir)
	os.MkdirAll(dir, 0o755)
	if err := os.WriteFile(filepath.Join(dir, key.Fingerprint+".toml"), FormatTrustedKey(k), 0o644); err != nil {
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
	return sp
}

func allSources(t testing.TB, sp *space.Space) ([]Source, []string) {
	t.Helper()
	sel, err := space.Select(sp, item.Kinds, nil, sp.Root)
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
	return selectionSources(sel), rels
}

// embeddedSources are a few items of the bundle compiled into rye.
func embeddedSources(t testing.TB) []Source {
	t.Helper()
	sel, err := space.Select(space.EmbeddedSpace(), item.Kinds, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	srcs := selectionSources(sel)
	if len(srcs) == 0 || !srcs[0].Embedded {
		t.Fatalf("embedded sources: %d", len(srcs))
	}
	return srcs[:min(len(srcs), 5)]
}

// sameResults fails unless two runs over the same sources gave equal
// results, field for field.
func sameResults(t *testing.T, what string, got, want []Result) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d results, want %d", what, len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Fatalf("%s: %s:\n got %+v\nwant %+v", what, want[i].Path, got[i], want[i])
		}
	}
}

// TestCacheAndChangedSinceAgreeWithFullRun: after random edits, a cached
// run (cold and warm) and a --changed-since run give the same results as
// verifying everything, embedded items included, and --changed-since lists
// exactly the items removed since the commit.
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
	ts, err := LoadTrustStore(TrustSources([]*space.Space{sp}))
	if err != nil {
		t.Fatal(err)
	}
	_, committed := allSources(t, sp)
	atBase := map[string]bool{}
	for _, rel := range committed {
		atBase[rel] = true
	}
	embedded := embeddedSources(t)
	withEmbedded := func(srcs []Source) []Source { return append(append([]Source(nil), srcs...), embedded...) }
	policy := Policy{Now: time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)}
	cacheFile := filepath.Join(t.TempDir(), "verify.cache")
	removed := map[string]bool{} // items of the commit removed so far
	r := rand.New(rand.NewPCG(9, 9))
	// The stat shortcut trusts files unchanged for the stat margin: a short
	// margin and a pause before each cached pass let it serve the files the
	// round did not touch, while the edits (some keeping size and
	// modification time) must all be read again.
	limits := cacheLimits{StatMargin: 20 * time.Millisecond}
	for round := 0; round < 4; round++ {
		// Random edits: flip a byte, append, delete, add an unsigned item,
		// touch without changing, or change a byte keeping the size and the
		// modification time.
		sources, rels := allSources(t, sp)
		for i := 0; i < 15; i++ {
			n := r.IntN(len(sources))
			file := sources[n].Path // absolute: the space has no display root
			data, err := os.ReadFile(file)
			if err != nil {
				continue
			}
			switch r.IntN(6) {
			case 0:
				p := 5 + r.IntN(len(data)-5)
				data[p] ^= 0x20
				os.WriteFile(file, data, 0o644)
			case 4:
				now := time.Now()
				os.Chtimes(file, now, now)
			case 5:
				info, _ := os.Stat(file)
				p := 5 + r.IntN(len(data)-5)
				data[p] ^= 0x20
				os.WriteFile(file, data, 0o644)
				os.Chtimes(file, info.ModTime(), info.ModTime())
			case 1:
				os.WriteFile(file, append(data, " "...), 0o644)
			case 2:
				os.Remove(file)
				if atBase[rels[n]] {
					removed[rels[n]] = true
				}
			case 3:
				os.WriteFile(filepath.Join(root, ".ai", "knowledge", fmt.Sprintf("new%d_%d.md", round, i)), []byte("---\nid: x\n---\n"), 0o644)
			}
		}
		sources, _ = allSources(t, sp)
		full := (&verifier{Trust: ts, Policy: policy}).Run(withEmbedded(sources))
		for _, res := range full[len(sources):] {
			if res.Verdict != Verified || !res.Embedded || res.Reason != "embedded in rye" {
				t.Fatalf("embedded item: %+v", res)
			}
		}
		for pass := 0; pass < 2; pass++ {
			time.Sleep(2 * limits.StatMargin)
			cache := openCacheWith(cacheFile, testSecret, limits)
			sources, _ := allSources(t, sp)
			got := (&verifier{Trust: ts, Policy: policy, Cache: cache}).Run(withEmbedded(sources))
			if err := cache.Save(); err != nil {
				t.Fatal(err)
			}
			sameResults(t, fmt.Sprintf("round %d cached pass %d", round, pass), got, full)
		}
		g, _, err := OpenRepo(root)
		if err != nil {
			t.Fatal(err)
		}
		// With and without the git index's stat data (which the edits
		// above, made after the commit, leave stale for the files they
		// touch): the same items changed.
		var changed []Source
		var deleted []Deleted
		for _, stat := range []bool{false, true} {
			changed, deleted, err = ChangedSince(g, "HEAD", ".ai", sources, item.Kinds, sp, stat)
			if err != nil {
				t.Fatal(err)
			}
			partial := map[string]Result{}
			for _, res := range (&verifier{Trust: ts, Policy: policy}).Run(withEmbedded(changed)) {
				partial[res.Path] = res
			}
			failedFull := 0
			for _, v := range full {
				if pv, ok := partial[v.Path]; ok {
					if !reflect.DeepEqual(pv, v) {
						t.Fatalf("round %d (stat %v): %s:\nchanged-since %+v\n         full %+v", round, stat, v.Path, pv, v)
					}
				} else if v.Verdict != Verified {
					t.Fatalf("round %d (stat %v): %s was skipped by --changed-since but fails (%s)", round, stat, v.Path, v.Verdict)
				}
				if v.Verdict != Verified {
					failedFull++
				}
			}
			if failedFull == 0 || len(changed) == 0 {
				t.Fatalf("round %d: the edits changed nothing", round)
			}
		}
		gone := map[string]bool{}
		for _, d := range deleted {
			gone[d.Rel] = true
			if k, id, _, _ := space.KindAndID(d.Rel); k != d.Kind || id != d.ID {
				t.Errorf("round %d: deleted %s is %s %s", round, d.Rel, d.Kind, d.ID)
			}
		}
		if !reflect.DeepEqual(gone, removed) {
			t.Fatalf("round %d: deleted %v, removed %v", round, gone, removed)
		}
	}
	if len(removed) == 0 {
		t.Fatal("no round removed an item")
	}
}

// TestCacheKeyCoversTrustAndPolicy: a cached "verified" must not survive a
// change of the trust store, the policy, the day or the bytes.
func TestCacheKeyCoversTrustAndPolicy(t *testing.T) {
	root := t.TempDir()
	sp := signedProject(t, root, 6)
	ts, _ := LoadTrustStore(TrustSources([]*space.Space{sp}))
	empty, _ := LoadTrustStore(nil)
	c := openCache(filepath.Join(t.TempDir(), "c"), testSecret)
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
	if openCache(c.path, testSecret).size() != 0 {
		t.Error("damaged cache read")
	}
}

// TestEmbeddedItemsBypassTheCache: checking an embedded item is free, so
// it is never stored, and a run through a cache reports it as embedded
// every time (verified (embedded) in the text, "embedded": true in JSON).
func TestEmbeddedItemsBypassTheCache(t *testing.T) {
	file := filepath.Join(t.TempDir(), "verify.cache")
	ts, _ := LoadTrustStore(nil)
	for pass := 0; pass < 2; pass++ {
		c := openCache(file, testSecret)
		for _, r := range (&verifier{Trust: ts, Policy: Policy{Now: time.Now()}, Cache: c}).Run(embeddedSources(t)) {
			if r.Verdict != Verified || !r.Embedded {
				t.Fatalf("pass %d: %+v", pass, r)
			}
		}
		if c.added != 0 || c.size() != 0 {
			t.Fatalf("pass %d: %d entries cached", pass, c.size())
		}
		c.Save()
	}
	// Get rebuilds the result for its input, embedded or not.
	c := openCache(file, testSecret)
	key := [32]byte{1}
	c.Put(key, Result{Verdict: Verified, Reason: "r"})
	if r, ok := c.Get(key, Input{Path: "p", Embedded: true}); !ok || !r.Embedded || r.Path != "p" || r.Reason != "r" {
		t.Errorf("get: %+v %v", r, ok)
	}
}

// testSecret authenticates the verdict caches of the tests.
var testSecret = []byte("0123456789abcdef0123456789abcdef")

// The cache file is authenticated with the user's secret: a file written
// under another secret, a file with one byte changed, and a file forged
// without the secret are all read as an empty cache, so a cache file from
// anywhere else can only cost time.
func TestCacheEntriesAreAuthenticated(t *testing.T) {
	file := filepath.Join(t.TempDir(), "verify.cache")
	in := Input{Kind: item.Tool, ID: "a/b", Space: "project", Path: "x.py", Data: []byte("data")}
	ts, _ := LoadTrustStore(nil)
	p := Policy{Now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	c := openCache(file, testSecret)
	key := c.Key(in, ts, p)
	c.Put(key, Result{Verdict: Verified, Format: "v1", Warnings: []string{"v1 signature"}})
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	if r, ok := openCache(file, testSecret).Get(key, in); !ok || r.Warnings[0] != "v1 signature" {
		t.Fatal("the user's own entry is not read back")
	}
	other := []byte("another user's secret, 32 bytes!")
	if oc := openCache(file, other); oc.size() != 0 {
		t.Error("a file written under another secret was accepted")
	}
	data, _ := os.ReadFile(file)
	edited := bytes.Replace(data, []byte("v1 signature"), []byte("v1 signaturE"), 1)
	if bytes.Equal(edited, data) {
		t.Fatal("no warning to edit")
	}
	os.WriteFile(file, edited, 0o600)
	if openCache(file, testSecret).size() != 0 {
		t.Error("an edited file was accepted")
	}
	// A well-formed file whose MAC was made without the secret.
	forger := &cache{entries: map[[32]byte]cached{key: {Format: "v2"}}, stats: map[pathKey]statEntry{}, secret: other}
	body := append([]byte(cacheMagic), forger.encode()...)
	os.WriteFile(file, append(body, forger.mac(body)...), 0o600)
	if openCache(file, testSecret).size() != 0 {
		t.Error("a forged file was accepted")
	}
}

// The stat shortcut: a file whose stat data are those recorded with its
// hash is not read; a touch, an edit that keeps size and modification time,
// or any change within the racy margin of the read is never trusted.
func TestStatShortcut(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "x.py")
	os.WriteFile(file, []byte("one"), 0o644)
	old := time.Now().Add(-time.Hour)
	os.Chtimes(file, old, old)
	c := openCache(filepath.Join(dir, "c"), testSecret)
	fi, _ := os.Lstat(file)
	sum := sha256.Sum256([]byte("one"))
	// Read (as if) well after its last change: its change time, which no
	// one can set back, is now, so the read is placed past the margin.
	c.PutStat(file, fi, sum, time.Now().Add(statMargin+time.Second))
	if got, ok := c.StatSum(file, fi); !ok || got != sum {
		t.Fatal("an unchanged file's hash is not known")
	}
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	c = openCache(filepath.Join(dir, "c"), testSecret)
	if _, ok := c.StatSum(file, fi); !ok {
		t.Fatal("the stat table did not survive a save")
	}
	// Same size, same modification time, other content: the change time
	// moved, so the hash is not trusted.
	os.WriteFile(file, []byte("two"), 0o644)
	os.Chtimes(file, old, old)
	fi2, _ := os.Lstat(file)
	if fi2.Size() != fi.Size() || !fi2.ModTime().Equal(fi.ModTime()) {
		t.Fatal("the edit did not keep size and modification time")
	}
	if _, ok := c.StatSum(file, fi2); ok {
		t.Error("an edit that kept size and modification time was trusted")
	}
	// A touch that keeps the content changes the stat data too: read again.
	now := time.Now()
	os.Chtimes(file, now, now)
	fi3, _ := os.Lstat(file)
	if _, ok := c.StatSum(file, fi3); ok {
		t.Error("a touched file was trusted")
	}
	// Modified within the racy margin of its read: never recorded.
	c.PutStat(file, fi3, sha256.Sum256([]byte("two")), now)
	if _, ok := c.StatSum(file, fi3); ok {
		t.Error("a file changed just before its read was recorded")
	}
}

// TestCacheFileRoundTrip: verdicts and stat records survive a save and
// are found in the file's sorted tables; a bounded file keeps what the
// last run used or added before what it did not.
func TestCacheFileRoundTrip(t *testing.T) {
	file := filepath.Join(t.TempDir(), "c")
	dir := t.TempDir()
	c := openCache(file, testSecret)
	key := func(i int) [32]byte { return sha256.Sum256([]byte(fmt.Sprint("key", i))) }
	later := time.Now().Add(statMargin + time.Second)
	var files []string
	for i := range 300 {
		c.Put(key(i), Result{Verdict: Verified, Format: "v2", Fingerprint: fmt.Sprint("fp", i), Line: i, Warnings: []string{fmt.Sprint("w", i)}})
		f := filepath.Join(dir, fmt.Sprint(i))
		os.WriteFile(f, []byte(fmt.Sprint(i)), 0o644)
		files = append(files, f)
		fi, _ := os.Lstat(f)
		c.PutStat(f, fi, sha256.Sum256([]byte(fmt.Sprint(i))), later)
	}
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	c = openCache(file, testSecret)
	if c.size() != 300 || c.file.statCount() != 300 || len(c.entries) != 0 {
		t.Fatalf("reopened: %d verdicts (%d in the file), %d stat records", c.size(), c.file.entryCount(), c.file.statCount())
	}
	for i := range 300 {
		r, ok := c.Get(key(i), Input{Path: "p"})
		if !ok || r.Fingerprint != fmt.Sprint("fp", i) || r.Line != i || len(r.Warnings) != 1 || r.Warnings[0] != fmt.Sprint("w", i) {
			t.Fatalf("verdict %d: %+v %v", i, r, ok)
		}
		fi, _ := os.Lstat(files[i])
		if sum, ok := c.StatSum(files[i], fi); !ok || sum != sha256.Sum256([]byte(fmt.Sprint(i))) {
			t.Fatalf("stat record %d not found", i)
		}
	}
	if _, ok := c.Get(key(300), Input{}); ok {
		t.Error("a key never put was found")
	}
	// Bounded at 100: a run that used verdicts 0-49 and added 1000 keeps
	// 1000 and 0-49, and fills up with others.
	c = openCacheWith(file, testSecret, cacheLimits{MaxEntries: 100})
	if c.size() != 0 {
		t.Fatal("a file over the bound was read") // 300 > 100: refused as damaged
	}
	c = openCacheWith(file, testSecret, cacheLimits{MaxEntries: 400})
	for i := range 50 {
		c.Get(key(i), Input{})
	}
	c.Put(key(1000), Result{Verdict: Verified})
	c.limits.MaxEntries = 100
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	c = openCacheWith(file, testSecret, cacheLimits{MaxEntries: 100})
	if c.size() != 100 {
		t.Fatalf("bounded file: %d verdicts", c.size())
	}
	for _, i := range append([]int{1000}, 0, 25, 49) {
		if _, ok := c.Get(key(i), Input{}); !ok {
			t.Errorf("verdict %d, used or added by the last run, was dropped", i)
		}
	}
}

// FuzzCacheTables: whatever the body of an (authenticated) cache file,
// opening and searching it never panics.
func FuzzCacheTables(f *testing.F) {
	c := &cache{entries: map[[32]byte]cached{{1}: {Format: "v2", Warnings: []string{"w"}}, {2}: {Format: "v2", Warnings: []string{"w"}}}, stats: map[pathKey]statEntry{{2}: {sum: [32]byte{3}}}}
	f.Add(c.encode())
	f.Add([]byte{0, 0, 0, 1, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, body []byte) {
		tb, err := parseTables(body, maxCacheEntries)
		if err != nil {
			return
		}
		for i := range tb.entryCount() {
			tb.entry(i)
			if _, ok := tb.findEntry(tb.entryKey(i)); !ok && sortedKeys(tb) {
				t.Fatalf("entry %d not found in a sorted table", i)
			}
		}
		for i := range tb.statCount() {
			h, e := tb.stat(i)
			if _, ok := tb.findStat(h, e.stat); !ok && sortedStats(tb) {
				t.Fatalf("stat record %d not found in a sorted table", i)
			}
		}
	})
}

// sortedKeys reports whether a table's keys are strictly increasing (what
// rye writes; binary search is only promised for such tables).
func sortedKeys(tb tables) bool {
	for i := 1; i < tb.entryCount(); i++ {
		a, b := tb.entryKey(i-1), tb.entryKey(i)
		if bytes.Compare(a[:], b[:]) >= 0 {
			return false
		}
	}
	return true
}

// sortedStats reports whether the stat table's path keys are strictly
// increasing (what rye writes).
func sortedStats(tb tables) bool {
	for i := 1; i < tb.statCount(); i++ {
		a, _ := tb.stat(i - 1)
		b, _ := tb.stat(i)
		if bytes.Compare(a[:], b[:]) >= 0 {
			return false
		}
	}
	return true
}

// TestCacheKeyDerivation: the key is SHA-256 over the digest of what a
// run's keys share (format, binary, trust store, policy, day) and the
// item's length-prefixed kind, id, space, file form and hash; the shared
// digest follows the trust store and policy it was made for.
func TestCacheKeyDerivation(t *testing.T) {
	c := &cache{self: "rye\x00build"}
	ts, _ := LoadTrustStore(nil)
	in := Input{Kind: item.Tool, ID: "a/b", Space: "project", Path: "x/b.py"}
	sum := sha256.Sum256([]byte("data"))
	p := Policy{RequireV2: true, Now: time.Date(2026, 3, 4, 23, 0, 0, 0, time.FixedZone("x", -3600))}
	want := func(require, day string) [32]byte {
		d := newDigest()
		d.add(cacheMagic, c.self, ts.Digest(), require, day)
		var b []byte
		b = append(b, d.h.Sum(nil)...)
		for _, s := range []string{"tool", "a/b", "project", ".py", string(sum[:])} {
			b = binary.BigEndian.AppendUint64(b, uint64(len(s)))
			b = append(b, s...)
		}
		return sha256.Sum256(b)
	}
	if got := c.KeyForSum(sum, in, ts, p); got != want("v2-required", "2026-03-05") {
		t.Errorf("key %x", got)
	}
	p.RequireV2, p.Now = false, p.Now.Add(24*time.Hour)
	if got := c.KeyForSum(sum, in, ts, p); got != want("v1-allowed", "2026-03-06") {
		t.Errorf("key after the policy and day changed %x", got)
	}
}

// TestReadEveryJudgesTheBytesRead: when a later stage reads the sources
// again (lint in rye check), a verdict is never taken from the stat table:
// it is about the bytes that were read, here other bytes than those the
// stat data were recorded with (a file changed after its stat).
func TestReadEveryJudgesTheBytesRead(t *testing.T) {
	root := t.TempDir()
	sp := signedProject(t, root, 6)
	ts, err := LoadTrustStore(TrustSources([]*space.Space{sp}))
	if err != nil {
		t.Fatal(err)
	}
	c := openCache(filepath.Join(t.TempDir(), "c"), testSecret)
	srcs, _ := allSources(t, sp)
	v := &verifier{Trust: ts, Cache: c}
	for _, r := range v.Run(srcs) {
		if r.Verdict != Verified {
			t.Fatalf("%s: %s", r.Path, r.Verdict)
		}
	}
	// Record every file's stat data as read well after its last change.
	for _, s := range srcs {
		data, _ := os.ReadFile(s.DiskFile())
		fi, _ := os.Lstat(s.DiskFile())
		c.PutStat(s.DiskFile(), fi, sha256.Sum256(data), time.Now().Add(statMargin+time.Second))
	}
	tampered := make([]Source, len(srcs))
	for i, s := range srcs {
		s.Read = func() ([]byte, error) {
			data, err := os.ReadFile(s.DiskFile())
			return append(data, "\n# added after the stat\n"...), err
		}
		tampered[i] = s
	}
	v.ReadEvery = false
	if r := v.Run(tampered)[0]; r.Verdict != Verified {
		t.Fatalf("without ReadEvery the stat table should answer (the premise of this test): %s", r.Verdict)
	}
	v.ReadEvery = true
	for _, r := range v.Run(tampered) {
		if r.Verdict != Modified {
			t.Errorf("%s: %s, want modified: the verdict is not about the bytes read", r.Path, r.Verdict)
		}
	}
}

// TestDiskFile: a walked source names its file (the stat table's key); an
// embedded one, or one whose bytes come from elsewhere, names none.
func TestDiskFile(t *testing.T) {
	root := t.TempDir()
	sp := signedProject(t, root, 3)
	srcs, rels := allSources(t, sp)
	for i, s := range srcs {
		if want := filepath.Join(root, ".ai", filepath.FromSlash(rels[i])); s.DiskFile() != want {
			t.Errorf("%s: %q, want %q", s.Path, s.DiskFile(), want)
		}
	}
	if f := embeddedSources(t)[0].DiskFile(); f != "" {
		t.Errorf("an embedded item names a file: %q", f)
	}
	if f := (Source{In: sp, Rel: "tools/x.py", Read: func() ([]byte, error) { return nil, nil }}).DiskFile(); f != "" {
		t.Errorf("a source read from elsewhere names a file: %q", f)
	}
}

// TestBucketLookupComparesWholeKeys: the tables' bucket directories find
// every key of tables of any size, and a key that shares its leading 8
// bytes (all a probe compares) with entries of the table, but not the
// rest, is not found: the whole key decides.
func TestBucketLookupComparesWholeKeys(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 2, 3, 17, 1000} {
		c := &cache{entries: map[[32]byte]cached{}, stats: map[pathKey]statEntry{}, limits: cacheLimits{}.withDefaults()}
		var keys [][32]byte
		for i := range n {
			var k [32]byte
			for j := range k {
				k[j] = byte(r.Uint32())
			}
			if i%3 == 1 { // the same leading 8 bytes as the key before
				copy(k[:8], keys[i-1][:8])
			}
			keys = append(keys, k)
			c.entries[k] = cached{Format: "v2", Line: i}
		}
		tb, err := parseTables(c.encode(), maxCacheEntries)
		if err != nil {
			t.Fatal(err)
		}
		for i, k := range keys {
			j, ok := tb.findEntry(k)
			if e, _ := tb.entry(j); !ok || tb.entryKey(j) != k || e.Line != i {
				t.Fatalf("n=%d: key %d not found (%v, row %d)", n, i, ok, j)
			}
			near := k
			near[31] ^= 1 // same leading bytes, another key
			if _, ok := tb.findEntry(near); ok {
				t.Fatalf("n=%d: a key that differs after its leading bytes was found", n)
			}
		}
	}
}

// TestStatKeyCollisionIsAMiss: a stat record is keyed by a hash of its
// file's path, which only says where to look; a record found under a
// file's key whose stat data are not the file's (what a collision of two
// paths' keys would find) is never used, in this run's records and in the
// file's.
func TestStatKeyCollisionIsAMiss(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.py"), filepath.Join(dir, "b.py")
	os.WriteFile(a, []byte("aaa"), 0o644)
	os.WriteFile(b, []byte("bbb"), 0o644)
	stA, _, completeA, _ := filestat.Lstat(a)
	stB, _, completeB, _ := filestat.Lstat(b)
	if !completeA || !completeB {
		t.Skip("no complete stat data here: every file is read")
	}
	cacheFile := filepath.Join(dir, "c")
	c := openCache(cacheFile, testSecret)
	// b's record filed under a's key, as if the two paths' keys collided.
	c.stats[pathKeyOf(a)] = statEntry{stat: stB, sum: sha256.Sum256([]byte("bbb"))}
	c.putStats.Add(1)
	c.added++
	if _, ok := c.statSum(pathKeyOf(a), stA); ok {
		t.Fatal("another file's stat record was used (this run's records)")
	}
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	c = openCache(cacheFile, testSecret)
	if c.file.statCount() != 1 {
		t.Fatalf("%d stat records in the file", c.file.statCount())
	}
	if _, ok := c.statSum(pathKeyOf(a), stA); ok {
		t.Fatal("another file's stat record was used (the file's records)")
	}
	if sum, ok := c.statSum(pathKeyOf(a), stB); !ok || sum != sha256.Sum256([]byte("bbb")) {
		t.Fatal("the record is not found by its own stat data") // the lookup itself works
	}
}

// TestSharedDetails: entries with equal details share them in the file
// (written once) and in memory (decoded once); a caller appending to one
// result's warnings does not change another's.
func TestSharedDetails(t *testing.T) {
	file := filepath.Join(t.TempDir(), "c")
	c := openCache(file, testSecret)
	for i := range 100 {
		c.Put(sha256.Sum256([]byte(fmt.Sprint(i))), Result{Verdict: Verified, Format: "v2", Fingerprint: "SHA256:abc", Owner: "me", Warnings: []string{"w"}})
	}
	c.Put(sha256.Sum256([]byte("other")), Result{Verdict: Verified, Format: "v1", Line: 2})
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	c = openCache(file, testSecret)
	if n := len(encodeCached(cached{Format: "v2", Fingerprint: "SHA256:abc", Owner: "me", Warnings: []string{"w"}})) + len(encodeCached(cached{Format: "v1", Line: 2})); len(c.file.blob) != n {
		t.Fatalf("details: %d bytes, want %d (each distinct record once)", len(c.file.blob), n)
	}
	r0, ok0 := c.Get(sha256.Sum256([]byte("0")), Input{Path: "a"})
	r1, ok1 := c.Get(sha256.Sum256([]byte("1")), Input{Path: "b"})
	ro, oko := c.Get(sha256.Sum256([]byte("other")), Input{Path: "c"})
	if !ok0 || !ok1 || !oko || r0.Fingerprint != "SHA256:abc" || ro.Format != "v1" || ro.Line != 2 || len(ro.Warnings) != 0 {
		t.Fatalf("details: %+v %+v %+v", r0, r1, ro)
	}
	r0.Warnings = append(r0.Warnings, "mine")
	if len(r1.Warnings) != 1 || r1.Warnings[0] != "w" {
		t.Fatalf("another result's warnings changed: %q", r1.Warnings)
	}
	if again, _ := c.Get(sha256.Sum256([]byte("2")), Input{}); len(again.Warnings) != 1 {
		t.Fatalf("the shared details changed: %q", again.Warnings)
	}
}

// TestPathKeyIn: a file's path key made from its .ai folder and its path
// below is the key of its whole path (StatSum and PutStat take whole
// paths; the verifier does not build them).
func TestPathKeyIn(t *testing.T) {
	ai := filepath.Join(t.TempDir(), ".ai")
	for _, rel := range []string{"tools/a.py", "knowledge/x/y/z.md", strings.Repeat("d/", 300) + "long.md"} {
		if pathKeyIn(ai, rel) != pathKeyOf(ai+string(filepath.Separator)+filepath.FromSlash(rel)) {
			t.Errorf("%s: the keys differ", rel)
		}
	}
	if pathKeyIn(ai, "tools/a.py") == pathKeyIn(ai, "tools/b.py") {
		t.Error("two files, one key")
	}
}
