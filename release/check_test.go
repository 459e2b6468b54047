package release

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ryekit/rye/sign"
	"github.com/ryekit/rye/space"
	"github.com/ryekit/rye/verify"
)

// resigned is a good bundle of p whose manifest text went through edit and
// whose files named in files were replaced, the manifest then signed again
// with p's key: its signature verifies, so only what the test changed can
// be caught.
func resigned(t *testing.T, p *project, archive []byte, edit func(string) string, files map[string][]byte) []byte {
	t.Helper()
	mp := ManifestPath("rel")
	var out []entry
	for _, e := range entriesOf(t, archive) {
		switch {
		case e.h.Name == mp:
			text := edit(string(e.data))
			if files == nil && text == string(e.data) {
				t.Fatal("the edit changed nothing")
			}
			data, err := sign.Sign(p.key, sign.V2, kindBundle, "rel", ".yaml", []byte(text), signTime)
			if err != nil {
				t.Fatal(err)
			}
			e = reg(mp, data)
		case files[e.h.Name] != nil:
			e = reg(e.h.Name, files[e.h.Name])
		}
		out = append(out, e)
	}
	return build(t, out)
}

// A manifest signed by a trusted key is still checked against the files:
// each entry's kind, id and signature, each shipped key, and the bundle
// it names.
func TestManifestEntriesAreChecked(t *testing.T) {
	p := newProject(t)
	good := p.create(t).Archive
	fp := p.key.Fingerprint
	kp := keyPath("rel", fp)
	key := readArchive(t, good).Get(kp).Data
	garbage := []byte("this is not toml [")
	other := testKey(9)
	otherKey := verify.FormatTrustedKey(&verify.TrustedKey{Public: other.Public})
	withKey := func(data []byte) func(string) string {
		return func(m string) string { return strings.Replace(m, sha256Hex(key), sha256Hex(data), 1) }
	}
	replace := func(old, new string) func(string) string {
		return func(m string) string { return strings.Replace(m, old, new, 1) }
	}
	cases := []struct {
		name    string
		archive []byte
		verdict string
		reason  string
	}{
		{"re-signed unchanged", resigned(t, p, good, func(m string) string { return m }, map[string][]byte{}), verified, ""},
		{"another id", resigned(t, p, good, replace(`id: "rel/hello"`, `id: "rel/other"`), nil),
			entryMismatch, ".ai/tools/rel/hello.sh is tool rel/hello, the manifest says tool rel/other"},
		{"another kind", resigned(t, p, good, replace("kind: \"knowledge\"\n    id: \"rel/notes\"", "kind: \"directive\"\n    id: \"rel/notes\""), nil),
			entryMismatch, ".ai/knowledge/rel/notes.md is knowledge rel/notes, the manifest says directive rel/notes"},
		{"another signature format", resigned(t, p, good, replace(`format: "v2"`, `format: "v1"`), nil),
			entryMismatch, "its signature line is not the v1 signature by " + fp},
		{"another signer", resigned(t, p, good, replace(`fp: "`+fp+`"`, `fp: "0123456789abcdef"`), nil),
			entryMismatch, "its signature line is not the v2 signature by 0123456789abcdef"},
		{"a shipped key that does not parse", resigned(t, p, good, withKey(garbage), map[string][]byte{kp: garbage}),
			entryMismatch, kp + ": shipped key: invalid trusted-key file"},
		{"a shipped key that is another key", resigned(t, p, good, withKey(otherKey), map[string][]byte{kp: otherKey}),
			entryMismatch, kp + ": shipped key: the file is named " + fp + " but its key's fingerprint is " + other.Fingerprint},
		{"another bundle", resigned(t, p, good, func(m string) string {
			m = strings.Replace(m, "  id: \"rel\"\n", "  id: \"other\"\n", 1)
			return strings.ReplaceAll(m, ".ai/bundles/rel/", ".ai/bundles/other/")
		}, nil), manifestInvalid, `the manifest names bundle "other", but it is the manifest of rel`},
	}
	for _, c := range cases {
		r := check(c.archive, p.trust, verify.Policy{Now: time.Now()}, defaultLimits)
		if r.Verdict != c.verdict || !strings.Contains(r.Reason, c.reason) {
			t.Errorf("%s: %s: %s\nwant %s containing %q", c.name, r.Verdict, r.Reason, c.verdict, c.reason)
		}
	}
}

// Directory entries count towards MaxEntries like files.
func TestMaxEntries(t *testing.T) {
	lim := defaultLimits
	lim.MaxEntries = 3
	entries := []entry{
		{h: tar.Header{Typeflag: tar.TypeDir, Name: ".ai/tools/a/", Mode: 0o755}},
		reg(".ai/tools/a/x.sh", []byte("x")),
		reg(".ai/tools/a/y.sh", []byte("y")),
	}
	a, err := ReadArchive(build(t, entries), lim)
	if err != nil || len(a.Files) != 2 {
		t.Fatalf("at the limit: %v", err)
	}
	_, err = ReadArchive(build(t, append(entries, reg(".ai/tools/a/z.sh", []byte("z")))), lim)
	var ue *unsafeError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "more than 3 entries") {
		t.Errorf("over the limit: %v", err)
	}
}

