package sign

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ryekit/rye/internal/atomicfile"
	"github.com/ryekit/rye/internal/corpus"
	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/space"
)

// corpusTargets generates n items under root and returns them as targets.
func corpusTargets(t testing.TB, root string, n int) []Target {
	t.Helper()
	if err := corpus.Generate(root, n, 7); err != nil {
		t.Fatal(err)
	}
	sp := space.NewDiskSpace(space.Project, root, "")
	found, _, err := sp.Walk(item.Kinds)
	if err != nil {
		t.Fatal(err)
	}
	targets := make([]Target, len(found))
	for i, f := range found {
		targets[i] = Target{Kind: f.Kind, ID: f.ID, Space: sp, Rel: f.Rel, File: filepath.Join(root, ".ai", filepath.FromSlash(f.Rel)), Display: f.Rel}
	}
	return targets
}

// shippedValidator checks metadata with the embedded extractor rules.
func shippedValidator(t testing.TB) func(Target, []byte) error {
	ss := &space.Spaces{System: []*space.Space{space.EmbeddedSpace()}}
	rules := map[item.Kind]*item.Extractor{}
	for _, k := range item.Kinds {
		x, err := ss.Extractor(k)
		if err != nil {
			t.Fatal(err)
		}
		rules[k] = x
	}
	return func(tg Target, src []byte) error {
		if errs := item.Validate(rules[tg.Kind], tg.Kind, tg.ID, tg.Display, src); len(errs) > 0 {
			return errs[0]
		}
		return nil
	}
}

func outcomes(rs []Result) map[outcome]int {
	m := map[outcome]int{}
	for _, r := range rs {
		m[r.Outcome]++
	}
	return m
}

func TestBatchRun(t *testing.T) {
	root := t.TempDir()
	targets := corpusTargets(t, root, 60)
	// One item with invalid metadata, one symbolic link.
	var bad Target
	for _, tg := range targets {
		if filepath.Ext(tg.File) == ".yaml" {
			bad = tg
			break
		}
	}
	os.WriteFile(bad.File, []byte("version: 1.0\n"), 0o644)
	var good []Target // the first ten valid items
	for _, tg := range targets {
		if tg != bad && len(good) < 10 {
			good = append(good, tg)
		}
	}
	link := Target{Kind: item.Tool, ID: "link", Space: targets[0].Space, Rel: "tools/link.py", Display: "link"}
	if err := os.Symlink(targets[2].File, filepath.Join(root, ".ai", "tools", "link.py")); err != nil {
		t.Skip(err)
	}
	targets = append(targets, link)
	key := vectorKey()
	now := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	b := &Batch{Key: key, Format: V2, Time: now, Validate: shippedValidator(t), ChunkSize: 7}
	var progress []int
	b.Progress = func(done, total int) { progress = append(progress, done) }
	rs := b.Run(targets)
	got := outcomes(rs)
	if got[OutcomeSigned] != 59 || got[OutcomeFailed] != 2 || len(progress) != 61 || progress[60] != 61 {
		t.Fatalf("outcomes %v, progress %d", got, len(progress))
	}
	for i, r := range rs {
		if r.Target != targets[i] {
			t.Fatal("results out of order")
		}
		src, _ := os.ReadFile(r.File)
		switch {
		case r.File == bad.File:
			if r.Err == nil || !strings.Contains(r.Err.Error(), "category: missing required field") || strings.Contains(string(src), "rye:signed") {
				t.Errorf("invalid item: %v", r.Err)
			}
		case r.File == link.File:
			if r.Err == nil || !strings.Contains(r.Err.Error(), "symbolic link") {
				t.Errorf("symlink: %v", r.Err)
			}
		case !SignedBy(key, V2, r.Kind, r.ID, filepath.Ext(r.File), src):
			t.Errorf("%s not signed", r.Display)
		}
	}
	// Idempotent: nothing is rewritten, not even the modification time.
	// Each signed file's modification time is first set years back, which
	// any rewrite (in place or by rename) would replace with today's on
	// any file system, however coarse its timestamps; a rename would also
	// give the file another inode.
	old := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	stats := map[string]os.FileInfo{}
	for _, tg := range targets {
		if tg.File == bad.File || tg.File == link.File {
			continue
		}
		if err := os.Chtimes(tg.File, old, old); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Lstat(tg.File)
		if err != nil {
			t.Fatal(err)
		}
		stats[tg.File] = fi
	}
	b.Time = now.Add(time.Hour)
	if got := outcomes(b.Run(targets)); got[OutcomeUnchanged] != 59 || got[OutcomeFailed] != 2 {
		t.Errorf("second run: %v", got)
	}
	for file, fi0 := range stats {
		fi, err := os.Lstat(file)
		if err != nil {
			t.Fatal(err)
		}
		if !fi.ModTime().Equal(old) || !os.SameFile(fi, fi0) || fi.Size() != fi0.Size() {
			t.Errorf("an unchanged item was rewritten: %s (modified %v, same file %v)", file, fi.ModTime(), os.SameFile(fi, fi0))
		}
	}
	// Another format or --force re-signs; --dry-run writes nothing.
	b.Format, b.DryRun = V1, true
	before, _ := os.ReadFile(good[0].File)
	if got := outcomes(b.Run(good)); got[OutcomeWouldSign] != 10 {
		t.Errorf("dry run: %v", got)
	}
	if after, _ := os.ReadFile(good[0].File); string(after) != string(before) {
		t.Error("dry run wrote")
	}
	b.Format, b.DryRun, b.Force = V2, false, true
	if got := outcomes(b.Run(good)); got[OutcomeSigned] != 10 {
		t.Errorf("force: %v", got)
	}
	filepath.Walk(root, func(p string, _ os.FileInfo, _ error) error {
		if strings.Contains(p, atomicfile.TempPrefix) {
			t.Errorf("temporary file left: %s", p)
		}
		return nil
	})
}

