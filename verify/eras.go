package verify

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"sort"
	"strings"
	"unicode"

	toml "github.com/pelletier/go-toml/v2"

	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/sign"
	"github.com/ryekit/rye/space"
)

// ErasKeysDir is where RYE OS keeps trusted keys from 2026-02-26 on, below
// .ai/ (spec 6.2.3, 6.3.3). rye reads it, read-only, beside its own
// trusted_keys/: documents of every era, each checked as its era requires.
const ErasKeysDir = "config/keys/trusted"

// Bounds of a RYE OS trust folder (those of the ryeos engine, spec 6.3.3).
const (
	eraMaxDepth = 8
	eraMaxFiles = 1024
	eraMaxTotal = 8 << 20
)

// eraDoc is one document of a RYE OS trust folder, parsed, before its
// signature (if any) is checked against the keys loaded so far.
type eraDoc struct {
	key   *TrustedKey
	found sign.Found // its signature line; Status Unsigned when there is none
	data  []byte
	rust  bool // a Rust-era document (64-hex fingerprint), else the v1 era's
}

// eraFile is the TOML of a RYE OS trusted-key document. category and
// version are written by the Python era and ignored; any other unknown
// field is refused, as the ryeos engine does.
type eraFile struct {
	Fingerprint string `toml:"fingerprint"`
	Owner       string `toml:"owner"`
	Version     string `toml:"version"`
	Category    string `toml:"category"`
	Attestation string `toml:"attestation"`
	PublicKey   struct {
		PEM string `toml:"pem"`
	} `toml:"public_key"`
}

// parseEraDoc reads one file of a RYE OS trust folder: a *.pub or *.key
// file (the raw key, spec 6.3.3), or a *.toml document of the v1 era
// (16-hex fingerprint, PEM key, named <fp>.toml) or of the Rust eras
// (64-hex fingerprint, "ed25519:" key). Declared fingerprints must equal
// the ones recomputed from the key. ok is false for a file of another
// extension, which is skipped.
func parseEraDoc(name string, data []byte) (doc *eraDoc, ok bool, err error) {
	switch path.Ext(name) {
	case ".pub", ".key":
		first, _, _ := strings.Cut(string(data), "\n")
		pub, err := sign.ParseRawPublicKey(first)
		if err != nil {
			return nil, true, err
		}
		return &eraDoc{key: newKey(pub, "", ""), rust: true}, true, nil
	case ".toml":
	default:
		return nil, false, nil
	}
	if err := trustTOMLShape(data); err != nil {
		return nil, true, err
	}
	var f eraFile
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, true, fmt.Errorf("invalid trusted-key document: %s", strings.TrimPrefix(err.Error(), "toml: "))
	}
	doc = &eraDoc{data: data, found: sign.Find(data, ".toml")}
	var pub ed25519.PublicKey
	switch len(f.Fingerprint) {
	case 16: // the v1 era: PEM, and the file is named after the key
		if pub, err = sign.ParsePublicKeyPEM([]byte(f.PublicKey.PEM)); err != nil {
			return nil, true, fmt.Errorf("[public_key] pem: %v", err)
		}
		fp := sign.Fingerprint(pub)
		if base := strings.TrimSuffix(path.Base(name), ".toml"); base != fp {
			return nil, true, fmt.Errorf("the file is named %s but its key's fingerprint is %s", base, fp)
		}
		if f.Fingerprint != fp {
			return nil, true, fmt.Errorf("its fingerprint field says %s but the key's fingerprint is %s", f.Fingerprint, fp)
		}
	case 64: // the Rust eras
		if pub, err = sign.ParseRawPublicKey(f.PublicKey.PEM); err != nil {
			return nil, true, fmt.Errorf("[public_key] pem: %v", err)
		}
		doc.rust = true
		if fp := sign.Fingerprint64(pub); f.Fingerprint != fp {
			return nil, true, fmt.Errorf("its fingerprint field says %s but the key's fingerprint is %s", f.Fingerprint, fp)
		}
	default:
		return nil, true, fmt.Errorf("fingerprint %q: expected 16 hex (the v1 era) or 64 hex (the Rust eras)", f.Fingerprint)
	}
	owner := f.Owner
	if owner == "" && doc.rust {
		owner = "unknown"
	}
	if err := checkOwner(owner); err != nil {
		return nil, true, err
	}
	doc.key = newKey(pub, owner, f.Attestation)
	if why := doc.misplacedSignature(); why != "" {
		return nil, true, errors.New(why)
	}
	return doc, true, nil
}

