package release

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/ryekit/rye/internal/atomicfile"
	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/sign"
	"github.com/ryekit/rye/space"
	"github.com/ryekit/rye/verify"
)

// VersionError is a bundle version that is not a semantic version.
type VersionError struct {
	Version string
	Err     error
}

func (e *VersionError) Error() string { return fmt.Sprintf("version %q: %v", e.Version, e.Err) }

// CreateOptions say what to pack and how to sign it.
type CreateOptions struct {
	Space   *space.Space // the project the items come from
	ID      item.ID      // the bundle id: its items are ID/** of every kind
	Version string       // "" means 0.0.0
	Include []string     // more item patterns (ids, globs), every kind
	Cwd     string       // for file-path patterns
	Trust   *verify.TrustStore
	Policy  verify.Policy
	Key     *sign.Key // signs the manifest
	// RyeVersion is recorded in the manifest.
	RyeVersion string
	// Time is the manifest's created_at, its signature time and every
	// entry's mtime. Zero means the newest signature time among the items,
	// so that packing the same items twice gives the same bytes.
	Time time.Time
}

// NotVerifiedError lists the items that stop a bundle from being made:
// every packed item must be verified.
type NotVerifiedError struct {
	Failed []verify.Result
}

func (e *NotVerifiedError) Error() string {
	lines := make([]string, len(e.Failed))
	for i, r := range e.Failed {
		lines[i] = fmt.Sprintf("  %s %s (%s): %s: %s", r.Kind, r.ID, r.Path, r.Verdict, r.Reason)
	}
	return fmt.Sprintf("%s not verified, nothing packed:\n%s", countItems(len(e.Failed)), strings.Join(lines, "\n"))
}

func countItems(n int) string {
	if n == 1 {
		return "1 item"
	}
	return fmt.Sprintf("%d items", n)
}

// Created is a made bundle.
type Created struct {
	Archive  []byte
	Manifest *manifest
	Items    []verify.Result
}

// Create collects the bundle's items, refuses unless every one verifies,
// writes the manifest with the trusted-key entries of the items' signers
// and of the manifest's own signer (so that a user given the maker's
// fingerprint can name it with --trust), signs it (v2, kind bundle)
// and packs everything into a deterministic archive. Before returning, it
// checks the archive it made exactly as rye bundle verify would, so that a
// bundle that its own maker's trust store rejects is never written.
func Create(o CreateOptions) (*Created, error) {
	if o.Key == nil {
		return nil, errors.New("no signing key")
	}
	if o.Trust.Lookup(o.Key.Fingerprint) == nil {
		return nil, fmt.Errorf("your key %s, which signs the manifest, is not in your trust store (%s): nobody could verify the bundle (rye trust self trusts it)", o.Key.Fingerprint, verify.UntrustedKey)
	}
	patterns := append([]string{string(o.ID) + "/**"}, o.Include...)
	sel, err := space.Select(o.Space, item.Kinds, patterns, o.Cwd)
	if err != nil {
		return nil, err
	}
	if len(sel.Links) > 0 {
		return nil, fmt.Errorf("%s %v", sel.Links[0].Path(), space.ErrSymlink)
	}
	version := o.Version
	if version == "" {
		version = "0.0.0"
	}
	if _, err := item.ParseSemver(version); err != nil {
		return nil, &VersionError{Version: version, Err: err}
	}
	var files []file
	var results []verify.Result
	var failed []verify.Result
	m := &manifest{Bundle: info{ID: string(o.ID), Version: version, RyeVersion: o.RyeVersion}, Files: map[string]Entry{}}
	signers := map[string]bool{o.Key.Fingerprint: true}
	newest := time.Time{}
	for _, f := range sel.Items {
		data, err := o.Space.ReadFile(f.Rel)
		if err != nil {
			return nil, err
		}
		r := verify.Check(verify.Input{Kind: f.Kind, ID: f.ID, Space: o.Space.Label, Path: f.Path(), Data: data}, o.Trust, o.Policy)
		results = append(results, r)
		if r.Verdict.Failed() {
			failed = append(failed, r)
			continue
		}
		found := sign.Find(data, path.Ext(f.Rel))
		if t, err := found.Line.Time(); err == nil && t.After(newest) {
			newest = t
		}
		info, err := f.Info()
		if err != nil {
			return nil, err
		}
		p := ".ai/" + f.Rel
		files = append(files, file{Path: p, Data: data, Exec: info.Mode()&0o111 != 0})
		m.Files[p] = Entry{Kind: string(f.Kind), ID: string(f.ID), SHA256: sha256Hex(data), Signature: &sigEntry{Format: r.Format, FP: r.Fingerprint}}
		signers[r.Fingerprint] = true
	}
	if len(failed) > 0 {
		return nil, &NotVerifiedError{Failed: failed}
	}
	for fp := range signers {
		k := o.Trust.Lookup(fp)
		data := verify.FormatTrustedKey(k)
		p := keyPath(o.ID, fp)
		files = append(files, file{Path: p, Data: data})
		m.Files[p] = Entry{Kind: kindTrustedKey, ID: fp, SHA256: sha256Hex(data)}
	}
	created := o.Time
	if created.IsZero() {
		created = newest
	}
	created = created.UTC().Truncate(time.Second)
	m.Bundle.CreatedAt = created.Format(time.RFC3339)
	manifest, err := sign.Sign(o.Key, sign.V2, kindBundle, o.ID, ".yaml", m.Marshal(), created)
	if err != nil {
		return nil, err
	}
	files = append(files, file{Path: ManifestPath(o.ID), Data: manifest})
	var buf bytes.Buffer
	if err := writeArchive(&buf, files, created); err != nil {
		return nil, err
	}
	sort.Slice(results, func(i, j int) bool { return results[i].Path < results[j].Path })
	c := &Created{Archive: buf.Bytes(), Manifest: m, Items: results}
	// The check reads the archive back from its bytes, as an installer will.
	if check := check(c.Archive, o.Trust, o.Policy, defaultLimits); check.Failed() {
		return nil, fmt.Errorf("the bundle was made but does not verify with your own trust store: %s: %s", check.Verdict, check.Reason)
	}
	return c, nil
}

func sha256Hex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// written is a bundle written to a file: what rye bundle create --json
// prints.
type written struct {
	File   string `json:"file"`
	SHA256 string `json:"sha256"`
	Bundle info   `json:"bundle"`
	Items  int    `json:"items"`
}

// Write writes the bundle's archive to file, atomically (a crash leaves no
// half-written bundle, and an existing file is replaced whole).
func (c *Created) Write(file string) (*written, error) {
	if err := atomicfile.WriteFile(file, c.Archive, 0o644); err != nil {
		return nil, err
	}
	return &written{File: file, SHA256: sha256Hex(c.Archive), Bundle: c.Manifest.Bundle, Items: len(c.Items)}, nil
}