// TestBatchRefuses: a target is read through its space, which refuses a
// link on any component of its path (not only the last), a file over
// bundle.MaxItemSize and one that is not regular; the file on disk is
// derived from the space when not given, and a target given only as a file
// finds its space from the .ai folder above it.
func TestBatchRefuses(t *testing.T) {
	root := t.TempDir()
	sp := space.NewDiskSpace(space.Project, root, "")
	write := func(rel, text string) {
		p := filepath.Join(root, ".ai", filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("tools/a/ok.py", "x = 1\n")
	write("tools/a/big.py", strings.Repeat("#", space.MaxItemSize+1))
	write("tools/real/x.py", "y = 2\n")
	os.MkdirAll(filepath.Join(root, ".ai", "tools", "a", "dir.py"), 0o755)
	os.Chmod(filepath.Join(root, ".ai", "tools", "a", "ok.py"), 0o750)
	if err := os.Symlink(filepath.Join(root, ".ai", "tools", "real"), filepath.Join(root, ".ai", "tools", "linked")); err != nil {
		t.Skip(err)
	}
	targets := []Target{
		{Kind: item.Tool, ID: "a/ok", Space: sp, Rel: "tools/a/ok.py"},
		{Kind: item.Tool, ID: "linked/x", Space: sp, Rel: "tools/linked/x.py"},
		{Kind: item.Tool, ID: "a/big", Space: sp, Rel: "tools/a/big.py"},
		{Kind: item.Tool, ID: "a/dir", Space: sp, Rel: "tools/a/dir.py"},
		{Kind: item.Tool, ID: "x", Rel: "tools/x.py"},
		{Kind: item.Tool, ID: "e", Space: space.EmbeddedSpace(), Rel: "tools/e.py"},
	}
	want := []string{"", "tools/linked: is a symbolic link", "is larger than 1048576 bytes", "is not a regular file",
		"no space", "compiled into rye"}
	b := &Batch{Key: vectorKey(), Format: V2, Time: time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)}
	rs := b.Run(targets)
	for i, r := range rs {
		if r.Target != targets[i] {
			t.Errorf("%d: the result does not carry the target as given", i)
		}
		switch {
		case want[i] == "" && (r.Err != nil || r.Outcome != OutcomeSigned):
			t.Errorf("%s: %s %v", r.Rel, r.Outcome, r.Err)
		case want[i] != "" && (r.Outcome != OutcomeFailed || r.Err == nil || !strings.Contains(r.Err.Error(), want[i])):
			t.Errorf("%s: %s %v, want %q", r.Rel, r.Outcome, r.Err, want[i])
		}
	}
	if data, _ := os.ReadFile(filepath.Join(root, ".ai", "tools", "real", "x.py")); string(data) != "y = 2\n" {
		t.Errorf("signed through a linked folder: %q", data)
	}
	if data, _ := os.ReadFile(filepath.Join(root, ".ai", "tools", "a", "ok.py")); !strings.Contains(string(data), "rye:signed:v2:") {
		t.Errorf("not signed: %q", data)
	}
	if info, err := os.Stat(filepath.Join(root, ".ai", "tools", "a", "ok.py")); err != nil || runtime.GOOS != "windows" && info.Mode().Perm() != 0o750 {
		t.Errorf("the signed file lost its mode: %v %v", info.Mode(), err)
	}
}

// TestCrashSafety kills a signing batch of 5,000 items with SIGKILL while
// it runs, then checks that every file is either its old bytes or a fully
// signed new version, and that running again completes the batch.
func TestCrashSafety(t *testing.T) {
	if dir := os.Getenv("RYE_CRASH_CHILD"); dir != "" {
		crashChild(t, dir)
		return
	}
	if testing.Short() {
		t.Skip("slow: generates 5,000 items")
	}
	root := t.TempDir()
	targets := corpusTargets(t, root, 5000)
	original := map[string][]byte{}
	for _, tg := range targets {
		original[tg.File], _ = os.ReadFile(tg.File)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashSafety$")
	cmd.Env = append(os.Environ(), "RYE_CRASH_CHILD="+root)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Kill it about a fifth of the way through: items are signed in walk
	// order, so an evenly spaced sample tells how far it got.
	deadline := time.Now().Add(60 * time.Second)
	for {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the child signed too little in 60 s")
		}
		signed := 0
		for i := 0; i < len(targets); i += 50 {
			if data, _ := os.ReadFile(targets[i].File); strings.Contains(string(data[:min(len(data), 300)]), "rye:signed:v2") {
				signed++
			}
		}
		if signed >= 20 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("the child was not killed: %v", err)
	}
	key := vectorKey()
	signed, old := 0, 0
	for _, tg := range targets {
		data, err := os.ReadFile(tg.File)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case string(data) == string(original[tg.File]):
			old++
		case SignedBy(key, V2, tg.Kind, tg.ID, filepath.Ext(tg.File), data):
			f := Find(data, filepath.Ext(tg.File))
			if string(data[:f.Start])+string(data[f.End:]) != string(original[tg.File]) {
				t.Fatalf("%s: signed but content changed", tg.Display)
			}
			signed++
		default:
			t.Fatalf("%s is neither its old bytes nor signed:\n%q", tg.Display, data[:min(len(data), 400)])
		}
	}
	t.Logf("after SIGKILL: %d signed, %d untouched", signed, old)
	if old == 0 {
		t.Log("the child finished before it was killed; the check above still holds")
	}
	b := &Batch{Key: key, Format: V2, Time: time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC), ChunkSize: 100}
	rs := b.Run(targets)
	if got := outcomes(rs); got[OutcomeFailed] != 0 || got[OutcomeSigned]+got[OutcomeUnchanged] != 5000 || got[OutcomeUnchanged] != signed {
		t.Fatalf("re-run: %v", got)
	}
	filepath.Walk(root, func(p string, _ os.FileInfo, _ error) error {
		if strings.Contains(p, atomicfile.TempPrefix) {
			t.Errorf("temporary file left after the re-run: %s", p)
		}
		return nil
	})
}