// misplacedSignature refuses a document whose signature line is not on its
// first line: the engines hash nothing for it there, so it always fails.
func (d *eraDoc) misplacedSignature() string {
	if d.found.Status != sign.Unsigned || d.found.Placeholder {
		return ""
	}
	for i, line := range bytes.Split(d.data, []byte("\n")) {
		if i > 0 && (bytes.HasPrefix(line, []byte("# rye:signed:")) || bytes.HasPrefix(line, []byte("# ryeos:signed:"))) {
			return fmt.Sprintf("its signature line is on line %d, not the first", i+1)
		}
	}
	if d.found.Reason != "" {
		return d.found.Reason
	}
	return ""
}

// signer returns the fingerprint of the key that signed the document ("" for
// an unsigned one), after checking that the line parses, is of the
// document's era and that the hash matches.
func (d *eraDoc) signer() (string, error) {
	switch d.found.Status {
	case sign.Unsigned:
		return "", nil
	case sign.Malformed, sign.Duplicate:
		return "", fmt.Errorf("its signature line does not parse: %s", d.found.Reason)
	}
	l := d.found.Line
	rustLine := l.Format == sign.R1 || l.Format == sign.RyeOS
	if rustLine != d.rust {
		return "", fmt.Errorf("a %s signature on a document of another era", l.Format)
	}
	hash, err := sign.ContentHash(d.found, item.Tool, d.data) // documents hash like tools
	if err != nil || hash != l.Hash {
		return "", errors.New("the document changed after it was signed")
	}
	return l.Fingerprint, nil
}

// checkSignature verifies a signed document with its own key (self-signed)
// or with the signer's key, found by lookup among the keys already
// accepted (cross-signed).
func (d *eraDoc) checkSignature(lookup func(string) *TrustedKey) (pending bool, err error) {
	fp, err := d.signer()
	if err != nil || fp == "" {
		return false, err
	}
	signerKey := lookup(fp)
	if fp == d.key.Fingerprint || fp == d.key.Fingerprint64 {
		signerKey = d.key
	}
	if signerKey == nil {
		return true, fmt.Errorf("cross-signed by key %s, which is not trusted", fp)
	}
	if !sign.VerifySignature(signerKey.Public, d.found.Line, item.Tool, "") {
		return false, fmt.Errorf("its signature by key %s does not verify", fp)
	}
	return false, nil
}

// newKey is a trusted key with both its fingerprints.
// checkOwner refuses an owner that cannot be shown as it is: rye prints
// owners in its reports (a key a change adds, the signers a bundle ships,
// rye trust list), and a key document comes from whoever wrote the tree
// or the bundle. A control character (a terminal escape sequence, a
// carriage return) could rewrite what the reader sees around it, and a
// bidirectional or other format character reorder or hide it.
func checkOwner(owner string) error {
	if i := strings.IndexFunc(owner, func(r rune) bool { return badPrincipalRune(r) || unicode.Is(unicode.Cf, r) }); i >= 0 {
		return fmt.Errorf("owner %q holds a control or format character (U+%04X), which rye does not print", owner, []rune(owner[i:])[0])
	}
	return nil
}

func newKey(pub ed25519.PublicKey, owner, attestation string) *TrustedKey {
	return &TrustedKey{Fingerprint: sign.Fingerprint(pub), Fingerprint64: sign.Fingerprint64(pub), Owner: owner, Attestation: attestation, Public: pub}
}

