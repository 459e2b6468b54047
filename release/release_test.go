package release

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ryekit/rye/sign"
	"github.com/ryekit/rye/space"
	"github.com/ryekit/rye/verify"
)

func testKey(b byte) *sign.Key {
	seed := make([]byte, ed25519.SeedSize)
	for i := range seed {
		seed[i] = b + byte(i)
	}
	return sign.NewKey(ed25519.NewKeyFromSeed(seed))
}

var signTime = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// project is a project space with a few signed items of bundle "rel",
// one item of another namespace, and the key trusted.
type project struct {
	root  string
	sp    *space.Space
	key   *sign.Key
	trust *verify.TrustStore
}

func newProject(t testing.TB) *project {
	t.Helper()
	p := &project{root: t.TempDir(), key: testKey(1)}
	p.sp = space.NewDiskSpace(space.Project, p.root, "")
	os.MkdirAll(filepath.Join(p.root, ".ai"), 0o755)
	p.trustKey(t, p.key)
	p.write(t, "tools/rel/hello.sh", "#!/usr/bin/env bash\n# ---\n# version: \"1.0.0\"\n# tool_type: shell\n# executor_id: rye/core/runtimes/shell_runtime\n# category: rel\n# description: hello\n# ---\necho '{\"success\": true}'\n", p.key, true)
	p.write(t, "knowledge/rel/notes.md", "```yaml\nname: notes\nversion: \"1.0.0\"\ncategory: rel\n```\n\nNotes.\n", p.key, false)
	p.write(t, "directives/rel/sub/plan.md", "# Plan\n\n```xml\n<directive name=\"plan\" version=\"1.0.0\">\n  <metadata>\n    <description>d</description>\n    <category>rel/sub</category>\n    <author>me</author>\n  </metadata>\n</directive>\n```\n\nDo it.\n", p.key, false)
	p.write(t, "tools/other/x.yaml", "version: \"1.0.0\"\ntool_type: yaml\nexecutor_id: null\ncategory: other\ndescription: x\n", p.key, false)
	p.reload(t)
	return p
}