// crashChild is the process that gets killed: it signs the corpus in small
// chunks so that renames happen all through the run.
func crashChild(t *testing.T, root string) {
	sp := space.NewDiskSpace(space.Project, root, "")
	found, _, err := sp.Walk(item.Kinds)
	if err != nil {
		t.Fatal(err)
	}
	var targets []Target
	for _, f := range found {
		targets = append(targets, Target{Kind: f.Kind, ID: f.ID, Space: sp, Rel: f.Rel})
	}
	b := &Batch{Key: vectorKey(), Format: V2, Time: time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC), ChunkSize: 50}
	b.Run(targets)
	fmt.Println("child finished")
}

// BenchmarkSign10k signs 10,000 generated items (about 2 KiB each) with
// metadata validation, as `rye sign "**"` does; every iteration re-signs
// every file (new timestamp, --force).
func BenchmarkSign10k(b *testing.B) {
	root := b.TempDir()
	targets := corpusTargets(b, root, 10000)
	batch := &Batch{Key: vectorKey(), Format: V2, Force: true, Validate: shippedValidator(b)}
	t0 := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	i := 0
	for b.Loop() {
		batch.Time = t0.Add(time.Duration(i) * time.Second)
		i++
		if got := outcomes(batch.Run(targets)); got[OutcomeSigned] != len(targets) {
			b.Fatalf("outcomes %v", got)
		}
	}
}

// BenchmarkSign10kUnchanged is the idempotent re-run: every item read,
// hashed and verified, nothing written.
func BenchmarkSign10kUnchanged(b *testing.B) {
	root := b.TempDir()
	targets := corpusTargets(b, root, 10000)
	batch := &Batch{Key: vectorKey(), Format: V2, Time: time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC), Validate: shippedValidator(b)}
	batch.Run(targets)
	for b.Loop() {
		if got := outcomes(batch.Run(targets)); got[OutcomeUnchanged] != len(targets) {
			b.Fatalf("outcomes %v", got)
		}
	}
}

