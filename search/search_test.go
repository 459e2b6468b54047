package search

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ryekit/rye/internal/corpus"
	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/space"
)

func TestTokenize(t *testing.T) {
	got := strings.Join(tokenize(nil, "rye/file-system/write: Write_a FILE, naïve 3.14 Straße"), "|")
	if got != "rye|file|system|write|write|a|file|naïve|3|14|straße" {
		t.Errorf("tokens %s", got)
	}
}

func TestParseScope(t *testing.T) {
	cases := map[string]string{
		"tool":                       "[tool] ",
		"tools":                      "[tool] ",
		"directive.my-project.*":     "[directive] my-project",
		"tool.rye.core":              "[tool] rye/core",
		"rye.search.tool.rye.core.*": "[tool] rye/core",
		"all":                        "[directive tool knowledge] ",
		"*":                          "[directive tool knowledge] ",
		"knowledge.*":                "[knowledge] ",
		"tool/hello/*":               "[tool] hello",
		"tool/hello/**":              "[tool] hello",
		"tool/hello":                 "[tool] hello",
		"hello/*":                    "[directive tool knowledge] hello",
		"all/tool/*":                 "[directive tool knowledge] tool",
		"tool/*":                     "[tool] ",
		"knowledge/my.notes/x":       "[knowledge] my.notes/x",
	}
	for in, want := range cases {
		sc, err := parseScope(in)
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		var ks []string
		for _, k := range sc.Kinds {
			ks = append(ks, string(k))
		}
		if got := "[" + strings.Join(ks, " ") + "] " + sc.Namespace; got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
	for _, bad := range []string{"gadget", "tool..x", "tool.a..b", "tool/a/*/b", "tool/a//b", "tool/../x"} {
		if _, err := parseScope(bad); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
	sc, _ := parseScope("tool.rye.core")
	for id, want := range map[string]bool{"rye/core": true, "rye/core/x": true, "rye/core_x": false, "rye": false} {
		if sc.Contains(item.Tool, item.ID(id)) != want {
			t.Errorf("rye.core contains %s: %v", id, !want)
		}
	}
	if sc.Contains(item.Directive, "rye/core/x") {
		t.Error("kind ignored")
	}
	sc, _ = parseScope("tool/hello/gr*")
	for id, want := range map[string]bool{"hello/greet": true, "hello/gr": true, "hello/grx/y": true, "hello/style": false} {
		if sc.Contains(item.Tool, item.ID(id)) != want {
			t.Errorf("tool/hello/gr* contains %s: %v", id, !want)
		}
	}
}

func TestStem(t *testing.T) {
	for w, want := range map[string]string{
		"greet": "greet", "greets": "greet", "greeting": "greet", "greetings": "greet", "greeted": "greet",
		"matches": "match", "matching": "match", "running": "run", "stopped": "stop", "falling": "fall",
		"libraries": "library", "copied": "copy", "create": "creat", "creating": "creat", "created": "creat",
		"class": "class", "status": "status", "analysis": "analysis", "sing": "sing", "bed": "bed",
		"naïve": "naïve", "v2s": "v2s",
	} {
		if got := stem(w); got != want {
			t.Errorf("stem(%s) = %s, want %s", w, got, want)
		}
	}
}

// Words match by stem and by prefix, nearer matches first: "greeting"
// finds an item about greets, "deplo" one about deployment; the very word
// outranks its variants.
func TestStemAndPrefixMatch(t *testing.T) {
	ix := newIndex()
	ix.Add(doc(item.Tool, "a/greet", fields{Name: "greet", Description: "Greet someone by name"}))
	ix.Add(doc(item.Knowledge, "a/style", fields{Name: "style", Title: "House style for greetings"}))
	ix.Add(doc(item.Tool, "a/ship", fields{Name: "ship", Description: "Deployment of the app"}))
	all, _ := parseScope("all")
	ids := func(q string) string {
		rs, _ := ix.Search(all, q, 0)
		var s []string
		for _, r := range rs {
			s = append(s, string(r.ID))
		}
		return strings.Join(s, " ")
	}
	if got := ids("greeting"); !strings.Contains(got, "a/greet") || !strings.Contains(got, "a/style") {
		t.Errorf("greeting: %s", got)
	}
	if got := ids("greet"); got != "a/greet a/style" {
		t.Errorf("greet: %s", got)
	}
	if got := ids("deplo"); got != "a/ship" {
		t.Errorf("deplo: %s", got)
	}
	if got := ids("de"); got != "" {
		t.Errorf("a two-letter word is not a prefix: %s", got)
	}
}

func doc(k item.Kind, id string, f fields) (*Doc, fields) {
	return &Doc{Kind: k, ID: item.ID(id), Space: "project"}, f
}

func TestRanking(t *testing.T) {
	ix := newIndex()
	ix.Add(doc(item.Tool, "a/deploy", fields{Name: "deploy", Description: "Deploy the app to production"}))
	ix.Add(doc(item.Tool, "a/build", fields{Name: "build", Description: "Build the app", Content: "after the build you may deploy"}))
	ix.Add(doc(item.Knowledge, "a/notes", fields{Name: "notes", Title: "Release notes", Content: "nothing about shipping"}))
	ix.Add(doc(item.Directive, "b/deploy_all", fields{Name: "deploy_all", Description: "Deploy everything", Category: "b"}))

	ids := func(rs []Result) string {
		var s []string
		for _, r := range rs {
			s = append(s, string(r.ID))
		}
		return strings.Join(s, " ")
	}
	all, _ := parseScope("all")
	rs, total := ix.Search(all, "deploy", 0)
	// Name and description matches outrank a body mention; no match, no result.
	if got := ids(rs); total != 3 || !strings.HasSuffix(got, "a/build") || strings.Contains(got, "a/notes") {
		t.Errorf("deploy: %s (total %d)", got, total)
	}
	if rs[0].Score <= rs[1].Score || rs[1].Score <= rs[2].Score {
		t.Errorf("scores not decreasing: %+v", rs)
	}
	// Two words: documents with both rank first.
	rs, _ = ix.Search(all, "deploy app", 0)
	if rs[0].ID != "a/deploy" {
		t.Errorf("deploy app: %s", ids(rs))
	}
	// A rare word is worth more than a common one (IDF).
	rs, _ = ix.Search(all, "production the", 0)
	if rs[0].ID != "a/deploy" {
		t.Errorf("idf: %s", ids(rs))
	}
	// Prefixes, scope, limit, and listing with "*".
	rs, _ = ix.Search(all, "rel*", 0)
	if ids(rs) != "a/notes" {
		t.Errorf("prefix: %s", ids(rs))
	}
	tools, _ := parseScope("tool")
	if rs, total := ix.Search(tools, "*", 1); ids(rs) != "a/build" || total != 2 {
		t.Errorf("list: %s %d", ids(rs), total)
	}
	if rs, _ := ix.Search(all, "zebra", 0); len(rs) != 0 {
		t.Errorf("zebra: %s", ids(rs))
	}
	// Weights: with the description weighted 0, a match only there is none.
	ix.Weights[item.Directive] = weights{0, 3, 0, 0, 1}
	rs, _ = ix.Search(all, "everything", 0)
	if len(rs) != 0 {
		t.Errorf("zero weights still matched: %+v", rs)
	}
}

// testSecret authenticates the caches of the tests.
var testSecret = []byte("0123456789abcdef0123456789abcdef")

// noRacy is the smallest margin: a test reuses the entries of files it
// has just written.
const noRacy = time.Nanosecond

func TestCacheRoundTripAndRefresh(t *testing.T) {
	root := t.TempDir()
	if err := corpus.Generate(root, 60, 1); err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	sp := space.NewDiskSpace(space.Project, root, "")
	spaces := []*space.Space{sp, space.EmbeddedSpace()}
	first, err := open(spaces, options{CacheDir: cache, Secret: testSecret, RacyMargin: noRacy})
	if err != nil {
		t.Fatal(err)
	}
	all, _ := parseScope("all")
	want, _ := first.Search(all, "deploy verify", 0)
	files, _ := filepath.Glob(filepath.Join(cache, "*.idx"))
	if len(files) != 1 {
		t.Fatalf("cache files: %v", files)
	}
	info, _ := os.Stat(files[0])
	second, err := open(spaces, options{CacheDir: cache, Secret: testSecret, RacyMargin: noRacy})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := second.Search(all, "deploy verify", 0)
	if len(got) == 0 || len(got) != len(want) {
		t.Fatalf("cached search: %d results, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("result %d differs: %+v vs %+v", i, got[i], want[i])
		}
	}
	if info2, _ := os.Stat(files[0]); !info2.ModTime().Equal(info.ModTime()) {
		t.Error("an unchanged tree rewrote the cache")
	}
	// An edited item is re-read; a deleted one disappears.
	edited := filepath.Join(root, ".ai", "knowledge", "ns01", "group01", "item_00001.md")
	if err := os.WriteFile(edited, []byte("---\nid: item_00001\ntitle: Zanzibar\nentry_type: x\nversion: \"1.0.0\"\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(root, ".ai", "tools", "ns02", "group02", "item_00002.py"))
	third, err := open(spaces, options{CacheDir: cache, Secret: testSecret, RacyMargin: noRacy})
	if err != nil {
		t.Fatal(err)
	}
	if rs, _ := third.Search(all, "zanzibar", 0); len(rs) != 1 || rs[0].ID != "ns01/group01/item_00001" {
		t.Errorf("edit not seen: %+v", rs)
	}
	if len(third.Docs) != len(first.Docs)-1 {
		t.Errorf("docs %d, want %d", len(third.Docs), len(first.Docs)-1)
	}
	// A damaged cache is rebuilt, not trusted.
	if err := os.WriteFile(files[0], append(append([]byte(nil), cacheMagic...), "garbage"...), 0o600); err != nil {
		t.Fatal(err)
	}
	if fourth, err := open(spaces, options{CacheDir: cache, Secret: testSecret, RacyMargin: noRacy}); err != nil || len(fourth.Docs) != len(third.Docs) {
		t.Errorf("damaged cache: %v", err)
	}
}

func TestShadowedItemsIndexedOnce(t *testing.T) {
	project, user := t.TempDir(), t.TempDir()
	for _, root := range []string{project, user} {
		p := filepath.Join(root, ".ai", "knowledge", "k.yaml")
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("id: k\ntitle: from "+filepath.Base(root)+"\n"), 0o644)
	}
	ix, err := open([]*space.Space{space.NewDiskSpace(space.Project, project, ""), space.NewDiskSpace(space.User, user, "")}, options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ix.Docs) != 1 || ix.Docs[0].Space != "project" {
		t.Errorf("docs: %+v", ix.Docs)
	}
}

// The path shown depends on the working directory (the project's is
// relative to it) while the cache file does not: the same cache opened
// with another Shown must give that Shown's paths, not the cached ones.
func TestCachedPathFollowsShown(t *testing.T) {
	root, cache := t.TempDir(), t.TempDir()
	writeItem(t, root, "tools/acme/x.js", "// A tool.\n")
	open := func(shown string) *index {
		t.Helper()
		sp := space.NewDiskSpace(space.Project, root, "")
		sp.Shown = shown
		ix, err := open([]*space.Space{sp}, options{CacheDir: cache, Secret: testSecret, RacyMargin: noRacy})
		if err != nil {
			t.Fatal(err)
		}
		if len(ix.Docs) != 1 {
			t.Fatalf("docs: %+v", ix.Docs)
		}
		return ix
	}
	if got, want := open(".").Docs[0].Path, filepath.Join(".ai", "tools", "acme", "x.js"); got != want {
		t.Errorf("from .: %s, want %s", got, want)
	}
	files, _ := filepath.Glob(filepath.Join(cache, "*.idx"))
	if len(files) != 1 {
		t.Fatalf("cache files: %v", files)
	}
	before, _ := os.Stat(files[0])
	all, _ := parseScope("all")
	ix := open("..")
	if got, want := ix.Docs[0].Path, filepath.Join("..", ".ai", "tools", "acme", "x.js"); got != want {
		t.Errorf("from a sub-folder: %s, want %s", got, want)
	}
	if rs, _ := ix.Search(all, "*", 0); len(rs) != 1 || rs[0].Path != filepath.Join("..", ".ai", "tools", "acme", "x.js") {
		t.Errorf("results: %+v", rs)
	}
	// The second open came from the cache (the file was not rewritten).
	if after, err := os.Stat(files[0]); err != nil || !os.SameFile(before, after) || !after.ModTime().Equal(before.ModTime()) {
		t.Error("the cache was rewritten: the test did not exercise it")
	}
}

// An item in two file forms of one space is indexed from the form
// resolution picks (the kind's extension order), not the first walked.
func TestTwoFormsIndexTheResolvedOne(t *testing.T) {
	root := t.TempDir()
	for _, rel := range []string{"tools/acme/x.js", "tools/acme/x.py", "tools/acme/x.sh"} {
		writeItem(t, root, rel, "# "+rel+"\n")
	}
	sp := space.NewDiskSpace(space.Project, root, "")
	rel, err := sp.Find(item.Tool, "acme/x")
	if err != nil || rel != "tools/acme/x.py" {
		t.Fatalf("resolution picks %s (%v)", rel, err)
	}
	cache := t.TempDir()
	for _, o := range []options{{}, {CacheDir: cache}, {CacheDir: cache}} {
		ix, err := open([]*space.Space{sp}, o)
		if err != nil {
			t.Fatal(err)
		}
		if len(ix.Docs) != 1 || ix.Docs[0].rel != rel || ix.Docs[0].Path != sp.DisplayPath(rel) {
			t.Errorf("cache %q: docs %+v, want only %s", o.CacheDir, ix.Docs, rel)
		}
	}
}

func writeItem(t *testing.T, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, ".ai", filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func FuzzDecodeCache(f *testing.F) {
	ix := newIndex()
	ix.Add(doc(item.Tool, "a/b", fields{Name: "b", Description: "hello world"}))
	f.Add(ix.encode())
	f.Add(append([]byte(nil), cacheMagic...))
	f.Fuzz(func(t *testing.T, data []byte) {
		ix, err := decodeIndex(data)
		if err != nil {
			return
		}
		all, _ := parseScope("all")
		ix.Search(all, "hello wor*", 5)
		if _, err := decodeIndex(ix.encode()); err != nil {
			t.Fatalf("re-encoding a decoded cache fails: %v", err)
		}
	})
}

// The cache is authenticated: a file whose HMAC does not check under the
// user's secret (forged, or written with another secret) is ignored and
// rebuilt; without a secret there is no cache at all. An entry is reused
// only when the file's stat data are all those it was indexed with: size
// and modification time kept, the change time tells.
func TestCacheIsAuthenticatedAndKeyedOnAllStatData(t *testing.T) {
	root, cache := t.TempDir(), t.TempDir()
	writeItem(t, root, "knowledge/acme/k.md", "```yaml\nid: k\ntitle: Real title\n```\n")
	p := filepath.Join(root, ".ai", "knowledge", "acme", "k.md")
	spaces := []*space.Space{space.NewDiskSpace(space.Project, root, "")}
	if _, err := open(spaces, options{CacheDir: cache}); err != nil {
		t.Fatal(err)
	}
	if files, _ := filepath.Glob(filepath.Join(cache, "*.idx")); len(files) != 0 {
		t.Fatalf("a cache without a secret: %v", files)
	}
	if _, err := open(spaces, options{CacheDir: cache, Secret: testSecret, RacyMargin: noRacy}); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(cache, "*.idx"))
	if len(files) != 1 {
		t.Fatalf("cache files: %v", files)
	}
	data, _ := os.ReadFile(files[0])
	body, err := unseal(data, testSecret)
	if err != nil {
		t.Fatal(err)
	}
	forged, err := decodeIndex(body)
	if err != nil {
		t.Fatal(err)
	}
	forged.Docs[0].Title = "Forged title"
	for name, sealed := range map[string][]byte{
		"another secret": seal(forged.encode(), []byte("another secret, 32 bytes long...")),
		"no HMAC":        forged.encode(),
	} {
		os.WriteFile(files[0], sealed, 0o600)
		ix, err := open(spaces, options{CacheDir: cache, Secret: testSecret, RacyMargin: noRacy})
		if err != nil || ix.Docs[0].Title != "Real title" {
			t.Errorf("%s: %v %+v", name, err, ix.Docs)
		}
	}
	// The same size and modification time, other bytes: re-read.
	info, _ := os.Stat(p)
	os.WriteFile(p, []byte("```yaml\nid: k\ntitle: Next title\n```\n"), 0o644)
	os.Chtimes(p, info.ModTime(), info.ModTime())
	if ix, err := open(spaces, options{CacheDir: cache, Secret: testSecret, RacyMargin: noRacy}); err != nil || ix.Docs[0].Title != "Next title" {
		t.Errorf("same size and time: %v %+v", err, ix.Docs[0])
	}
}