// eraFiles lists the files of a RYE OS trust folder in path order, within
// the engine's bounds, with their bytes; problems are reported, never
// fatal.
func eraFiles(src TrustSource, problem func(string, string)) map[string][]byte {
	out := map[string][]byte{}
	total := 0
	_ = fs.WalkDir(src.Files, ".", func(p string, d fs.DirEntry, err error) error {
		shown := path.Join(src.Shown, p)
		switch {
		case err != nil:
			if p != "." {
				problem(shown, err.Error()+": ignored")
			}
			return nil
		case p == ".":
			return nil
		case d.Type()&fs.ModeSymlink != 0:
			problem(shown, "symbolic link: ignored")
			return nil
		case d.IsDir():
			if strings.Count(p, "/")+1 >= eraMaxDepth {
				problem(shown, fmt.Sprintf("deeper than %d folders: ignored", eraMaxDepth))
				return fs.SkipDir
			}
			return nil
		case strings.HasPrefix(d.Name(), "."):
			return nil
		case !d.Type().IsRegular():
			problem(shown, "not a regular file: ignored")
			return nil
		case len(out) >= eraMaxFiles:
			problem(shown, fmt.Sprintf("more than %d files in the folder: ignored", eraMaxFiles))
			return nil
		}
		data, err := readBounded(src.Files, p)
		if err != nil {
			problem(shown, err.Error()+": ignored")
			return nil
		}
		if total += len(data); total > eraMaxTotal {
			problem(shown, fmt.Sprintf("the folder holds more than %d bytes: ignored", eraMaxTotal))
			return nil
		}
		out[p] = data
		return nil
	})
	return out
}

// loadEraSource adds the keys of a RYE OS trust folder to the store: every
// document parsed, then accepted in path order when unsigned, self-signed,
// or cross-signed by a key already trusted. A v1-era document may be
// signed by a key that comes later (the Python reference looked its signer
// up anywhere), so those are retried until nothing changes; a signer that
// is never accepted refuses the document (rye follows no cycle).
func (ts *TrustStore) loadEraSource(src TrustSource, h *digest) {
	problem := func(p, why string) { ts.Problems = append(ts.Problems, trustProblem{p, why}) }
	files := eraFiles(src, problem)
	names := make([]string, 0, len(files))
	for p := range files {
		names = append(names, p)
	}
	sort.Strings(names)
	var later []string
	docs := map[string]*eraDoc{}
	for _, p := range names {
		shown := path.Join(src.Shown, p)
		if path.Base(p) == "PUBLISHER_TRUST.toml" {
			problem(shown, "a publisher's trust file is a suggestion, never trust: import it with rye trust add if you trust its owner")
			continue
		}
		h.add(src.Label, p, files[p])
		doc, ok, err := parseEraDoc(p, files[p])
		if !ok {
			continue
		}
		if err != nil {
			problem(shown, err.Error()+": ignored")
			continue
		}
		doc.key.Space, doc.key.Path = src.Label, shown
		pending, err := doc.checkSignature(ts.Lookup)
		switch {
		case pending && !doc.rust:
			docs[p] = doc
			later = append(later, p)
		case err != nil:
			problem(shown, err.Error()+": ignored")
		default:
			ts.add(doc.key)
		}
	}
	for progress := true; progress && len(later) > 0; {
		progress = false
		var still []string
		for _, p := range later {
			pending, err := docs[p].checkSignature(ts.Lookup)
			switch {
			case pending:
				still = append(still, p)
			case err != nil:
				problem(path.Join(src.Shown, p), err.Error()+": ignored")
				progress = true
			default:
				ts.add(docs[p].key)
				progress = true
			}
		}
		later = still
	}
	for _, p := range later {
		_, err := docs[p].checkSignature(ts.Lookup)
		problem(path.Join(src.Shown, p), err.Error()+": ignored")
	}
}

// eraSources returns the RYE OS trust folders of the given spaces.
func eraSources(spaces []*space.Space) []TrustSource {
	var out []TrustSource
	for _, sp := range spaces {
		sub, err := fs.Sub(sp.FS(), ErasKeysDir)
		if err != nil {
			continue
		}
		if _, err := fs.Stat(sub, "."); err != nil {
			continue
		}
		out = append(out, TrustSource{Label: sp.Label, Files: sub, Shown: sp.DisplayPath(ErasKeysDir), Era: true})
	}
	return out
}

// publisherFile is RyeOS's PUBLISHER_TRUST.toml (spec 6.3.3): exactly these
// three fields.
type publisherFile struct {
	PublicKey   string `toml:"public_key"`
	Fingerprint string `toml:"fingerprint"`
	Owner       string `toml:"owner"`
}

