package release

import (
	"fmt"
	"io"
	"os"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/report"
	"github.com/ryekit/rye/sign"
	"github.com/ryekit/rye/space"
	"github.com/ryekit/rye/verify"
)

// Bundle verdicts: the first check that fails decides, in this order.
const (
	verified        = "verified"
	unsafe          = "unsafe-archive"     // the archive's shape (ReadArchive)
	noManifest      = "no-manifest"        // none, or more than one
	manifestInvalid = "invalid-manifest"   // does not parse, or disagrees with its path
	manifestFailed  = "manifest-signature" // the manifest's own signature: Reason says which verdict
	missingFile     = "missing-file"       // listed in the manifest, absent from the archive
	extraFile       = "extra-file"         // in the archive, not in the manifest
	hashMismatch    = "hash-mismatch"      // a file's bytes differ from the manifest's sha256
	entryMismatch   = "entry-mismatch"     // a file's kind, id or signature differ from its manifest entry
	itemFailed      = "item-failed"        // an item's own signature does not verify
)

// Result is a checked bundle: one verdict for the bundle, one per item.
type Result struct {
	Verdict  string
	Reason   string
	ID       item.ID
	Manifest *manifest
	Archive  *archive
	Items    []verify.Result
	// Shipped are the copies of its signers' keys the bundle carries (by
	// fingerprint, those that parse), never trusted by themselves.
	Shipped []shipped
	// Untrusted are the shipped keys that signed the manifest or an item
	// and that the trust store does not hold: what --trust would name.
	Untrusted []shipped
	unknown   []string // fingerprints of signers the trust store lacks
}

// shipped is a key a bundle carries: its fingerprint and owner.
type shipped struct {
	Fingerprint string `json:"fingerprint"`
	Owner       string `json:"owner,omitempty"`
}

// String is "0adcddbb0f7539ca (Alice <alice@example.com>)".
func (s shipped) String() string {
	if s.Owner == "" {
		return s.Fingerprint
	}
	return s.Fingerprint + " (" + s.Owner + ")"
}

// TrustCommand is the command that installs the bundle file trusting
// its untrusted signers' shipped keys ("" when there are none).
func (r *Result) TrustCommand(file string) string {
	if len(r.Untrusted) == 0 {
		return ""
	}
	cmd := "rye bundle install"
	for _, k := range r.Untrusted {
		cmd += " --trust " + k.Fingerprint
	}
	return cmd + " " + file
}

// Failed reports whether the bundle did not verify.
func (r *Result) Failed() bool { return r.Verdict != verified }

func (r *Result) fail(verdict, format string, args ...any) *Result {
	r.Verdict, r.Reason = verdict, fmt.Sprintf(format, args...)
	return r
}

// check reads a bundle file's bytes (ReadArchive) and checks them
// (checkArchive); an archive ReadArchive refuses is the Unsafe verdict.
func check(data []byte, ts *verify.TrustStore, p verify.Policy, lim limits) *Result {
	a, err := ReadArchive(data, lim)
	if err != nil {
		return refused(err)
	}
	return checkArchive(a, ts, p)
}

// refused is the result of an archive that ReadArchive refused.
func refused(err error) *Result { return (&Result{}).fail(unsafe, "%v", err) }

