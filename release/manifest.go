package release

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/ryekit/rye/item"
)

// kindBundle is the kind a manifest is signed as (spec 2.3): the message
// binds the signature to the bundle's id, so a manifest cannot be passed
// off as another bundle's.
const kindBundle item.Kind = "bundle"

// kindTrustedKey marks the shipped copies of the signers' keys in a
// manifest.
const kindTrustedKey = "trusted-key"

// ManifestPath is where a bundle's manifest sits in the archive (and,
// once installed, in the space).
func ManifestPath(id item.ID) string { return ".ai/bundles/" + string(id) + "/manifest.yaml" }

// keyPath is where the shipped copy of a signer's key sits.
func keyPath(id item.ID, fp string) string {
	return ".ai/bundles/" + string(id) + "/trusted_keys/" + fp + ".toml"
}

// manifest describes a bundle: what it is, and every file it ships but the
// manifest itself, with the file's hash and, for items, how it is signed.
type manifest struct {
	Bundle info             `yaml:"bundle"`
	Files  map[string]Entry `yaml:"files"`
}

// info is the manifest's bundle section.
type info struct {
	ID         string `yaml:"id" json:"id"`
	Version    string `yaml:"version" json:"version"`
	CreatedAt  string `yaml:"created_at" json:"created_at"`
	RyeVersion string `yaml:"rye_version" json:"rye_version"`
}

// Entry is one shipped file.
type Entry struct {
	Kind      string    `yaml:"kind"` // directive, tool, knowledge or trusted-key
	ID        string    `yaml:"id"`   // the item id, or the key's fingerprint
	SHA256    string    `yaml:"sha256"`
	Signature *sigEntry `yaml:"signature,omitempty"` // items only
}

// sigEntry is how an item is signed.
type sigEntry struct {
	Format string `yaml:"format"` // v1 or v2
	FP     string `yaml:"fp"`
}

// Marshal writes the manifest (without its signature line) in one fixed
// layout, every string double-quoted and the files sorted by path, so
// that the same content always gives the same bytes.
func (m *manifest) Marshal() []byte {
	var b bytes.Buffer
	q := strconv.Quote
	fmt.Fprintf(&b, "bundle:\n  id: %s\n  version: %s\n  created_at: %s\n  rye_version: %s\n", q(m.Bundle.ID), q(m.Bundle.Version), q(m.Bundle.CreatedAt), q(m.Bundle.RyeVersion))
	b.WriteString("files:\n")
	for _, p := range m.Paths() {
		e := m.Files[p]
		fmt.Fprintf(&b, "  %s:\n    kind: %s\n    id: %s\n    sha256: %s\n", q(p), q(e.Kind), q(e.ID), q(e.SHA256))
		if e.Signature != nil {
			fmt.Fprintf(&b, "    signature:\n      format: %s\n      fp: %s\n", q(e.Signature.Format), q(e.Signature.FP))
		}
	}
	return b.Bytes()
}

// Paths lists the shipped files, sorted.
func (m *manifest) Paths() []string { return slices.Sorted(maps.Keys(m.Files)) }

// Compiled on first use: every rye process links this package.
var (
	hexSHA256 = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{64}$`) })
	hexFP     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{16}$`) })
)

// parseManifest decodes a manifest strictly (unknown fields are an error:
// a field rye does not understand must not be silently ignored in a
// document that decides what gets installed) and checks every value.
func parseManifest(data []byte) (*manifest, error) {
	var m manifest
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("manifest: %v", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	var extra any
	if err := dec.Decode(&extra); err == nil {
		return nil, errors.New("manifest: more than one YAML document")
	}
	if _, err := item.ParseID(m.Bundle.ID); err != nil {
		return nil, fmt.Errorf("manifest: bundle id: %v", err)
	}
	if m.Bundle.Version == "" {
		return nil, errors.New("manifest: bundle version is empty")
	}
	if _, err := time.Parse(time.RFC3339, m.Bundle.CreatedAt); err != nil {
		return nil, fmt.Errorf("manifest: created_at %q is not an RFC 3339 time", m.Bundle.CreatedAt)
	}
	if len(m.Files) == 0 {
		return nil, errors.New("manifest: no files")
	}
	for p, e := range m.Files {
		if reason := checkEntryName(p); reason != "" {
			return nil, fmt.Errorf("manifest: file %q: %s", p, reason)
		}
		if !hexSHA256().MatchString(e.SHA256) {
			return nil, fmt.Errorf("manifest: file %s: sha256 %q is not 64 lowercase hex digits", p, e.SHA256)
		}
		switch e.Kind {
		case kindTrustedKey:
			if !hexFP().MatchString(e.ID) || p != keyPath(item.ID(m.Bundle.ID), e.ID) {
				return nil, fmt.Errorf("manifest: file %s: a trusted key must be %s", p, keyPath(item.ID(m.Bundle.ID), "<fingerprint>"))
			}
		case string(item.Directive), string(item.Tool), string(item.Knowledge):
			if _, err := item.ParseID(e.ID); err != nil {
				return nil, fmt.Errorf("manifest: file %s: id: %v", p, err)
			}
			// A bundle holds items: a signed file of another form (a .json
			// file of a tool package) is not one.
			if !item.Kind(e.Kind).HasExtension(path.Ext(p)) {
				return nil, fmt.Errorf("manifest: file %s: %q is not a %s file form", p, path.Ext(p), e.Kind)
			}
			if e.Signature == nil || (e.Signature.Format != "v1" && e.Signature.Format != "v2") || !hexFP().MatchString(e.Signature.FP) {
				return nil, fmt.Errorf("manifest: file %s: signature needs format v1 or v2 and a 16-hex-digit fp", p)
			}
		default:
			return nil, fmt.Errorf("manifest: file %s: unknown kind %q", p, e.Kind)
		}
	}
	return &m, nil
}