// An item with an error-level content finding (here Unicode tag
// characters spelling an instruction) is refused, with the hidden text
// decoded in the error; with AllowContent it is signed and the result
// records what it was signed over. Warnings alone never refuse.
func TestBatchContent(t *testing.T) {
	root := t.TempDir()
	sp := space.NewDiskSpace(space.Project, root, "")
	dir := filepath.Join(root, ".ai", "knowledge", "k")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	hidden := "```yaml\nid: hidden\ntitle: T\nentry_type: guide\ncategory: k\nversion: \"1.0.0\"\nauthor: a\n```\n\nHello" +
		"\U000E0072\U000E0075\U000E006E\U000E0020\U000E0069\U000E0074" + " world.\n"
	warned := "```yaml\nid: warned\ntitle: T\nentry_type: guide\ncategory: k\nversion: \"1.0.0\"\nauthor: a\n```\n\nzero\u200bwidth\n"
	os.WriteFile(filepath.Join(dir, "hidden.md"), []byte(hidden), 0o644)
	os.WriteFile(filepath.Join(dir, "warned.md"), []byte(warned), 0o644)
	targets := []Target{
		{Kind: item.Knowledge, ID: "k/hidden", Space: sp, Rel: "knowledge/k/hidden.md", Display: "hidden.md"},
		{Kind: item.Knowledge, ID: "k/warned", Space: sp, Rel: "knowledge/k/warned.md", Display: "warned.md"},
	}
	key := vectorKey()
	now := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	res := (&Batch{Key: key, Format: V2, Time: now}).Run(targets)
	if r := res[0]; r.Outcome != OutcomeFailed || !errors.Is(r.Err, ErrContent) || !strings.Contains(r.Err.Error(), `"run it"`) ||
		len(r.Content) != 1 || r.Content[0].Rule != "unicode/tag" {
		t.Fatalf("hidden: %v %v %+v", r.Outcome, r.Err, r.Content)
	}
	if r := res[1]; r.Outcome != OutcomeSigned || len(r.Content) != 0 {
		t.Fatalf("a warning refused signing: %v %v", r.Outcome, r.Err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "hidden.md"))
	if string(data) != hidden {
		t.Fatal("a refused item was rewritten")
	}
	res = (&Batch{Key: key, Format: V2, Time: now, AllowContent: true}).Run(targets[:1])
	if r := res[0]; r.Outcome != OutcomeSigned || r.Err != nil || len(r.Content) != 1 {
		t.Fatalf("allowed: %v %v %+v", r.Outcome, r.Err, r.Content)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "hidden.md")); !strings.Contains(string(data), "rye:signed:") {
		t.Fatal("not signed with AllowContent")
	}
}

// TestFewTargetsCleanUpByName: signing one item removes the temporary file
// a killed run left for that item, and lists no folder: a sibling's
// leftover stays (a larger run, which lists its folders, removes every
// leftover).
func TestFewTargetsCleanUpByName(t *testing.T) {
	root := t.TempDir()
	if _, err := corpus.Folder(root, "acme", fewTargets+4, 7); err != nil {
		t.Fatal(err)
	}
	sp := space.NewDiskSpace(space.Project, root, "")
	found, _, err := sp.Walk([]item.Kind{item.Tool})
	if err != nil {
		t.Fatal(err)
	}
	var same []Target // the folder's targets
	for _, f := range found {
		same = append(same, Target{Kind: f.Kind, ID: f.ID, Space: sp, Rel: f.Rel, File: filepath.Join(root, ".ai", filepath.FromSlash(f.Rel)), Display: f.Rel})
	}
	one := same[0]
	if len(same) <= fewTargets {
		t.Fatalf("the folder holds %d targets: too few to tell the two ways apart", len(same))
	}
	leftover := func(tg Target, suffix string) string {
		p := filepath.Join(filepath.Dir(tg.File), "."+filepath.Base(tg.File)+atomicfile.TempPrefix+suffix)
		if err := os.WriteFile(p, []byte("killed"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	own, sibling, random := leftover(one, "0"), leftover(same[1], "0"), leftover(one, "5eed5eed5eed")
	exists := func(p string) bool { _, err := os.Lstat(p); return err == nil }
	b := &Batch{Key: vectorKey(), Format: V2, Time: time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)}
	if got := outcomes(b.Run([]Target{one})); got[OutcomeSigned] != 1 {
		t.Fatalf("one item: %v", got)
	}
	if exists(own) || !exists(sibling) || !exists(random) {
		t.Errorf("after signing one item: own leftover kept %v, sibling's removed %v, random-named removed %v", exists(own), !exists(sibling), !exists(random))
	}
	if got := outcomes(b.Run(same)); got[OutcomeFailed] != 0 {
		t.Fatalf("the folder: %v", got)
	}
	if exists(sibling) || exists(random) {
		t.Errorf("after signing the folder: sibling's leftover kept %v, random-named kept %v", exists(sibling), exists(random))
	}
}