// checkArchive verifies a bundle read by ReadArchive, without writing
// anything: the manifest (found, parsed, its v2 signature by a key of ts,
// for kind bundle and the bundle's id), then that the archive's files are
// exactly the manifest's with the same hashes, then every item's own
// signature. Keys shipped inside the bundle are never trusted here: ts
// decides (rye bundle install --trust FP adds one, after shippedKey
// checked it).
func checkArchive(a *archive, ts *verify.TrustStore, p verify.Policy) *Result {
	r := &Result{Archive: a}
	mp, err := manifestPath(a)
	if err != nil {
		return r.fail(noManifest, "%v", err)
	}
	id, err := bundleID(mp)
	if err != nil {
		return r.fail(manifestInvalid, "%s: the bundle id in its path: %v", mp, err)
	}
	r.ID = id
	r.Shipped = shippedKeys(a, id)
	defer r.untrusted(ts)
	mdata := a.Get(mp).Data
	if v, reason := r.checkManifestSignature(mdata, mp, id, ts, p); v != verify.Verified {
		r.checkItems(ts, p) // still useful to see, though nothing installs
		return r.fail(manifestFailed, "%s: %s: %s", mp, v, reason)
	}
	m, err := parseManifest(mdata)
	if err != nil {
		return r.fail(manifestInvalid, "%s: %v", mp, err)
	}
	if m.Bundle.ID != string(id) {
		return r.fail(manifestInvalid, "%s: the manifest names bundle %q, but it is the manifest of %s", mp, m.Bundle.ID, id)
	}
	r.Manifest = m
	var missing, extra []string
	for _, p := range m.Paths() {
		if a.Get(p) == nil {
			missing = append(missing, p)
		}
	}
	for _, f := range a.Files {
		if _, listed := m.Files[f.Path]; !listed && f.Path != mp {
			extra = append(extra, f.Path)
		}
	}
	if len(missing) > 0 {
		return r.fail(missingFile, "the manifest lists %s that the archive does not hold", strings.Join(missing, ", "))
	}
	if len(extra) > 0 {
		return r.fail(extraFile, "the archive holds %s that the manifest does not list", strings.Join(extra, ", "))
	}
	for _, p := range m.Paths() {
		if got := sha256Hex(a.Get(p).Data); got != m.Files[p].SHA256 {
			return r.fail(hashMismatch, "%s: its sha256 is %s, the manifest says %s (changed after the bundle was made)", p, got, m.Files[p].SHA256)
		}
	}
	if v, reason := r.checkEntries(); v != "" {
		return r.fail(v, "%s", reason)
	}
	r.checkItems(ts, p)
	var failed []string
	for _, it := range r.Items {
		if it.Verdict.Failed() {
			failed = append(failed, fmt.Sprintf("%s %s: %s", it.Kind, it.ID, it.Verdict))
		}
	}
	if len(failed) > 0 {
		return r.fail(itemFailed, "%s do not verify: %s", countItems(len(failed)), strings.Join(failed, "; "))
	}
	r.Verdict = verified
	return r
}

// checkManifestSignature verifies the manifest's own line with
// verify.Check: a v2 signature (v1 cannot bind a kind and an id) over the
// manifest's bytes, by a key of the trust store whose policy allows it,
// for kind bundle and this id.
func (r *Result) checkManifestSignature(data []byte, mp string, id item.ID, ts *verify.TrustStore, p verify.Policy) (verify.Verdict, string) {
	v := verify.Check(verify.Input{
		Kind: kindBundle, ID: id, Space: "bundle", Path: mp, Data: data, Require: sign.V2,
		Resign:    "rye bundle create " + string(id),
		TrustHint: r.trustHint,
	}, ts, p)
	if v.Verdict == verify.UntrustedKey {
		r.unknown = append(r.unknown, v.Fingerprint)
	}
	return v.Verdict, v.Reason
}

// trustHint says how to trust the signer of key fp, whom the trust store
// does not hold: with --trust when the bundle ships the key (naming its
// owner), else as for any key.
func (r *Result) trustHint(fp string) string {
	for _, k := range r.Shipped {
		if k.Fingerprint == fp {
			return "the bundle ships key " + k.String() + ", which is not trusted by itself; if you trust its owner: rye bundle install --trust " + fp
		}
	}
	return "the bundle does not ship this key; if you trust its owner: rye trust add <their public key>.pem"
}