// The manifest's signer ships its trusted-key entry even when it signed
// no item, so that the maker's fingerprint (rye keys show) is all a user
// needs for --trust.
func TestManifestSignerKeyIsShipped(t *testing.T) {
	releaser, c := releasedByAnotherKey(t)
	kp := keyPath("rel", releaser.Fingerprint)
	if e, ok := c.Manifest.Files[kp]; !ok || e.Kind != kindTrustedKey || e.ID != releaser.Fingerprint {
		t.Fatalf("the manifest does not list %s: %+v", kp, c.Manifest.Files)
	}
	// An installer who trusts the items' signer but not the releaser: the
	// manifest fails, and --trust with the releaser's fingerprint mends it.
	installer := newProject(t)
	r := check(c.Archive, installer.trust, verify.Policy{Now: time.Now()}, defaultLimits)
	if r.Verdict != manifestFailed || !strings.Contains(r.Reason, "--trust "+releaser.Fingerprint) {
		t.Fatalf("%s: %s", r.Verdict, r.Reason)
	}
	a := readArchive(t, c.Archive)
	src, _, err := shippedKey(a, releaser.Fingerprint)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := verify.LoadTrustStore(append(verify.TrustSources([]*space.Space{installer.sp}), src))
	if err != nil {
		t.Fatal(err)
	}
	if r := checkArchive(a, ts, verify.Policy{Now: time.Now()}); r.Failed() {
		t.Errorf("with --trust %s: %s: %s", releaser.Fingerprint, r.Verdict, r.Reason)
	}
}

// When undoing a failed install fails too, the originals that could not
// be put back stay in the staging folder, and the error names it.
func TestFailedUndoKeepsOriginals(t *testing.T) {
	p := newProject(t)
	policy := verify.Policy{Now: time.Now()}
	dest := t.TempDir()
	os.MkdirAll(filepath.Join(dest, ".ai"), 0o755)
	if _, err := Install(check(p.create(t).Archive, p.trust, policy, defaultLimits), InstallOptions{Root: dest, Now: time.Now()}); err != nil {
		t.Fatal(err)
	}
	plan := filepath.Join(dest, ".ai/directives/rel/sub/plan.md")
	manifest := filepath.Join(dest, filepath.FromSlash(ManifestPath("rel")))
	originals := map[string][]byte{}
	for _, f := range []string{plan, manifest} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		originals[f] = data
	}
	// Version 2 replaces the manifest, then plan.md (archive order); the
	// install fails after both, and so does putting them back.
	p.write(t, "directives/rel/sub/plan.md", "# Plan v2\n\n```xml\n<directive name=\"plan\" version=\"2.0.0\">\n  <metadata>\n    <description>d</description>\n    <category>rel/sub</category>\n    <author>me</author>\n  </metadata>\n</directive>\n```\n\nDo it again.\n", p.key, false)
	o := p.options()
	o.Version = "2.0.0"
	v2, err := Create(o)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Install(check(v2.Archive, p.trust, policy, defaultLimits), InstallOptions{Root: dest, Now: time.Now(), faults: faults{after: 2, restore: true}})
	if err == nil {
		t.Fatal("installed")
	}
	msg := err.Error()
	_, staging, ok := strings.Cut(msg, "the original files are kept in ")
	if !ok || !strings.Contains(msg, "undoing it failed too") || !strings.Contains(msg, "restoring .ai/directives/rel/sub/plan.md: simulated failure") {
		t.Fatalf("error: %v", err)
	}
	if filepath.Dir(staging) != filepath.Join(dest, ".ai") || !strings.HasPrefix(filepath.Base(staging), ".rye-install-") {
		t.Fatalf("staging folder %q", staging)
	}
	kept, err := os.ReadDir(staging)
	if err != nil {
		t.Fatalf("the staging folder is gone: %v", err)
	}
	for f, want := range originals {
		found := false
		for _, e := range kept {
			if data, err := os.ReadFile(filepath.Join(staging, e.Name())); err == nil && bytes.Equal(data, want) {
				found = true
			}
		}
		if !found {
			t.Errorf("the original of %s is not in %s", f, staging)
		}
	}
}

// A symbolic link planted after the install was planned is refused when
// the folders are made, and nothing is written through it.
func TestApplyRechecksLinks(t *testing.T) {
	dest, elsewhere := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(dest, ".ai"), 0o755)
	if err := os.Symlink(elsewhere, filepath.Join(dest, ".ai", "tools")); err != nil {
		t.Skip(err)
	}
	p := ".ai/tools/rel/x.sh"
	ops := []op{{path: p, target: filepath.Join(dest, filepath.FromSlash(p)), data: []byte("x")}}
	if err := commit(dest, ops, faults{}); !errors.Is(err, space.ErrSymlink) {
		t.Errorf("got %v", err)
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
		t.Error("wrote through the link")
	}
}

// The installation record names the bundle file it came from by its
// SHA-256.
func TestInstallRecordsTheArchiveSum(t *testing.T) {
	p := newProject(t)
	dest := t.TempDir()
	os.MkdirAll(filepath.Join(dest, ".ai"), 0o755)
	archive := p.create(t).Archive
	rec, err := Install(check(archive, p.trust, verify.Policy{Now: time.Now()}, defaultLimits), InstallOptions{Root: dest, Now: time.Now(), Archive: archive})
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(archive)
	if rec.Bundle.ArchiveSHA256 != hex.EncodeToString(sum[:]) {
		t.Errorf("archive_sha256 %q", rec.Bundle.ArchiveSHA256)
	}
	all, err := ListAll(space.NewDiskSpace(space.Project, dest, ""))
	if err != nil || len(all) != 1 || all[0].Bundle.ArchiveSHA256 != rec.Bundle.ArchiveSHA256 {
		t.Errorf("installed.yaml: %+v %v", all, err)
	}
}
