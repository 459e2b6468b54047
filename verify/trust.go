package verify

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing/fstest"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	toml "github.com/pelletier/go-toml/v2"

	"github.com/ryekit/rye/internal/atomicfile"
	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/sign"
	"github.com/ryekit/rye/space"
)

// scopeBundle is the scope kind of release bundle manifests
// ("bundle:my-project"): a scoped key signs a bundle only when a bundle:
// (or *:) scope covers its id.
const scopeBundle = "bundle"

// TrustedKeysDir is where a space keeps its trusted keys, below .ai/.
const TrustedKeysDir = "trusted_keys"

// TrustedKey is one key of the trust store.
type TrustedKey struct {
	Fingerprint string // recomputed from the key, never read from the file
	// Fingerprint64 is the RYE OS Rust engine's fingerprint of the same key
	// (sign.Fingerprint64): the store finds the key under either.
	Fingerprint64 string
	Owner         string
	Attestation   string
	// Scopes, when not empty, limit what the key may sign: "kind:glob" over
	// item ids (doublestar syntax), kind "*" for every kind.
	Scopes []string
	// Expires, when set, is the last day (UTC) on which signatures by the
	// key are accepted.
	Expires *time.Time
	Public  ed25519.PublicKey
	// Where the key was found: the tier's label and the file.
	Space string
	Path  string
}

// trustFile is the TOML of a trusted key: the reference's fields plus
// rye's scopes and expires. Unknown keys are an error: a misspelt "scope"
// must not silently widen what a key may sign.
type trustFile struct {
	Fingerprint string   `toml:"fingerprint"`
	Owner       string   `toml:"owner"`
	Attestation string   `toml:"attestation"`
	Scopes      []string `toml:"scopes"`
	Expires     any      `toml:"expires"`
	PublicKey   struct {
		PEM string `toml:"pem"`
	} `toml:"public_key"`
}

// ParseTrustedKey reads a trusted-key TOML file named name (its base name
// must be "<fingerprint>.toml"). The fingerprint is recomputed from the
// public key; a file whose name or fingerprint field disagrees is refused.
func ParseTrustedKey(name string, data []byte) (*TrustedKey, error) {
	if err := trustTOMLShape(data); err != nil {
		return nil, err
	}
	var tf trustFile
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&tf); err != nil {
		return nil, fmt.Errorf("invalid trusted-key file: %s", strings.TrimPrefix(err.Error(), "toml: "))
	}
	pub, err := sign.ParsePublicKeyPEM([]byte(tf.PublicKey.PEM))
	if err != nil {
		return nil, fmt.Errorf("[public_key] pem: %v", err)
	}
	fp := sign.Fingerprint(pub)
	if base := strings.TrimSuffix(path.Base(name), ".toml"); base != fp {
		return nil, fmt.Errorf("the file is named %s but its key's fingerprint is %s: rename it to %s.toml or remove it", base, fp, fp)
	}
	return tf.key(pub)
}

// key is the trusted key a file describes, given its public key: the
// declared fingerprint checked, the scopes and the expiry read.
func (tf *trustFile) key(pub ed25519.PublicKey) (*TrustedKey, error) {
	if err := checkOwner(tf.Owner); err != nil {
		return nil, err
	}
	k := newKey(pub, tf.Owner, tf.Attestation)
	if tf.Fingerprint != "" && tf.Fingerprint != k.Fingerprint {
		return nil, fmt.Errorf("its fingerprint field says %s but the key's fingerprint is %s", tf.Fingerprint, k.Fingerprint)
	}
	for _, s := range tf.Scopes {
		if err := checkScope(s); err != nil {
			return nil, err
		}
		k.Scopes = append(k.Scopes, s)
	}
	if tf.Expires != nil {
		t, err := parseExpires(tf.Expires)
		if err != nil {
			return nil, err
		}
		k.Expires = &t
	}
	return k, nil
}

// maxTrustNesting bounds the nesting of a trusted-key file, checked before
// the TOML library sees it: a real one nests two levels.
const maxTrustNesting = 8

