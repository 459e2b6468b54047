package verify

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/sign"
	"github.com/ryekit/rye/space"
)

func spacesOf(t *testing.T, root string) *space.Spaces {
	t.Helper()
	ss, err := space.Discover(space.Options{WorkDir: root, ProjectDir: root, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	return ss
}

// Run verifies what the request selects, reads each item once (a second
// read gets the verified bytes even after the file changed), and names the
// field at fault when a request cannot run.
func TestRun(t *testing.T) {
	root := t.TempDir()
	sp := signedProject(t, root, 20)
	ss := spacesOf(t, root)
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	res, err := Run(Request{Spaces: ss, Trust: treeTrust(t, ss), Policy: Policy{Now: now}, KeepBytes: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Items) != 20 || len(res.Sources) != 20 {
		t.Fatalf("%d results, %d sources", len(res.Items), len(res.Sources))
	}
	for _, r := range res.Items {
		if r.Verdict != Verified {
			t.Errorf("%s: %s %s", r.Path, r.Verdict, r.Reason)
		}
	}
	// With KeepBytes, the bytes handed on are the ones verified; without,
	// they are not kept (a later read goes to the file).
	first := res.Sources[0]
	before, _ := first.Bytes()
	file := filepath.Join(sp.AI(), filepath.FromSlash(first.Rel))
	os.WriteFile(file, []byte("changed"), 0o644)
	if after, _ := first.Bytes(); string(after) != string(before) {
		t.Error("a second read of a source read the file again")
	}
	os.WriteFile(file, before, 0o644)
	res, err = Run(Request{Spaces: ss, Trust: treeTrust(t, ss), Policy: Policy{Now: now}})
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(file, []byte("changed"), 0o644)
	if after, _ := res.Sources[0].Bytes(); string(after) != "changed" {
		t.Error("without KeepBytes the bytes were kept")
	}
	os.WriteFile(file, before, 0o644)

	// One kind, one pattern.
	res, err = Run(Request{Spaces: ss, Trust: treeTrust(t, ss), Kinds: []item.Kind{res.Items[1].Kind}, Patterns: []string{string(res.Items[1].ID)}, Policy: Policy{Now: now}})
	if err != nil || len(res.Items) != 1 {
		t.Fatalf("pattern: %v, %d items", err, len(res.Items))
	}

	for name, c := range map[string]struct {
		req   Request
		field string
	}{
		"unknown tier":                {Request{Spaces: ss, Trust: treeTrust(t, ss), Tier: "galaxy"}, FieldTier},
		"pattern matching nothing":    {Request{Spaces: ss, Trust: treeTrust(t, ss), Patterns: []string{"no/such/item"}}, FieldPatterns},
		"staged and changed":          {Request{Spaces: ss, Trust: treeTrust(t, ss), Staged: true, ChangedSince: "HEAD"}, FieldChangedSince},
		"staged with the tree's keys": {Request{Spaces: ss, Trust: treeTrust(t, ss), Staged: true}, FieldStaged},
		"changed since outside git":   {Request{Spaces: ss, Trust: treeTrust(t, ss), ChangedSince: "main"}, FieldChangedSince},
	} {
		_, err := Run(c.req)
		var re *RequestError
		if !errors.As(err, &re) || re.Field != c.field {
			t.Errorf("%s: %v, want a RequestError on %q", name, err, c.field)
		}
	}

	// Trust that reads git needs a project, and a repository; the user's
	// keys are left out only under a ref.
	noProject, err := space.Discover(space.Options{WorkDir: t.TempDir(), Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadTrust(noProject, TrustOptions{Staged: true}); !errors.Is(err, ErrNoProject) {
		t.Errorf("staged without a project: %v", err)
	}
	for name, c := range map[string]struct {
		o     TrustOptions
		field string
	}{
		"trust user without ref": {TrustOptions{User: true}, FieldTrustUser},
		"ref outside git":        {TrustOptions{Ref: "main"}, FieldTrustRef},
		"staged outside git":     {TrustOptions{Staged: true}, FieldStaged},
	} {
		_, _, err := LoadTrust(ss, c.o)
		var re *RequestError
		if !errors.As(err, &re) || re.Field != c.field {
			t.Errorf("%s: %v, want a RequestError on %q", name, err, c.field)
		}
	}
}

// treeTrust is the trust store of the working tree, as a run without git
// reads it.
func treeTrust(t testing.TB, ss *space.Spaces) *TrustStore {
	t.Helper()
	ts, _, err := LoadTrust(ss, TrustOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

// A bundle manifest is checked by the same ladder as items: no location
// check (it is not an item), only the format it requires, and the
// caller's fixes in the reasons.
func TestCheckRequiredFormatAndHints(t *testing.T) {
	key := testKey()
	ts, err := LoadTrustStore([]TrustSource{MemTrustSource("t", "t", map[string][]byte{key.Fingerprint + ".toml": FormatTrustedKey(&TrustedKey{Owner: "t", Public: key.Public})})})
	if err != nil {
		t.Fatal(err)
	}
	manifest := []byte("bundle:\n  id: \"rel\"\n")
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	in := Input{Kind: "bundle", ID: "rel", Path: ".ai/bundles/rel/manifest.yaml", Require: sign.V2, Resign: "rye bundle create rel"}
	for _, f := range []sign.Format{sign.V1, sign.V2} {
		// v1 cannot sign a bundle (its hash input is defined for items
		// only): a v1 line signed for a tool stands in for a forged one.
		kind := item.Kind("bundle")
		if f == sign.V1 {
			kind = item.Tool
		}
		in.Data, err = sign.Sign(key, f, kind, "rel", ".yaml", manifest, at)
		if err != nil {
			t.Fatal(err)
		}
		r := Check(in, ts, Policy{Now: at})
		switch f {
		case sign.V1:
			if r.Verdict != legacyFormat || !strings.Contains(r.Reason, "rye bundle create rel") {
				t.Errorf("v1 manifest: %s %s", r.Verdict, r.Reason)
			}
		case sign.V2:
			if r.Verdict != Verified {
				t.Errorf("v2 manifest: %s %s", r.Verdict, r.Reason)
			}
		}
	}
	in.TrustHint = func(fp string) string { return "trust it with --trust " + fp }
	r := Check(in, &TrustStore{}, Policy{Now: at})
	if r.Verdict != UntrustedKey || !strings.HasSuffix(r.Reason, "trust it with --trust "+key.Fingerprint) {
		t.Errorf("untrusted: %s %s", r.Verdict, r.Reason)
	}
}

// TestEachHandsOnTheVerifiedBytes: with Each, the sources are verified a
// chunk at a time; while a chunk is handed on, each of its sources reads
// the bytes its verdict is about (the file changed since); after, they are
// let go; the results are those of a run without Each.
func TestEachHandsOnTheVerifiedBytes(t *testing.T) {
	root := t.TempDir()
	sp := signedProject(t, root, 7)
	ss := spacesOf(t, root)
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	whole, err := Run(Request{Spaces: ss, Trust: treeTrust(t, ss), Policy: Policy{Now: now}})
	if err != nil {
		t.Fatal(err)
	}
	var chunks []int
	var let []Source
	res, err := Run(Request{Spaces: ss, Trust: treeTrust(t, ss), Policy: Policy{Now: now}, ChunkSize: 3, Each: func(srcs []Source, first, n int, results []Result) error {
		chunks = append(chunks, n)
		for i := first; i < first+n; i++ {
			if results[i-first].Verdict != Verified {
				t.Errorf("%s: %s", results[i-first].Path, results[i-first].Verdict)
			}
			file := filepath.Join(sp.AI(), filepath.FromSlash(srcs[i].Rel))
			before, _ := os.ReadFile(file)
			os.WriteFile(file, []byte("changed"), 0o644)
			if got, _ := srcs[i].Bytes(); !bytes.Equal(got, before) {
				t.Errorf("%s: handed on other bytes than those verified", srcs[i].Path)
			}
			os.WriteFile(file, before, 0o644)
		}
		for _, s := range let {
			file := filepath.Join(sp.AI(), filepath.FromSlash(s.Rel))
			before, _ := os.ReadFile(file)
			os.WriteFile(file, []byte("again"), 0o644)
			if got, _ := s.Bytes(); string(got) != "again" {
				t.Errorf("%s: the bytes of an earlier chunk were kept", s.Path)
			}
			os.WriteFile(file, before, 0o644)
		}
		let = srcs[first : first+n]
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(chunks, []int{3, 3, 1}) || !reflect.DeepEqual(res.Items, whole.Items) {
		t.Errorf("chunks %v; results equal: %v", chunks, reflect.DeepEqual(res.Items, whole.Items))
	}
	stop := errors.New("stop")
	if _, err := Run(Request{Spaces: ss, Trust: treeTrust(t, ss), Policy: Policy{Now: now}, ChunkSize: 3, Each: func([]Source, int, int, []Result) error { return stop }}); !errors.Is(err, stop) {
		t.Errorf("an error from Each: %v", err)
	}
}

// TestCountPassed: with CountPassed, Items are exactly the results of a
// full run that failed or carry warnings, in order, Passed counts the
// rest, and no source is kept; with a trust ref or KeepBytes every result
// is kept.
func TestCountPassed(t *testing.T) {
	root := t.TempDir()
	sp := signedProject(t, root, 60)
	ss := spacesOf(t, root)
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	full, err := Run(Request{Spaces: ss, Trust: treeTrust(t, ss), Policy: Policy{Now: now}})
	if err != nil {
		t.Fatal(err)
	}
	// Tamper with a few items across the chunks.
	for _, i := range []int{0, 17, 59} {
		file := filepath.Join(sp.AI(), filepath.FromSlash(full.Sources[i].Rel))
		data, _ := os.ReadFile(file)
		os.WriteFile(file, append(data, "\n# changed\n"...), 0o644)
	}
	full, _ = Run(Request{Spaces: ss, Trust: treeTrust(t, ss), Policy: Policy{Now: now}})
	var problems []Result
	for _, r := range full.Items {
		if r.Verdict.Failed() || len(r.Warnings) > 0 {
			problems = append(problems, r)
		}
	}
	if len(problems) != 3 {
		t.Fatalf("%d problems, want 3", len(problems))
	}
	for _, chunk := range []int{1, 7, 0} {
		var progress []int
		res, err := Run(Request{Spaces: ss, Trust: treeTrust(t, ss), Policy: Policy{Now: now}, CountPassed: true, ChunkSize: chunk, Progress: func(done, _ int) { progress = append(progress, done) }})
		if err != nil {
			t.Fatal(err)
		}
		sameResults(t, fmt.Sprintf("chunks of %d", chunk), res.Items, problems)
		if res.Passed != len(full.Items)-3 || res.Sources != nil {
			t.Errorf("chunks of %d: %d passed (want %d), %d sources kept", chunk, res.Passed, len(full.Items)-3, len(res.Sources))
		}
		if len(progress) == 0 || progress[len(progress)-1] != len(full.Items) {
			t.Errorf("chunks of %d: progress %v", chunk, progress)
		}
	}
	res, err := Run(Request{Spaces: ss, Trust: treeTrust(t, ss), Policy: Policy{Now: now}, CountPassed: true, KeepBytes: true})
	if err != nil || len(res.Items) != len(full.Items) || res.Passed != 0 {
		t.Errorf("KeepBytes: %d results, %d passed, %v", len(res.Items), res.Passed, err)
	}
}

// TestSink: the sink is handed every result of a full run, in order, a
// chunk at a time, while Items keep only the problems (CountPassed) or
// everything; with Each too; an error from it ends the run.
func TestSink(t *testing.T) {
	root := t.TempDir()
	sp := signedProject(t, root, 25)
	ss := spacesOf(t, root)
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	for _, i := range []int{3, 24} {
		sources, _ := allSources(t, sp)
		file := filepath.Join(sp.AI(), filepath.FromSlash(sources[i].Rel))
		data, _ := os.ReadFile(file)
		os.WriteFile(file, append(data, "\n# changed\n"...), 0o644)
	}
	full, err := Run(Request{Spaces: ss, Trust: treeTrust(t, ss), Policy: Policy{Now: now}})
	if err != nil {
		t.Fatal(err)
	}
	var problems []Result
	for _, r := range full.Items {
		if r.Verdict.Failed() || len(r.Warnings) > 0 {
			problems = append(problems, r)
		}
	}
	if len(problems) != 2 {
		t.Fatalf("%d problems", len(problems))
	}
	cases := map[string]struct {
		req    Request
		chunks []int
		items  []Result
	}{
		"count passed":      {Request{CountPassed: true, ChunkSize: 10}, []int{10, 10, 5}, problems},
		"keep every result": {Request{ChunkSize: 10}, []int{25}, full.Items},
		"keep bytes":        {Request{CountPassed: true, KeepBytes: true, ChunkSize: 10}, []int{25}, full.Items},
		"each":              {Request{CountPassed: true, ChunkSize: 10, Each: func([]Source, int, int, []Result) error { return nil }}, []int{10, 10, 5}, problems},
		"each, every one":   {Request{ChunkSize: 10, Each: func([]Source, int, int, []Result) error { return nil }}, []int{10, 10, 5}, full.Items},
	}
	for name, c := range cases {
		var got []Result
		var chunks []int
		req := c.req
		req.Spaces, req.Trust, req.Policy = ss, treeTrust(t, ss), Policy{Now: now}
		req.Sink = func(rs []Result) error {
			chunks = append(chunks, len(rs))
			got = append(got, rs...)
			return nil
		}
		res, err := Run(req)
		if err != nil {
			t.Fatal(err)
		}
		sameResults(t, name+": handed", got, full.Items)
		sameResults(t, name+": kept", res.Items, c.items)
		if !reflect.DeepEqual(chunks, c.chunks) || len(res.Items)+res.Passed != 25 {
			t.Errorf("%s: chunks %v, %d kept + %d passed", name, chunks, len(res.Items), res.Passed)
		}
	}
	stop := errors.New("stop")
	for _, count := range []bool{true, false} {
		if _, err := Run(Request{Spaces: ss, Trust: treeTrust(t, ss), Policy: Policy{Now: now}, CountPassed: count, Sink: func([]Result) error { return stop }}); !errors.Is(err, stop) {
			t.Errorf("count %v: an error from the sink: %v", count, err)
		}
	}
}

// Under a trust ref the sink gets the results once the rollback check has
// run: an item put back at an older signature is handed on as a rollback,
// never as verified.
func TestSinkAfterRollbacks(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	root := t.TempDir()
	sp := signedProject(t, root, 5)
	git := func(args ...string) {
		c := exec.Command("git", append([]string{"-C", root, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-q", "-m", "signed")
	sources, _ := allSources(t, sp)
	older := sources[2]
	file := filepath.Join(sp.AI(), filepath.FromSlash(older.Rel))
	data, _ := os.ReadFile(file)
	os.WriteFile(file, append(data, "\n# an older version\n"...), 0o644)
	b := &sign.Batch{Key: testKey(), Format: sign.V2, Time: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	if r := b.Run([]sign.Target{{Kind: older.Kind, ID: older.ID, Space: sp, Rel: older.Rel}}); r[0].Err != nil {
		t.Fatal(r[0].Err)
	}
	ss := spacesOf(t, root)
	ts, g, err := LoadTrust(ss, TrustOptions{Ref: "HEAD"})
	if err != nil {
		t.Fatal(err)
	}
	var got []Result
	calls := 0
	res, err := Run(Request{Spaces: ss, Trust: ts, Git: g, Policy: Policy{Now: time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)}, CountPassed: true, ChunkSize: 2,
		Sink: func(rs []Result) error { calls++; got = append(got, rs...); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	sameResults(t, "handed", got, res.Items)
	if calls != 1 || len(got) != 5 || got[2].Verdict != rollback {
		t.Errorf("%d calls; %d results, the older one %s", calls, len(got), got[2].Verdict)
	}
}

// TestWalkCounting: a run over every item that reports only problems
// (CountPassed, no progress line) verifies the items as the walk finds
// them; its problems are a full run's, in the same order (a link named
// like an item after the space's items), and Passed counts the rest, with
// the verdict cache cold and warm, in one space or several (tier all,
// the system space's embedded items included); a project without items
// says so.
func TestWalkCounting(t *testing.T) {
	root := t.TempDir()
	sp := signedProject(t, root, 40)
	ss := spacesOf(t, root)
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	full, err := Run(Request{Spaces: ss, Trust: treeTrust(t, ss), Policy: Policy{Now: now}})
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 13, 39} {
		file := filepath.Join(sp.AI(), filepath.FromSlash(full.Sources[i].Rel))
		data, _ := os.ReadFile(file)
		os.WriteFile(file, append(data, "\n# changed\n"...), 0o644)
	}
	os.Symlink(filepath.Join(sp.AI(), filepath.FromSlash(full.Sources[5].Rel)), filepath.Join(sp.AI(), "tools", "aaa_link.py"))
	cache := filepath.Join(t.TempDir(), "verify.cache")
	for _, tier := range []string{"project", "all"} {
		full, err := Run(Request{Spaces: ss, Tier: tier, Trust: treeTrust(t, ss), Policy: Policy{Now: now}})
		if err != nil {
			t.Fatal(err)
		}
		var problems []Result
		for _, r := range full.Items {
			if r.Verdict.Failed() || len(r.Warnings) > 0 {
				problems = append(problems, r)
			}
		}
		if len(problems) != 4 || problems[3].Verdict != unreadable {
			t.Fatalf("%s: problems %+v", tier, problems)
		}
		for _, chunk := range []int{1, 7, 0} {
			for _, pass := range []string{"no cache", "cold", "warm"} {
				req := Request{Spaces: ss, Tier: tier, Trust: treeTrust(t, ss), Policy: Policy{Now: now}, CountPassed: true, ChunkSize: chunk}
				if pass != "no cache" {
					req.Cache, req.CacheSecret = cache, testSecret
				}
				res, err := Run(req)
				if err != nil {
					t.Fatal(err)
				}
				what := fmt.Sprintf("%s, chunks of %d, %s", tier, chunk, pass)
				sameResults(t, what, res.Items, problems)
				if res.Passed != len(full.Items)-4 || res.Sources != nil || len(res.Notes) != 0 {
					t.Errorf("%s: %d passed (want %d), %d sources kept, notes %q", what, res.Passed, len(full.Items)-4, len(res.Sources), res.Notes)
				}
			}
			os.Remove(cache)
		}
	}
	empty := t.TempDir()
	os.MkdirAll(filepath.Join(empty, ".ai", "tools"), 0o755)
	es := spacesOf(t, empty)
	res, err := Run(Request{Spaces: es, Trust: treeTrust(t, es), Policy: Policy{Now: now}, CountPassed: true})
	if err != nil || len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "the project has no items yet") {
		t.Errorf("an empty project: %q, %v", res.Notes, err)
	}
}