// maxKeyInput bounds what ImportKeyFile reads from standard input: a key
// document is a few hundred bytes, and a pipe has no size to check first.
const maxKeyInput = 1 << 16

// ImportKeyFile imports (importKey) the key in the file name, or with "-"
// in at most 64 KiB of stdin (rye trust add FILE|-). An error that is not
// the read's own names the file, or "standard input".
func ImportKeyFile(name string, stdin io.Reader) (*TrustedKey, error) {
	var data []byte
	var err error
	if name == "-" {
		name = "standard input"
		data, err = io.ReadAll(io.LimitReader(stdin, maxKeyInput))
	} else {
		data, err = os.ReadFile(name)
	}
	if err != nil {
		return nil, err
	}
	k, err := importKey(name, data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return k, nil
}

// importKey reads a public key that someone chose to trust (rye trust add),
// in every form a user may hand over: those of parseKeyText (a PEM, an
// OpenSSH public key line, an allowed_signers line), and those RYE OS and
// rye wrote (spec 6.3.4): a trusted-key TOML of rye (2.5) or of any RYE OS
// era (6.2.3, 6.3.3), a RyeOS PUBLISHER_TRUST.toml, a *.pub or *.key file
// of the raw key ("ed25519:<base64>"). Both fingerprints are recomputed
// from the key, and a declared one that disagrees refuses the file. A
// signature line in a document is not checked here: the person importing
// the key decides to trust it. The owner is the document's, when it has one.
func importKey(name string, data []byte) (*TrustedKey, error) {
	text := strings.TrimSpace(string(data))
	k, textErr := parseKeyText(data)
	switch {
	case textErr == nil:
		return k, nil
	case strings.HasPrefix(text, "-----BEGIN") || slices.ContainsFunc(strings.Fields(text), sign.IsOpenSSHKeyType):
		return nil, textErr // an SSH or PEM key that parseKeyText refused, with its reason
	case !strings.Contains(text, "\n"):
		if pub, err := sign.ParseRawPublicKey(text); err == nil {
			return newKey(pub, "", ""), nil // a RYE OS *.pub or *.key file
		}
	}
	if err := trustTOMLShape(data); err != nil {
		return nil, err
	}
	var probe map[string]any
	if err := toml.Unmarshal(data, &probe); err != nil {
		return nil, fmt.Errorf("%v; or a trusted-key TOML of rye or RYE OS, a PUBLISHER_TRUST.toml, or a raw key (ed25519:<base64>)", textErr)
	}
	if _, ok := probe["public_key"].(string); ok {
		var p publisherFile
		dec := toml.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&p); err != nil {
			return nil, fmt.Errorf("invalid publisher trust file: %s", strings.TrimPrefix(err.Error(), "toml: "))
		}
		pub, err := sign.ParseRawPublicKey(p.PublicKey)
		if err != nil {
			return nil, fmt.Errorf("public_key: %v", err)
		}
		if fp := sign.Fingerprint64(pub); p.Fingerprint != fp {
			return nil, fmt.Errorf("its fingerprint field says %s but the key's fingerprint is %s", p.Fingerprint, fp)
		}
		if err := checkOwner(p.Owner); err != nil {
			return nil, err
		}
		return newKey(pub, p.Owner, ""), nil
	}
	fp, _ := probe["fingerprint"].(string)
	if len(fp) == 64 {
		doc, _, err := parseEraDoc("import.toml", data)
		if err != nil {
			return nil, err
		}
		return doc.key, nil
	}
	// rye's own (2.5) or the v1 era's (6.2.3): a PEM key, checked against the
	// declared fingerprint; the file's name is not the user's concern here.
	// Its scopes and expiry come along: a key imported without them would
	// be trusted for more than the file says.
	var f trustFile
	if err := toml.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("invalid trusted-key file: %s", strings.TrimPrefix(err.Error(), "toml: "))
	}
	pub, err := sign.ParsePublicKeyPEM([]byte(f.PublicKey.PEM))
	if err != nil {
		return nil, fmt.Errorf("[public_key] pem: %v", err)
	}
	return f.key(pub)
}