// trustTOMLShape refuses a trusted-key file nested deeper than any real one.
func trustTOMLShape(data []byte) error {
	if d := item.TOMLNesting(data); d > maxTrustNesting {
		return fmt.Errorf("invalid trusted-key file: nested %d levels deep", d)
	}
	return nil
}

func parseExpires(v any) (time.Time, error) {
	switch x := v.(type) {
	case toml.LocalDate:
		return time.Date(x.Year, time.Month(x.Month), x.Day, 0, 0, 0, 0, time.UTC), nil
	case toml.LocalDateTime:
		return time.Date(x.Year, time.Month(x.Month), x.Day, 0, 0, 0, 0, time.UTC), nil
	case time.Time:
		y, m, d := x.UTC().Date()
		return time.Date(y, m, d, 0, 0, 0, 0, time.UTC), nil
	case string:
		t, err := time.Parse("2006-01-02", x)
		if err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("expires: %v is not a date (write expires = 2027-06-30)", v)
}

func checkScope(s string) error {
	kind, glob, ok := strings.Cut(s, ":")
	if !ok || glob == "" {
		return fmt.Errorf("scope %q: write kind:glob, e.g. tool:my-project/**", s)
	}
	if kind != "*" && kind != scopeBundle {
		if _, err := item.ParseKind(kind); err != nil {
			return fmt.Errorf("scope %q: %v", s, err)
		}
	}
	if !doublestar.ValidatePattern(glob) {
		return fmt.Errorf("scope %q: invalid glob", s)
	}
	return nil
}

// Allows reports whether the key's scopes cover an item (no scopes: all).
func (k *TrustedKey) Allows(kind item.Kind, id item.ID) bool {
	if len(k.Scopes) == 0 {
		return true
	}
	for _, s := range k.Scopes {
		sk, glob, _ := strings.Cut(s, ":")
		if sk != "*" && sk != string(kind) {
			if pk, _ := item.ParseKind(sk); pk != kind {
				continue
			}
		}
		if ok, _ := doublestar.Match(glob, string(id)); ok {
			return true
		}
	}
	return false
}

// ExpiredAt reports whether the key has expired at t: after the end of its
// expiry day.
func (k *TrustedKey) ExpiredAt(t time.Time) bool {
	return k.Expires != nil && !t.UTC().Before(k.Expires.AddDate(0, 0, 1))
}

// ExpiresWithin reports whether the key expires within d after t (and has
// not expired yet).
func (k *TrustedKey) ExpiresWithin(t time.Time, d time.Duration) bool {
	return k.Expires != nil && !k.ExpiredAt(t) && k.Expires.AddDate(0, 0, 1).Sub(t) <= d
}

// KeyExistsError is a key that is trusted already where it would be
// written.
type KeyExistsError struct {
	Fingerprint, Path string
}

func (e *KeyExistsError) Error() string {
	return fmt.Sprintf("%s is already trusted (%s)", e.Fingerprint, e.Path)
}

// WriteTrustedKey writes k's entry into the trusted_keys folder dir
// (created when missing), atomically, and returns its path; an existing
// entry is a *KeyExistsError unless replace. What is written is parsed
// first, as it will be read: scopes and expiry are checked the same way.
func WriteTrustedKey(dir string, k *TrustedKey, replace bool) (string, error) {
	data := FormatTrustedKey(k)
	if _, err := ParseTrustedKey(k.Fingerprint+".toml", data); err != nil {
		return "", err
	}
	target := filepath.Join(dir, k.Fingerprint+".toml")
	if _, err := os.Lstat(target); err == nil && !replace {
		return "", &KeyExistsError{Fingerprint: k.Fingerprint, Path: target}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	return target, atomicfile.WriteFile(target, data, 0o644)
}

// RemoveTrustedKey removes key fp's entry from the trusted_keys folder dir
// and returns its path.
func RemoveTrustedKey(dir, fp string) (string, error) {
	if len(fp) != 16 || strings.Trim(fp, "0123456789abcdef") != "" {
		return "", fmt.Errorf("%q is not a fingerprint (16 lowercase hex characters)", fp)
	}
	target := filepath.Join(dir, fp+".toml")
	if err := os.Remove(target); errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%s is not trusted in %s", fp, dir)
	} else if err != nil {
		return "", err
	}
	return target, nil
}

// FormatTrustedKey writes a trusted key as TOML in the reference's layout,
// with scopes and expires only when set. The fingerprint and the PEM are
// derived from k.Public, the only thing they follow from.
func FormatTrustedKey(k *TrustedKey) []byte {
	fp := sign.Fingerprint(k.Public)
	pemText, _ := sign.CanonicalPublicPEM(k.Public)
	var b strings.Builder
	fmt.Fprintf(&b, "fingerprint = %q\nowner = %q\nattestation = %q\n", fp, k.Owner, k.Attestation)
	if len(k.Scopes) > 0 {
		quoted := make([]string, len(k.Scopes))
		for i, s := range k.Scopes {
			quoted[i] = fmt.Sprintf("%q", s)
		}
		fmt.Fprintf(&b, "scopes = [%s]\n", strings.Join(quoted, ", "))
	}
	if k.Expires != nil {
		fmt.Fprintf(&b, "expires = %s\n", k.Expires.Format("2006-01-02"))
	}
	fmt.Fprintf(&b, "\n[public_key]\npem = \"\"\"\n%s\"\"\"\n", pemText)
	return []byte(b.String())
}

// TrustSource is one tier of the trust store: the trusted_keys folder of a
// space, as files.
type TrustSource struct {
	Label string // "project", "user", "system", "project@<ref>"
	Files fs.FS  // rooted at the space's .ai/trusted_keys folder; nil when absent
	// Era marks a RYE OS trust folder (.ai/config/keys/trusted): documents
	// of every era, read as spec 6.2.3 and 6.3.3 say (loadEraSource).
	Era bool
	// Where to show files as: a folder path for messages.
	Shown string
	// Problems found while gathering the files (reported with the store's).
	Problems []trustProblem
}

// trustProblem is a trusted-key file that was ignored, and why.
type trustProblem struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// TrustStore is the merged trust store: for each fingerprint, the key from
// the first tier that has it.
type TrustStore struct {
	keys     map[string]*TrustedKey
	order    []*TrustedKey
	Problems []trustProblem
	digest   string
	// added are keys that the tree under check adds to the project's
	// trusted_keys and that the trusted ref does not have (Added); changed
	// are keys both have, whose entries differ (Changed).
	added   map[string]*TrustedKey
	changed []*TrustedKey
	ref     string
	// staged is a store whose project keys were read from the git index:
	// the one a staged run without a trust ref may use.
	staged bool
}

// Changed lists the keys whose trusted-key entry the tree under check
// edits (owner, scopes, expiry): the ref's entry governs, and each edit is
// reported so that a reviewer sees it.
func (ts *TrustStore) Changed() []*TrustedKey { return ts.changed }

// add trusts k under both its fingerprints, unless an earlier tier has it.
func (ts *TrustStore) add(k *TrustedKey) {
	if _, dup := ts.keys[k.Fingerprint]; dup {
		return
	}
	ts.keys[k.Fingerprint] = k
	if k.Fingerprint64 != "" {
		ts.keys[k.Fingerprint64] = k
	}
	ts.order = append(ts.order, k)
}

// Added lists the keys the tree under check adds to the project's
// trusted_keys and the trusted ref does not trust: they are not trusted
// (a change cannot vouch for itself), and each is reported.
func (ts *TrustStore) Added() []*TrustedKey {
	out := make([]*TrustedKey, 0, len(ts.added))
	for _, k := range ts.added {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// addedKey is the key the change under review adds with fingerprint fp,
// rye's 16-hex fingerprint or the 64-hex one of the RYE OS Rust eras (r1,
// ryeos), or nil.
func (ts *TrustStore) addedKey(fp string) *TrustedKey {
	if k := ts.added[fp]; k != nil {
		return k
	}
	for _, k := range ts.added {
		if k.Fingerprint64 == fp {
			return k
		}
	}
	return nil
}

// Ref is the git ref whose keys the project tier holds ("" for the
// working tree's).
func (ts *TrustStore) Ref() string { return ts.ref }

// withAdded records the keys of tree (the project's keys in the tree under
// check) that no tier of ts trusts.
func (ts *TrustStore) withAdded(ref string, tree []TrustSource) error {
	own, err := LoadTrustStore(tree)
	if err != nil {
		return err
	}
	ts.ref, ts.added = ref, map[string]*TrustedKey{}
	for _, k := range own.order {
		switch at := ts.keys[k.Fingerprint]; {
		case at == nil:
			ts.added[k.Fingerprint] = k
		case !sameEntry(at, k):
			ts.changed = append(ts.changed, k)
		}
	}
	// The tree's own broken key files are the change's too: report them.
	ts.Problems = append(ts.Problems, own.Problems...)
	return nil
}

// sameEntry reports whether two entries of one key say the same: owner,
// attestation, scopes and expiry.
func sameEntry(a, b *TrustedKey) bool {
	if a.Owner != b.Owner || a.Attestation != b.Attestation || !slices.Equal(a.Scopes, b.Scopes) || (a.Expires == nil) != (b.Expires == nil) {
		return false
	}
	return a.Expires == nil || a.Expires.Equal(*b.Expires)
}

// LoadTrustStore reads the tiers in order (project, user, system).
// Unreadable or inconsistent files are skipped and listed in Problems: a bad
// file must never make a key trusted, and must not hide the other keys.
func LoadTrustStore(sources []TrustSource) (*TrustStore, error) {
	ts := &TrustStore{keys: map[string]*TrustedKey{}}
	h := newDigest()
	for _, src := range sources {
		ts.Problems = append(ts.Problems, src.Problems...)
		if src.Files == nil {
			continue
		}
		if src.Era {
			ts.loadEraSource(src, h)
			continue
		}
		entries, err := fs.ReadDir(src.Files, ".")
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s trusted keys: %w", src.Label, err)
		}
		for _, e := range entries {
			name := e.Name()
			shown := path.Join(src.Shown, name)
			if strings.HasPrefix(name, ".") || e.IsDir() {
				continue
			}
			if !strings.HasSuffix(name, ".toml") {
				ts.Problems = append(ts.Problems, trustProblem{shown, "not a .toml file: ignored"})
				continue
			}
			if e.Type()&fs.ModeSymlink != 0 {
				ts.Problems = append(ts.Problems, trustProblem{shown, "symbolic link: ignored"})
				continue
			}
			if !e.Type().IsRegular() {
				ts.Problems = append(ts.Problems, trustProblem{shown, "not a regular file: ignored"})
				continue
			}
			data, err := readBounded(src.Files, name)
			if err != nil {
				ts.Problems = append(ts.Problems, trustProblem{shown, err.Error() + ": ignored"})
				continue
			}
			h.add(src.Label, name, data)
			k, err := ParseTrustedKey(name, data)
			if err != nil {
				ts.Problems = append(ts.Problems, trustProblem{shown, err.Error() + ": ignored"})
				continue
			}
			k.Space, k.Path = src.Label, shown
			ts.add(k)
		}
	}
	ts.digest = h.sum()
	return ts, nil
}

// readBounded reads a trusted-key file of at most space.MaxItemSize bytes:
// a change could add a huge one, which must cost an ignored file, not the
// memory of the run.
func readBounded(fsys fs.FS, name string) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := int64(-1)
	if info, err := f.Stat(); err == nil {
		size = info.Size()
	}
	return space.ReadAtMost(f, size)
}

// With returns a new store: this one's keys, then those of more tiers
// (rye bundle install --trust adds a bundle's shipped key this way). Keys
// already trusted keep their first tier's entry.
func (ts *TrustStore) With(extra []TrustSource) (*TrustStore, error) {
	more, err := LoadTrustStore(extra)
	if err != nil {
		return nil, err
	}
	out := &TrustStore{keys: map[string]*TrustedKey{}, Problems: append(append([]trustProblem(nil), ts.Problems...), more.Problems...)}
	for _, k := range append(append([]*TrustedKey(nil), ts.order...), more.order...) {
		out.add(k)
	}
	h := newDigest()
	h.add("", "base", []byte(ts.digest))
	h.add("", "more", []byte(more.digest))
	out.digest = h.sum()
	return out, nil
}

// Lookup returns the trusted key with that fingerprint, or nil.
func (ts *TrustStore) Lookup(fp string) *TrustedKey { return ts.keys[fp] }

// Keys lists the trusted keys, tier by tier, in file order.
func (ts *TrustStore) Keys() []*TrustedKey { return ts.order }

// Digest identifies the store's exact contents (every file of every tier),
// for caches whose validity depends on what is trusted.
func (ts *TrustStore) Digest() string { return ts.digest }

// MemTrustSource is a trust tier held in memory: files maps file names
// ("<fingerprint>.toml") to their bytes. A release bundle's shipped key,
// once named with --trust, joins the trust store this way, with the same
// checks as a file on disk.
func MemTrustSource(label, shown string, files map[string][]byte) TrustSource {
	m := fstest.MapFS{}
	for name, data := range files {
		m[name] = &fstest.MapFile{Data: data, Mode: 0o444}
	}
	return TrustSource{Label: label, Files: m, Shown: shown}
}

// TrustSources returns the trust tiers of the given spaces, in order.
func TrustSources(spaces []*space.Space) []TrustSource {
	var out []TrustSource
	for _, sp := range spaces {
		sub, err := fs.Sub(sp.FS(), TrustedKeysDir)
		if err != nil {
			continue
		}
		out = append(out, TrustSource{Label: sp.Label, Files: sub, Shown: sp.DisplayPath(TrustedKeysDir)})
	}
	return out
}

// TrustTiers assembles the tiers of the trust store in lookup order (spec
// 2.5): the project's keys, then the user's, then the system roots'. A
// space's tier is its .ai/trusted_keys/ and, for the project and the user,
// RYE OS's .ai/config/keys/trusted/ (spec 6.3.4; a system root's is a
// bundle's suggestion, never trust). project, when not nil, replaces the
// project's working-tree keys (the keys of a git commit for --trust-ref,
// or of the index for --staged). The user's keys are left out when
// includeUser is false: under --trust-ref, a change must not be verified
// by keys that only the person running the check holds, unless they ask
// (--trust-user).
func TrustTiers(ss *space.Spaces, project []TrustSource, includeUser bool) []TrustSource {
	var out []TrustSource
	switch {
	case project != nil:
		out = append(out, project...)
	case ss.Project != nil:
		out = append(out, projectTrust(ss.Project)...)
	}
	if ss.User != nil && includeUser {
		out = append(out, projectTrust(ss.User)...)
	}
	return append(out, TrustSources(ss.System)...)
}

// projectTrust is the trust tier of a project or user space on disk: its
// .ai/trusted_keys/, then its RYE OS .ai/config/keys/trusted/ when there
// is one.
func projectTrust(sp *space.Space) []TrustSource {
	return append(TrustSources([]*space.Space{sp}), eraSources([]*space.Space{sp})...)
}

// listing is a trust store as rye trust list --json prints it: every key
// with where it was found, and the files that were ignored.
type listing struct {
	Keys     []listedKey    `json:"keys"`
	Problems []trustProblem `json:"ignored"`
}

// listedKey is one key of a Listing.
type listedKey struct {
	Fingerprint string   `json:"fingerprint"`
	Owner       string   `json:"owner"`
	Space       string   `json:"space"`
	Path        string   `json:"path"`
	Scopes      []string `json:"scopes"`
	Expires     string   `json:"expires,omitempty"` // the last day, YYYY-MM-DD
}

// Listing lists the store's keys and problems.
func (ts *TrustStore) Listing() *listing {
	l := &listing{Keys: []listedKey{}, Problems: append([]trustProblem{}, ts.Problems...)}
	for _, k := range ts.Keys() {
		lk := listedKey{Fingerprint: k.Fingerprint, Owner: k.Owner, Space: k.Space, Path: k.Path, Scopes: append([]string{}, k.Scopes...)}
		if k.Expires != nil {
			lk.Expires = k.Expires.Format("2006-01-02")
		}
		l.Keys = append(l.Keys, lk)
	}
	return l
}