// shippedKeys are the keys a bundle carries, read from its archive (a
// file that does not parse is left out: checkEntries refuses it).
func shippedKeys(a *archive, id item.ID) []shipped {
	prefix := strings.TrimSuffix(keyPath(id, "x"), "x.toml")
	var out []shipped
	for _, f := range a.Files {
		name, ok := strings.CutPrefix(f.Path, prefix)
		if !ok || !strings.HasSuffix(name, ".toml") || strings.Contains(name, "/") {
			continue
		}
		if k, err := verify.ParseTrustedKey(name, f.Data); err == nil {
			out = append(out, shipped{Fingerprint: k.Fingerprint, Owner: k.Owner})
		}
	}
	return out
}

// untrusted fills Untrusted: the shipped keys among the signers the trust
// store did not hold.
func (r *Result) untrusted(ts *verify.TrustStore) {
	for _, it := range r.Items {
		if it.Verdict == verify.UntrustedKey {
			r.unknown = append(r.unknown, it.Fingerprint)
		}
	}
	for _, k := range r.Shipped {
		if slices.Contains(r.unknown, k.Fingerprint) && ts.Lookup(k.Fingerprint) == nil {
			r.Untrusted = append(r.Untrusted, k)
		}
	}
}

// checkEntries compares each file with its manifest entry: an item's kind
// and id are those of its path, and its signature line is the one the
// manifest recorded; a shipped key parses and is the key its name says.
func (r *Result) checkEntries() (string, string) {
	for _, p := range r.Manifest.Paths() {
		e := r.Manifest.Files[p]
		data := r.Archive.Get(p).Data
		if e.Kind == kindTrustedKey {
			if _, err := verify.ParseTrustedKey(path.Base(p), data); err != nil {
				return entryMismatch, fmt.Sprintf("%s: shipped key: %v", p, err)
			}
			continue
		}
		k, id, _, err := space.KindAndID(strings.TrimPrefix(p, ".ai/"))
		if err != nil {
			return entryMismatch, fmt.Sprintf("%s: %v", p, err)
		}
		if string(k) != e.Kind || string(id) != e.ID {
			return entryMismatch, fmt.Sprintf("%s is %s %s, the manifest says %s %s", p, k, id, e.Kind, e.ID)
		}
		found := sign.Find(data, path.Ext(p))
		if found.Line == nil || found.Line.Format.String() != e.Signature.Format || found.Line.Fingerprint != e.Signature.FP {
			return entryMismatch, fmt.Sprintf("%s: its signature line is not the %s signature by %s that the manifest records", p, e.Signature.Format, e.Signature.FP)
		}
	}
	return "", ""
}

// checkItems verifies every item file of the archive on its own.
func (r *Result) checkItems(ts *verify.TrustStore, p verify.Policy) {
	r.Items = nil
	for _, f := range r.Archive.Files {
		k, id, _, err := space.KindAndID(strings.TrimPrefix(f.Path, ".ai/"))
		if err != nil {
			continue // not an item: the manifest and the shipped keys
		}
		in := verify.Input{Kind: k, ID: id, Space: "bundle", Path: f.Path, Data: f.Data, TrustHint: r.trustHint}
		r.Items = append(r.Items, verify.Check(in, ts, p))
	}
	sort.Slice(r.Items, func(i, j int) bool { return r.Items[i].Path < r.Items[j].Path })
}

// manifestPath returns the path of the archive's manifest: the one file
// named .ai/bundles/<id>/manifest.yaml. None, or more than one, is an
// error.
func manifestPath(a *archive) (string, error) {
	var found []string
	for _, f := range a.Files {
		if strings.HasPrefix(f.Path, ".ai/bundles/") && strings.HasSuffix(f.Path, "/manifest.yaml") {
			found = append(found, f.Path)
		}
	}
	if len(found) != 1 {
		return "", fmt.Errorf("the archive holds %d files named .ai/bundles/<id>/manifest.yaml; a bundle has exactly one", len(found))
	}
	return found[0], nil
}

// bundleID is the bundle id of a manifest path.
func bundleID(manifestPath string) (item.ID, error) {
	return item.ParseID(strings.TrimSuffix(strings.TrimPrefix(manifestPath, ".ai/bundles/"), "/manifest.yaml"))
}