func (p *project) trustKey(t testing.TB, k *sign.Key) {
	dir := filepath.Join(p.root, ".ai", verify.TrustedKeysDir)
	os.MkdirAll(dir, 0o755)
	data := verify.FormatTrustedKey(&verify.TrustedKey{Owner: "test", Public: k.Public})
	if err := os.WriteFile(filepath.Join(dir, k.Fingerprint+".toml"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func (p *project) reload(t testing.TB) {
	ts, err := verify.LoadTrustStore(verify.TrustSources([]*space.Space{p.sp}))
	if err != nil {
		t.Fatal(err)
	}
	p.trust = ts
}

func (p *project) write(t testing.TB, rel, content string, key *sign.Key, exec bool) {
	t.Helper()
	data := []byte(content)
	if key != nil {
		k, id, ext, err := space.KindAndID(rel)
		if err != nil {
			t.Fatal(err)
		}
		if data, err = sign.Sign(key, sign.V2, k, id, ext, data, signTime); err != nil {
			t.Fatal(err)
		}
	}
	f := filepath.Join(p.root, ".ai", filepath.FromSlash(rel))
	os.MkdirAll(filepath.Dir(f), 0o755)
	mode := os.FileMode(0o644)
	if exec {
		mode = 0o755
	}
	if err := os.WriteFile(f, data, mode); err != nil {
		t.Fatal(err)
	}
}

func (p *project) options() CreateOptions {
	return CreateOptions{Space: p.sp, ID: "rel", Version: "1.2.3", Cwd: p.root, Trust: p.trust, Policy: verify.Policy{Now: time.Now()}, Key: p.key, RyeVersion: "test"}
}

func (p *project) create(t testing.TB) *Created {
	t.Helper()
	c, err := Create(p.options())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestCreateIsDeterministicAndVerifies(t *testing.T) {
	p := newProject(t)
	a, b := p.create(t), p.create(t)
	if !bytes.Equal(a.Archive, b.Archive) {
		t.Fatal("two creates gave different bytes")
	}
	// Another file system order, another mtime on disk: same bytes.
	os.Chtimes(filepath.Join(p.root, ".ai/tools/rel/hello.sh"), time.Now(), time.Now())
	if c := p.create(t); !bytes.Equal(a.Archive, c.Archive) {
		t.Fatal("an mtime on disk changed the archive")
	}
	r := check(a.Archive, p.trust, verify.Policy{Now: time.Now()}, defaultLimits)
	if r.Failed() {
		t.Fatalf("%s: %s", r.Verdict, r.Reason)
	}
	var paths []string
	for _, f := range r.Archive.Files {
		paths = append(paths, f.Path)
	}
	want := []string{
		".ai/bundles/rel/manifest.yaml",
		".ai/bundles/rel/trusted_keys/" + p.key.Fingerprint + ".toml",
		".ai/directives/rel/sub/plan.md",
		".ai/knowledge/rel/notes.md",
		".ai/tools/rel/hello.sh",
	}
	if strings.Join(paths, " ") != strings.Join(want, " ") {
		t.Errorf("entries %v\nwant %v", paths, want)
	}
	if len(r.Items) != 3 || r.Manifest.Bundle.Version != "1.2.3" || r.Manifest.Bundle.CreatedAt != "2026-01-02T03:04:05Z" {
		t.Errorf("items %d, manifest %+v", len(r.Items), r.Manifest.Bundle)
	}
	if !r.Archive.Get(".ai/tools/rel/hello.sh").Exec || r.Archive.Get(".ai/knowledge/rel/notes.md").Exec {
		t.Error("modes not kept")
	}
	// The header of every entry is fixed.
	zr, _ := gzip.NewReader(bytes.NewReader(a.Archive))
	if !zr.ModTime.IsZero() || zr.Name != "" {
		t.Errorf("gzip header %v %q", zr.ModTime, zr.Name)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err != nil {
			break
		}
		if h.Uid != 0 || h.Gid != 0 || h.Uname != "" || h.Gname != "" || !h.ModTime.Equal(signTime) || (h.Mode != 0o644 && h.Mode != 0o755) {
			t.Errorf("%s: header %+v", h.Name, h)
		}
	}
}

func TestCreateRefusesUnverifiedItems(t *testing.T) {
	p := newProject(t)
	p.write(t, "tools/rel/unsigned.yaml", "version: \"1.0.0\"\ntool_type: yaml\nexecutor_id: null\ncategory: rel\ndescription: u\n", nil, false)
	_, err := Create(p.options())
	var nv *NotVerifiedError
	if !errors.As(err, &nv) || len(nv.Failed) != 1 || nv.Failed[0].Verdict != verify.Unsigned || !strings.Contains(err.Error(), "tool rel/unsigned") {
		t.Fatalf("got %v", err)
	}
	o := p.options()
	o.ID = "nothing"
	if _, err := Create(o); err == nil {
		t.Error("a bundle without items was made")
	}
}

// A manifest signed by a key the maker does not trust is refused at
// create time: nobody could install it.
func TestCreateRefusesAnUntrustedManifestKey(t *testing.T) {
	p := newProject(t)
	o := p.options()
	o.Key = testKey(50)
	if _, err := Create(o); err == nil || !strings.Contains(err.Error(), "untrusted-key") {
		t.Errorf("got %v", err)
	}
}

// entry is one raw tar entry of a hand-built archive.
type entry struct {
	h    tar.Header
	data []byte
}

func reg(name string, data []byte) entry {
	return entry{h: tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644, Size: int64(len(data))}, data: data}
}

// build writes entries as a .tar.gz, exactly as given.
func build(t testing.TB, entries []entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, e := range entries {
		h := e.h
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatal(err)
		}
		if len(e.data) > 0 {
			tw.Write(e.data)
		}
	}
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

func readArchive(t testing.TB, archive []byte) *archive {
	t.Helper()
	a, err := ReadArchive(archive, defaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// entriesOf turns a good archive into entries to tamper with.
func entriesOf(t testing.TB, archive []byte) []entry {
	a := readArchive(t, archive)
	var out []entry
	for _, f := range a.Files {
		out = append(out, reg(f.Path, f.Data))
	}
	return out
}

// snapshot is every file under root with its bytes and mode.
func snapshot(t testing.TB, root string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, _ := d.Info()
		rel, _ := filepath.Rel(root, p)
		b.WriteString(rel + " " + info.Mode().String())
		if d.Type().IsRegular() {
			data, _ := os.ReadFile(p)
			sum := sha256.Sum256(data)
			b.WriteString(" " + hex.EncodeToString(sum[:8]))
		}
		b.WriteString("\n")
		return nil
	})
	return b.String()
}

func TestHostileArchivesAreRefused(t *testing.T) {
	p := newProject(t)
	good := p.create(t).Archive
	ok := entriesOf(t, good)
	with := func(extra ...entry) []entry { return append(append([]entry(nil), ok...), extra...) }
	replaced := func(name string, data []byte) []entry {
		var out []entry
		for _, e := range ok {
			if e.h.Name == name {
				e = reg(name, data)
			}
			out = append(out, e)
		}
		return out
	}
	without := func(name string) []entry {
		var out []entry
		for _, e := range ok {
			if e.h.Name != name {
				out = append(out, e)
			}
		}
		return out
	}
	link := func(typ byte, name, target string) entry {
		return entry{h: tar.Header{Typeflag: typ, Name: name, Linkname: target, Mode: 0o777}}
	}
	setuid := reg(".ai/tools/rel/x.sh", []byte("x"))
	setuid.h.Mode = 0o4755
	device := entry{h: tar.Header{Typeflag: tar.TypeChar, Name: ".ai/tools/rel/dev", Devmajor: 1, Devminor: 3, Mode: 0o644}}
	bigData := bytes.Repeat([]byte("a"), 2<<20)

	// A gzip bomb: a tar entry that claims little and a stream that
	// inflates far beyond the total limit.
	var bomb bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&bomb, gzip.BestCompression)
	tw := tar.NewWriter(zw)
	for i := 0; i < 300; i++ {
		h := tar.Header{Typeflag: tar.TypeReg, Name: ".ai/knowledge/rel/n" + string(rune('a'+i%26)) + strings.Repeat("x", i/26) + ".md", Mode: 0o644, Size: 1 << 20}
		tw.WriteHeader(&h)
		tw.Write(make([]byte, 1<<20))
	}
	tw.Close()
	zw.Close()

	// Signed by a stranger: the manifest re-signed with a key nobody trusts.
	stranger := testKey(77)
	mp := ManifestPath("rel")
	var manifest []byte
	for _, e := range ok {
		if e.h.Name == mp {
			manifest = e.data
		}
	}
	foreign, err := sign.Sign(stranger, sign.V2, kindBundle, "rel", ".yaml", manifest, signTime)
	if err != nil {
		t.Fatal(err)
	}
	// A bundle whose only trusted key is its own shipped copy: made by a
	// stranger who ships their key; the installer trusts only p.key.
	q := newProject(t)
	q.key = testKey(88)
	q.trustKey(t, q.key)
	for _, rel := range []string{"tools/rel/hello.sh", "knowledge/rel/notes.md", "directives/rel/sub/plan.md"} {
		data, _ := os.ReadFile(filepath.Join(q.root, ".ai", rel))
		k, id, ext, _ := space.KindAndID(rel)
		resigned, _ := sign.Sign(q.key, sign.V2, k, id, ext, data, signTime)
		os.WriteFile(filepath.Join(q.root, ".ai", rel), resigned, 0o644)
	}
	q.reload(t)
	selfTrusting := q.create(t).Archive

	tampered := []byte(strings.Replace(string(ok[len(ok)-1].data), "success", "failure", 1))
	cases := []struct {
		name    string
		archive []byte
		verdict string
		reason  string
	}{
		{"path traversal", build(t, with(reg(".ai/tools/../../etc/passwd", []byte("x")))), unsafe, "path goes up (..)"},
		{"absolute path", build(t, with(reg("/etc/passwd", []byte("x")))), unsafe, "absolute path"},
		{"outside .ai", build(t, with(reg("README.md", []byte("x")))), unsafe, "outside .ai/"},
		{"symlink", build(t, with(link(tar.TypeSymlink, ".ai/tools/rel/link.sh", "/etc/passwd"))), unsafe, "symbolic link"},
		{"hard link", build(t, with(link(tar.TypeLink, ".ai/tools/rel/hard.sh", ".ai/tools/rel/hello.sh"))), unsafe, "hard link"},
		{"device", build(t, with(device)), unsafe, "device file"},
		{"setuid", build(t, with(setuid)), unsafe, "setuid"},
		{"duplicate entry", build(t, with(ok[len(ok)-1])), unsafe, "appears twice"},
		{"case-fold duplicate", build(t, with(reg(".ai/tools/rel/HELLO.sh", []byte("x")))), unsafe, "only in case"},
		{"oversize entry", build(t, with(reg(".ai/knowledge/rel/big.md", bigData))), unsafe, "over the 1048576-byte limit"},
		{"gzip bomb", bomb.Bytes(), unsafe, "more than"},
		{"not gzip", []byte("plain text"), unsafe, "not a gzip file"},
		{"no manifest", build(t, without(mp)), noManifest, "exactly one"},
		{"listed file absent", build(t, without(".ai/knowledge/rel/notes.md")), missingFile, ".ai/knowledge/rel/notes.md"},
		{"extra file", build(t, with(reg(".ai/tools/rel/extra.sh", []byte("x")))), extraFile, ".ai/tools/rel/extra.sh"},
		{"tampered file", build(t, replaced(".ai/tools/rel/hello.sh", tampered)), hashMismatch, ".ai/tools/rel/hello.sh"},
		{"tampered manifest", build(t, replaced(mp, bytes.Replace(manifest, []byte("1.2.3"), []byte("9.9.9"), 1))), manifestFailed, "modified"},
		{"manifest signed by an untrusted key", build(t, replaced(mp, foreign)), manifestFailed, "untrusted-key"},
		{"only trusted by its own shipped key", selfTrusting, manifestFailed, "untrusted-key"},
	}
	if len(tampered) == len(ok[len(ok)-1].data) && bytes.Equal(tampered, ok[len(ok)-1].data) {
		t.Fatal("the tampered file is not tampered")
	}
	dest := t.TempDir()
	os.MkdirAll(filepath.Join(dest, ".ai"), 0o755)
	before := snapshot(t, dest)
	for _, c := range cases {
		r := check(c.archive, p.trust, verify.Policy{Now: time.Now()}, defaultLimits)
		if r.Verdict != c.verdict || !strings.Contains(r.Reason, c.reason) {
			t.Errorf("%s: %s: %s\nwant %s containing %q", c.name, r.Verdict, r.Reason, c.verdict, c.reason)
		}
		if _, err := Install(r, InstallOptions{Root: dest, Now: time.Now()}); err == nil {
			t.Errorf("%s: installed", c.name)
		}
	}
	if after := snapshot(t, dest); after != before {
		t.Errorf("the destination changed:\n%s\nwas\n%s", after, before)
	}
	// The untouched archive still verifies.
	if r := check(good, p.trust, verify.Policy{Now: time.Now()}, defaultLimits); r.Failed() {
		t.Errorf("the good archive: %s %s", r.Verdict, r.Reason)
	}
}

func TestTrustingAShippedKey(t *testing.T) {
	maker := newProject(t)
	archive := maker.create(t).Archive
	installer := newProject(t) // trusts testKey(1) ... use another key
	os.RemoveAll(filepath.Join(installer.root, ".ai", verify.TrustedKeysDir))
	installer.reload(t)
	r := check(archive, installer.trust, verify.Policy{Now: time.Now()}, defaultLimits)
	if r.Verdict != manifestFailed || !strings.Contains(r.Reason, "--trust "+maker.key.Fingerprint) {
		t.Fatalf("%s %s", r.Verdict, r.Reason)
	}
	a := readArchive(t, archive)
	src, keyData, err := shippedKey(a, maker.key.Fingerprint)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := verify.LoadTrustStore(append(verify.TrustSources([]*space.Space{installer.sp}), src))
	if err != nil {
		t.Fatal(err)
	}
	if r := check(archive, ts, verify.Policy{Now: time.Now()}, defaultLimits); r.Failed() {
		t.Fatalf("with --trust: %s %s", r.Verdict, r.Reason)
	}
	if _, _, err := shippedKey(a, "0123456789abcdef"); err == nil || !strings.Contains(err.Error(), "ships no key") {
		t.Errorf("a key the bundle does not ship: %v", err)
	}
	if _, _, err := shippedKey(a, "../"+maker.key.Fingerprint); err == nil || !strings.Contains(err.Error(), "16 lowercase hex digits") {
		t.Errorf("not a fingerprint: %v", err)
	}
	// A shipped key file whose content is another key: refused.
	entries := entriesOf(t, archive)
	kp := keyPath("rel", maker.key.Fingerprint)
	other := testKey(9)
	for i := range entries {
		if entries[i].h.Name == kp {
			entries[i] = reg(kp, verify.FormatTrustedKey(&verify.TrustedKey{Public: other.Public}))
		}
	}
	if _, _, err := shippedKey(readArchive(t, build(t, entries)), maker.key.Fingerprint); err == nil || !strings.Contains(err.Error(), "fingerprint") {
		t.Errorf("a mislabelled shipped key: %v", err)
	}
	if !bytes.Contains(keyData, []byte(maker.key.Fingerprint)) {
		t.Error("ShippedKey returned another file")
	}
}

// A manifest signed by a trusted key does not vouch for items whose own
// signer the installer does not trust: each item is verified on its own.
func TestItemsAreVerifiedOnTheirOwn(t *testing.T) {
	releaser, c := releasedByAnotherKey(t)
	only := verify.MemTrustSource("test", "test", map[string][]byte{releaser.Fingerprint + ".toml": verify.FormatTrustedKey(&verify.TrustedKey{Public: releaser.Public})})
	ts, err := verify.LoadTrustStore([]verify.TrustSource{only})
	if err != nil {
		t.Fatal(err)
	}
	r := check(c.Archive, ts, verify.Policy{Now: time.Now()}, defaultLimits)
	if r.Verdict != itemFailed || !strings.Contains(r.Reason, "3 items do not verify") || len(r.Items) != 3 || r.Items[0].Verdict != verify.UntrustedKey {
		t.Errorf("%s: %s (%+v)", r.Verdict, r.Reason, r.Items)
	}
}

func TestInstallUpgradeConflictsAndRollback(t *testing.T) {
	p := newProject(t)
	v1 := p.create(t)
	dest := t.TempDir()
	os.MkdirAll(filepath.Join(dest, ".ai", "tools", "mine"), 0o755)
	os.WriteFile(filepath.Join(dest, ".ai", "tools", "mine", "keep.sh"), []byte("mine"), 0o644)
	policy := verify.Policy{Now: time.Now()}
	check := func(archive []byte) *Result {
		r := check(archive, p.trust, policy, defaultLimits)
		if r.Failed() {
			t.Fatalf("%s %s", r.Verdict, r.Reason)
		}
		return r
	}
	// A failure at any step leaves the destination exactly as it was.
	r := check(v1.Archive)
	before := snapshot(t, dest)
	for n := 1; n <= len(r.Archive.Files)+1; n++ {
		if _, err := Install(r, InstallOptions{Root: dest, Now: time.Now(), faults: faults{after: n}}); err == nil || !strings.Contains(err.Error(), "simulated failure") {
			t.Fatalf("failAfter %d: %v", n, err)
		}
		if after := snapshot(t, dest); after != before {
			t.Fatalf("failAfter %d changed the destination:\n%s\nwas\n%s", n, after, before)
		}
	}
	rec, err := Install(r, InstallOptions{Root: dest, Now: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Bundle.Version != "1.2.3" || len(rec.Files) != 5 {
		t.Errorf("record %+v", rec)
	}
	data, _ := os.ReadFile(filepath.Join(dest, ".ai/tools/rel/hello.sh"))
	if !bytes.Equal(data, r.Archive.Get(".ai/tools/rel/hello.sh").Data) {
		t.Error("installed bytes differ")
	}
	if info, _ := os.Stat(filepath.Join(dest, ".ai/tools/rel/hello.sh")); info.Mode().Perm() != 0o755 {
		t.Errorf("mode %v", info.Mode())
	}
	list, err := list(dest, "project")
	if err != nil || len(list) != 1 || list[0].Bundle.ID != "rel" {
		t.Fatalf("list %+v %v", list, err)
	}
	// Version 2 drops notes.md and changes plan.md: the upgrade removes
	// and replaces them, and leaves the user's own file alone.
	os.Remove(filepath.Join(p.root, ".ai/knowledge/rel/notes.md"))
	p.write(t, "directives/rel/sub/plan.md", "# Plan v2\n\n```xml\n<directive name=\"plan\" version=\"2.0.0\">\n  <metadata>\n    <description>d</description>\n    <category>rel/sub</category>\n    <author>me</author>\n  </metadata>\n</directive>\n```\n\nDo it again.\n", p.key, false)
	o := p.options()
	o.Version = "2.0.0"
	v2, err := Create(o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Install(check(v2.Archive), InstallOptions{Root: dest, Now: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dest, ".ai/knowledge/rel/notes.md")); !errors.Is(err, fs.ErrNotExist) {
		t.Error("the dropped file is still there")
	}
	if data, _ := os.ReadFile(filepath.Join(dest, ".ai/tools/mine/keep.sh")); string(data) != "mine" {
		t.Error("the user's file changed")
	}
	// Another bundle that ships a file this one owns: a conflict.
	other := newProject(t)
	os.Rename(filepath.Join(other.root, ".ai/tools/other"), filepath.Join(other.root, ".ai/tools/zz"))
	other.write(t, "tools/zz/x.yaml", "version: \"1.0.0\"\ntool_type: yaml\nexecutor_id: null\ncategory: zz\ndescription: x\n", other.key, false)
	os.WriteFile(filepath.Join(dest, ".ai/tools/mine/keep.sh"), []byte("mine"), 0o644)
	oo := other.options()
	oo.ID = "zz"
	oo.Include = []string{"rel/hello"}
	// rel/hello in bundle zz with different bytes than installed.
	other.write(t, "tools/rel/hello.sh", "#!/usr/bin/env bash\n# ---\n# version: \"1.0.0\"\n# tool_type: shell\n# executor_id: rye/core/runtimes/shell_runtime\n# category: rel\n# description: hijack\n# ---\necho hijack\n", other.key, true)
	zz, err := Create(oo)
	if err != nil {
		t.Fatal(err)
	}
	before = snapshot(t, dest)
	_, err = Install(check(zz.Archive), InstallOptions{Root: dest, Now: time.Now()})
	var ce *ConflictError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), ".ai/tools/rel/hello.sh (installed by bundle rel)") {
		t.Fatalf("conflict: %v", err)
	}
	if snapshot(t, dest) != before {
		t.Error("a refused install wrote")
	}
	if _, err := Install(check(zz.Archive), InstallOptions{Root: dest, Now: time.Now(), Force: true}); err != nil {
		t.Fatalf("--force: %v", err)
	}
	// A file the user wrote is a conflict too.
	os.WriteFile(filepath.Join(dest, ".ai/tools/zz/x.yaml"), []byte("edited"), 0o644)
	if _, err := Install(check(zz.Archive), InstallOptions{Root: dest, Now: time.Now()}); err == nil {
		t.Error("an edited file was replaced without --force")
	}
}

func TestInstallRefusesSymlinks(t *testing.T) {
	p := newProject(t)
	r := check(p.create(t).Archive, p.trust, verify.Policy{Now: time.Now()}, defaultLimits)
	dest := t.TempDir()
	elsewhere := t.TempDir()
	os.MkdirAll(filepath.Join(dest, ".ai"), 0o755)
	if err := os.Symlink(elsewhere, filepath.Join(dest, ".ai", "tools")); err != nil {
		t.Skip(err)
	}
	if _, err := Install(r, InstallOptions{Root: dest, Now: time.Now(), Force: true}); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("got %v", err)
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
		t.Error("wrote through the link")
	}
}

func TestManifestRoundTripAndStrictness(t *testing.T) {
	m := &manifest{Bundle: info{ID: "a/b", Version: "1.0.0", CreatedAt: "2026-01-01T00:00:00Z", RyeVersion: "x"}, Files: map[string]Entry{
		".ai/tools/a/b/t.py": {Kind: "tool", ID: "a/b/t", SHA256: strings.Repeat("a", 64), Signature: &sigEntry{Format: "v2", FP: strings.Repeat("b", 16)}},
		".ai/bundles/a/b/trusted_keys/" + strings.Repeat("b", 16) + ".toml": {Kind: kindTrustedKey, ID: strings.Repeat("b", 16), SHA256: strings.Repeat("c", 64)},
	}}
	back, err := parseManifest(m.Marshal())
	if err != nil || !bytes.Equal(back.Marshal(), m.Marshal()) {
		t.Fatalf("round trip: %v\n%s", err, m.Marshal())
	}
	for name, mut := range map[string]func(string) string{
		"unknown field": func(s string) string { return strings.Replace(s, "  rye_version:", "  colour: red\n  rye_version:", 1) },
		"bad sha":       func(s string) string { return strings.Replace(s, strings.Repeat("a", 64), "zz", 1) },
		"bad kind":      func(s string) string { return strings.Replace(s, `kind: "tool"`, `kind: "gadget"`, 1) },
		"bad path":      func(s string) string { return strings.Replace(s, `".ai/tools/a/b/t.py"`, `"../t.py"`, 1) },
		"not an item":   func(s string) string { return strings.Replace(s, `".ai/tools/a/b/t.py"`, `".ai/tools/a/b/t.json"`, 1) },
		"key elsewhere": func(s string) string {
			return strings.Replace(s, "bundles/a/b/trusted_keys", "bundles/x/trusted_keys", 1)
		},
		"no signature": func(s string) string { return strings.Replace(s, `      format: "v2"`, `      format: "v3"`, 1) },
		"bad time":     func(s string) string { return strings.Replace(s, "2026-01-01T00:00:00Z", "yesterday", 1) },
	} {
		if _, err := parseManifest([]byte(mut(string(m.Marshal())))); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// Data after the gzip stream (a second archive appended) is refused.
func TestTrailingDataIsRefused(t *testing.T) {
	p := newProject(t)
	good := p.create(t).Archive
	for _, tail := range [][]byte{[]byte("GARBAGE"), good} {
		r := check(append(append([]byte(nil), good...), tail...), p.trust, verify.Policy{Now: time.Now()}, defaultLimits)
		if r.Verdict != unsafe || !strings.Contains(r.Reason, "after the end of the gzip stream") {
			t.Errorf("%s: %s", r.Verdict, r.Reason)
		}
	}
}

// An installed.yaml is a plain file of the space: one that lists paths
// outside .ai/ is refused, and nothing outside is ever removed.
func TestForgedInstallRecordIsRefused(t *testing.T) {
	p := newProject(t)
	r := check(p.create(t).Archive, p.trust, verify.Policy{Now: time.Now()}, defaultLimits)
	root := t.TempDir()
	dest := filepath.Join(root, "dest")
	os.MkdirAll(filepath.Join(dest, ".ai", "bundles", "rel"), 0o755)
	outside := filepath.Join(root, "outside.txt")
	os.WriteFile(outside, []byte("keep me"), 0o644)
	sum := sha256.Sum256([]byte("keep me"))
	forged := "bundle:\n  id: rel\n  version: 0.0.1\n  installed_at: \"2026-01-01T00:00:00Z\"\n  archive_sha256: x\nfiles:\n  ../outside.txt: " + hex.EncodeToString(sum[:]) + "\n"
	os.WriteFile(filepath.Join(dest, ".ai", "bundles", "rel", "installed.yaml"), []byte(forged), 0o644)
	for _, force := range []bool{false, true} {
		if _, err := Install(r, InstallOptions{Root: dest, Now: time.Now(), Force: force}); err == nil || !strings.Contains(err.Error(), "path goes up") {
			t.Errorf("force %v: %v", force, err)
		}
	}
	if data, _ := os.ReadFile(outside); string(data) != "keep me" {
		t.Error("a file outside the destination was removed")
	}

	// Inside .ai/, a record may list only items and the bundle's own
	// files: one that claims the configuration (with its current hash, so
	// that an upgrade would remove it as no longer shipped) is refused.
	config := filepath.Join(dest, ".ai", "config", "rye.yaml")
	os.MkdirAll(filepath.Dir(config), 0o755)
	os.WriteFile(config, []byte("min_signature_version: 2\n"), 0o644)
	sum = sha256.Sum256([]byte("min_signature_version: 2\n"))
	forged = strings.Replace(forged, "../outside.txt", ".ai/config/rye.yaml", 1)
	forged = forged[:strings.LastIndex(forged, ": ")+2] + hex.EncodeToString(sum[:]) + "\n"
	os.WriteFile(filepath.Join(dest, ".ai", "bundles", "rel", "installed.yaml"), []byte(forged), 0o644)
	if _, err := Install(r, InstallOptions{Root: dest, Now: time.Now(), Force: true}); err == nil || !strings.Contains(err.Error(), "is not an item or a file of bundle rel") {
		t.Errorf("a record claiming the configuration: %v", err)
	}
	if data, _ := os.ReadFile(config); string(data) != "min_signature_version: 2\n" {
		t.Error("the configuration was removed or changed")
	}
}

// A file that another bundle (or the user) already has byte for byte is
// not claimed, so upgrading this bundle never deletes it.
func TestIdenticalFilesAreNotClaimed(t *testing.T) {
	p := newProject(t)
	policy := verify.Policy{Now: time.Now()}
	dest := t.TempDir()
	os.MkdirAll(filepath.Join(dest, ".ai"), 0o755)
	rel := check(p.create(t).Archive, p.trust, policy, defaultLimits)
	if _, err := Install(rel, InstallOptions{Root: dest, Now: time.Now()}); err != nil {
		t.Fatal(err)
	}
	// Bundle "other" also ships rel/hello (identical), with --force for the
	// namespace; its next version drops it.
	o := p.options()
	o.ID, o.Include = "other", []string{"rel/hello"}
	v1, err := Create(o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Install(check(v1.Archive, p.trust, policy, defaultLimits), InstallOptions{Root: dest, Now: time.Now(), Force: true}); err != nil {
		t.Fatal(err)
	}
	o.Include, o.Version = nil, "2.0.0"
	v2, err := Create(o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Install(check(v2.Archive, p.trust, policy, defaultLimits), InstallOptions{Root: dest, Now: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dest, ".ai/tools/rel/hello.sh")); err != nil {
		t.Errorf("bundle rel's file was removed by bundle other's upgrade: %v", err)
	}
}

// Items outside the bundle's namespace, and items that exist under another
// file form, are conflicts.
func TestNamespaceAndShadowConflicts(t *testing.T) {
	p := newProject(t)
	policy := verify.Policy{Now: time.Now()}
	dest := t.TempDir()
	os.MkdirAll(filepath.Join(dest, ".ai", "tools", "rel"), 0o755)
	// The user's own rel/hello as a YAML tool: the bundle's .sh would be
	// shadowed by it (or shadow another form).
	os.WriteFile(filepath.Join(dest, ".ai/tools/rel/hello.yaml"), []byte("mine"), 0o644)
	r := check(p.create(t).Archive, p.trust, policy, defaultLimits)
	_, err := Install(r, InstallOptions{Root: dest, Now: time.Now()})
	if err == nil || !strings.Contains(err.Error(), ".ai/tools/rel/hello.sh (the item already exists as .ai/tools/rel/hello.yaml") {
		t.Errorf("shadow: %v", err)
	}
	os.Remove(filepath.Join(dest, ".ai/tools/rel/hello.yaml"))
	o := p.options()
	o.Include = []string{"other/x"}
	c, err := Create(o)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Install(check(c.Archive, p.trust, policy, defaultLimits), InstallOptions{Root: dest, Now: time.Now()})
	if err == nil || !strings.Contains(err.Error(), ".ai/tools/other/x.yaml (outside the bundle's namespace rel/)") {
		t.Errorf("namespace: %v", err)
	}
}

// releasedByAnotherKey is the project's bundle with its manifest signed by
// a second trusted key (the releaser) that signed no item.
func releasedByAnotherKey(t *testing.T) (*sign.Key, *Created) {
	t.Helper()
	p := newProject(t)
	releaser := testKey(60)
	p.trustKey(t, releaser)
	p.reload(t)
	o := p.options()
	o.Key = releaser
	c, err := Create(o)
	if err != nil {
		t.Fatal(err)
	}
	return releaser, c
}