// ShippedKeyError is a shipped key the caller named (--trust FP) that
// cannot be trusted.
type ShippedKeyError struct {
	Fingerprint string
	Err         error
}

func (e *ShippedKeyError) Error() string { return e.Fingerprint + ": " + e.Err.Error() }
func (e *ShippedKeyError) Unwrap() error { return e.Err }

// CheckTrusting checks a bundle file's bytes as Check does, with the keys
// named by trust (fingerprints) among those the bundle ships added to ts
// (rye bundle verify and install --trust FP): each is taken from the
// bundle only when its fingerprint, recomputed from the key, is FP
// (shippedKey). It returns the shipped keys it trusted, by fingerprint.
func CheckTrusting(data []byte, ts *verify.TrustStore, p verify.Policy, trust []string) (*Result, map[string][]byte, error) {
	archive, err := ReadArchive(data, defaultLimits)
	if err != nil {
		return refused(err), nil, nil
	}
	shipped := map[string][]byte{}
	if len(trust) > 0 {
		var sources []verify.TrustSource
		for _, fp := range trust {
			src, keyData, err := shippedKey(archive, fp)
			if err != nil {
				return nil, nil, err
			}
			sources = append(sources, src)
			shipped[fp] = keyData
		}
		if ts, err = ts.With(sources); err != nil {
			return nil, nil, err
		}
	}
	return checkArchive(archive, ts, p), shipped, nil
}

// shippedKey returns the trust tier made of the bundle's shipped copy of
// key fp, for rye bundle install --trust fp: the file must be in the
// archive at its place, parse, and hold the key whose fingerprint,
// recomputed from the key itself, is fp (ParseTrustedKey refuses a file
// named after another key). Its errors are *ShippedKeyError.
func shippedKey(a *archive, fp string) (verify.TrustSource, []byte, error) {
	fail := func(format string, args ...any) (verify.TrustSource, []byte, error) {
		return verify.TrustSource{}, nil, &ShippedKeyError{Fingerprint: fp, Err: fmt.Errorf(format, args...)}
	}
	if !hexFP().MatchString(fp) {
		return fail("a fingerprint is 16 lowercase hex digits (rye keys show prints it)")
	}
	mp, err := manifestPath(a)
	if err != nil {
		return fail("%v", err)
	}
	id, err := bundleID(mp)
	if err != nil {
		return fail("%s: the bundle id in its path: %v", mp, err)
	}
	kp := keyPath(id, fp)
	f := a.Get(kp)
	if f == nil {
		return fail("the bundle ships no key %s (%s)", fp, kp)
	}
	if _, err := verify.ParseTrustedKey(fp+".toml", f.Data); err != nil {
		return fail("the shipped key %s: %v", kp, err)
	}
	src := verify.MemTrustSource("bundle (trusted by fingerprint)", "the bundle's key "+fp, map[string][]byte{fp + ".toml": f.Data})
	return src, f.Data, nil
}

// ReadFile reads a bundle file, refusing one over defaultLimits'
// compressed size before reading it all.
func ReadFile(file string) ([]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, defaultLimits.MaxCompressed+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	return data, nil
}

// Line is the one-line summary of a checked bundle: "bundle acme 1.2.0:
// verified; 3 items: 3 verified".
func (r *Result) Line() string {
	what := "bundle"
	if r.ID != "" {
		what += " " + string(r.ID)
	}
	if r.Manifest != nil {
		what += " " + r.Manifest.Bundle.Version
	}
	failed := 0
	for _, it := range r.Items {
		if it.Verdict.Failed() {
			failed++
		}
	}
	return fmt.Sprintf("%s: %s; %s: %s", what, r.Verdict, report.Plural(len(r.Items), "item"),
		report.Join(report.Count(len(r.Items)-failed)+" verified", report.Count(failed)+" failed"))
}
