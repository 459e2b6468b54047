package verify

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/item/syntax"
	"github.com/ryekit/rye/sign"
)

// Verdict is the outcome of verifying one item (spec 2.6).
type Verdict string

const (
	Verified      Verdict = "verified"
	Unsigned      Verdict = "unsigned"
	malformed     Verdict = "malformed-signature"
	duplicate     Verdict = "duplicate-signature"
	Modified      Verdict = "modified"
	UntrustedKey  Verdict = "untrusted-key"
	BadSignature  Verdict = "bad-signature"
	Moved         Verdict = "moved"
	keyExpired    Verdict = "key-expired"
	keyOutOfScope Verdict = "key-out-of-scope"
	legacyFormat  Verdict = "legacy-format"
	unreadable    Verdict = "unreadable"
	// rollback is given by Run under a trust ref, after Check: the change
	// replaces an item with a validly signed but older version.
	rollback Verdict = "rollback"
)

// Verdicts lists every verdict, in the order of spec 2.6's table.
var Verdicts = []Verdict{Verified, Unsigned, malformed, duplicate, Modified, UntrustedKey, BadSignature, Moved, keyExpired, keyOutOfScope, legacyFormat, unreadable, rollback}

// Failed reports whether the verdict fails verification.
func (v Verdict) Failed() bool { return v != Verified }

// descriptions say in one sentence what each verdict means, for rule
// descriptions in SARIF and JSON.
var descriptions = map[Verdict]string{
	Verified:      "The signature verifies against a trusted key.",
	Unsigned:      "The item has no signature line (or only a placeholder).",
	malformed:     "The signature line does not parse, or has an unsupported version.",
	duplicate:     "Two signature lines at the top of the file.",
	Modified:      "The content changed after it was signed.",
	UntrustedKey:  "The signing key is not in the trust store.",
	BadSignature:  "The signature does not verify (for v2: also an edited timestamp or fingerprint, or a copy under another id).",
	Moved:         "The item's own metadata (name, id, category) disagrees with where the file is.",
	keyExpired:    "The signing key expired.",
	keyOutOfScope: "The signing key's scopes do not cover this item.",
	legacyFormat:  "A v1 signature where v2 is required.",
	unreadable:    "The file cannot be read: I/O error, symbolic link, over 1 MiB, or not UTF-8 where text is required.",
	rollback:      "The change replaces the item with a validly signed version older than the trusted ref's.",
}

// Description says in one sentence what the verdict means.
func (v Verdict) Description() string { return descriptions[v] }

// Policy is what verification requires beyond a valid signature.
type Policy struct {
	// RequireV2 turns v1 signatures into a failure (--require v2,
	// min_signature_version: 2).
	RequireV2 bool
	// Now is the time against which key expiry is judged.
	Now time.Time
}

// expiryWarning is how long before a key's expiry verification warns.
const expiryWarning = 30 * 24 * time.Hour

// Result is the verdict for one item, with what the report needs.
type Result struct {
	Kind    item.Kind `json:"kind"`
	ID      item.ID   `json:"id"`
	Space   string    `json:"space"`
	Path    string    `json:"path"`
	Verdict Verdict   `json:"verdict"`
	// Embedded is true for items of the bundle compiled into rye: trusted
	// because they are part of the binary.
	Embedded    bool   `json:"embedded,omitempty"`
	Format      string `json:"format,omitempty"` // "v1", "v2"
	Fingerprint string `json:"fingerprint,omitempty"`
	Owner       string `json:"owner,omitempty"`
	Line        int    `json:"line,omitempty"` // the signature line, when there is one
	// Reason says why in one line, with the fix.
	Reason string `json:"reason,omitempty"`
	// Warnings do not fail verification: a key that expires soon, a v1
	// signature while v2 is not required.
	Warnings []string `json:"warnings,omitempty"`
	// CopyKey identifies the signature of an item verified in a format
	// that does not bind its location (v1 and the RYE OS eras; sign.CopyKey:
	// the signed content's hash and the decoded signature, whatever base64
	// form the line writes it in). Two items with one key are one signed
	// file under two names ("" otherwise).
	CopyKey string `json:"-"`
}

// ItemPath and WithPath let a report name the result's file as a machine
// format does, relative to the repository (report's relocatable items).
func (r Result) ItemPath() string { return r.Path }

// WithPath is the result with another path.
func (r Result) WithPath(p string) any {
	r.Path = p
	return r
}

// Input is one signed object to verify: an item file, or a release
// bundle's manifest (kind "bundle"). Check is a pure function of it, the
// trust store and the policy, so that every caller (the verifier, lint,
// the executor, release bundles) gets the same verdict for the same bytes.
type Input struct {
	Kind     item.Kind
	ID       item.ID
	Space    string
	Path     string // as shown; its extension says how the signature line is written
	Embedded bool
	Data     []byte
	ReadErr  error // the file could not be read (then Data is nil)
	// Meta is the item's metadata when the caller has parsed Data already
	// (lint); nil means Check parses it for the location check.
	Meta *item.Metadata
	// Require, when set, is the only signature format the object may carry,
	// whatever the policy: a bundle manifest must be v2, the format that
	// binds its kind and id.
	Require sign.Format
	// Resign is the command that signs the object again, for the fixes;
	// "" means rye sign KIND ID.
	Resign string
	// TrustHint says how to trust the signer of key fingerprint, which the
	// store does not hold, for the untrusted-key fix; nil means rye trust
	// add.
	TrustHint func(fingerprint string) string
}

// Check verifies one item. The checks run in the order of spec 2.6 and the
// first that fails gives the verdict: read, parse the line, hash, location,
// trust, signature, key policy, format policy.
func Check(in Input, ts *TrustStore, p Policy) Result {
	r := Result{Kind: in.Kind, ID: in.ID, Space: in.Space, Path: in.Path, Embedded: in.Embedded}
	fail := func(v Verdict, reason string, args ...any) Result {
		r.Verdict, r.Reason = v, fmt.Sprintf(reason, args...)
		return r
	}
	if in.ReadErr != nil {
		return fail(unreadable, "%v", in.ReadErr)
	}
	if in.Embedded {
		r.Verdict, r.Reason = Verified, "embedded in rye"
		return r
	}
	ext := path.Ext(in.Path)
	signHint := in.Resign
	switch {
	case signHint != "":
	default:
		signHint = "rye sign " + resignTarget(in.Kind, in.ID)
	}

	// Parse the line.
	found := sign.Find(in.Data, ext)
	r.Line = lineOf(in.Data, found.Start)
	switch found.Status {
	case sign.Unsigned:
		if found.Reason != "" {
			return fail(Unsigned, "%s: %s", found.Reason, signHint)
		}
		if found.Placeholder {
			return fail(Unsigned, "only a placeholder signature line; sign it: %s", signHint)
		}
		return fail(Unsigned, "no signature line; sign it: %s", signHint)
	case sign.Malformed:
		return fail(malformed, "the signature line does not parse: %s; sign it again: %s", found.Reason, signHint)
	case sign.Duplicate:
		return fail(duplicate, "two signature lines at the top of the file; remove the second and sign again: %s", signHint)
	}
	l := found.Line
	r.Format, r.Fingerprint = l.Format.String(), l.Fingerprint
	if in.Require != 0 && l.Format != in.Require {
		return fail(legacyFormat, "a %s signature where only %s is accepted; sign it again: %s", l.Format, in.Require, signHint)
	}

	// Hash.
	hash, err := sign.ContentHash(found, in.Kind, in.Data)
	switch {
	case errors.Is(err, sign.ErrNotUTF8):
		return fail(unreadable, "not UTF-8 text, which a v1 signature needs")
	case err != nil:
		return fail(Modified, "%v; if the change is intended, sign it again: %s", err, signHint)
	case hash != l.Hash:
		return fail(Modified, "content changed since it was signed%s; if the change is intended, sign it again: %s", changeHint(in.Data), signHint)
	}

	// Location: an item's own metadata must agree with where it is. A file
	// that is not an item form (a .json file of a tool package that
	// verify_deps checks) has no metadata to disagree, and neither has an
	// item signed by RyeOS's Rust engine (r1, ryeos): RyeOS takes its
	// identity from the path (spec 7.3), so what it accepts is never
	// moved, and its verdict depends on the signature alone (what RyeOS
	// refuses of its metadata is lint's to say). A v2 signature binds
	// the kind and id itself, so its metadata is read only when a later
	// check fails, to name a move rather than what the move broke (moved
	// keeps its place before the trust and signature verdicts): a verified
	// v2 item is never parsed here, which is most of the work saved on a
	// large tree.
	failed := fail
	located := func() (Result, bool) {
		if in.Kind.Valid() && in.Kind.HasExtension(ext) {
			if moved, reason := locationMismatch(in, l.Format); moved != "" {
				return failed(Moved, "%s; move it back, or sign it at its new place: %s", reason, signHint), false
			}
		}
		return Result{}, true
	}
	rust := l.Format == sign.R1 || l.Format == sign.RyeOS
	if l.Format != sign.V2 && !rust {
		if r, ok := located(); !ok {
			return r
		}
	} else if l.Format == sign.V2 {
		fail = func(v Verdict, reason string, args ...any) Result {
			if r, ok := located(); !ok {
				return r
			}
			return failed(v, reason, args...)
		}
	}

	// Trust.
	key := ts.Lookup(l.Fingerprint)
	if key == nil {
		hint := "if you trust its owner: rye trust add <their public key>.pem"
		switch added := ts.addedKey(l.Fingerprint); {
		case in.TrustHint != nil:
			hint = in.TrustHint(l.Fingerprint)
		case added != nil:
			return fail(UntrustedKey, "signed by key %s%s, which this change adds (%s) and %s does not trust: a change cannot vouch for itself; the key is trusted once it is merged into %s, after review", l.Fingerprint, ownerOf(added), added.Path, ts.ref, ts.ref)
		}
		return fail(UntrustedKey, "signed by key %s, which is not in the trust store; %s", l.Fingerprint, hint)
	}
	r.Owner = key.Owner

	// Signature, over the message rebuilt from the actual kind and id.
	if !sign.VerifySignature(key.Public, l, in.Kind, in.ID) {
		reason := "the signature does not verify"
		if l.Format == sign.V2 {
			reason += " (the timestamp, fingerprint, kind or id differ from what was signed: edited, copied or moved?)"
		}
		return fail(BadSignature, "%s; sign it again: %s", reason, signHint)
	}

	// Key policy.
	if key.ExpiredAt(p.Now) {
		return fail(keyExpired, "key %s%s expired on %s; sign it with a current key, or extend the key's expires in %s", key.Fingerprint, ownerOf(key), key.Expires.Format("2006-01-02"), key.Path)
	}
	if !key.Allows(in.Kind, in.ID) {
		return fail(keyOutOfScope, "key %s%s may only sign %s; sign it with a key whose scopes cover %s %s", key.Fingerprint, ownerOf(key), strings.Join(key.Scopes, ", "), in.Kind, in.ID)
	}
	if key.ExpiresWithin(p.Now, expiryWarning) {
		r.Warnings = append(r.Warnings, fmt.Sprintf("key %s%s expires on %s", key.Fingerprint, ownerOf(key), key.Expires.Format("2006-01-02")))
	}

	// Format policy: every format but v2 is legacy.
	if l.Format.Legacy() {
		if p.RequireV2 {
			return fail(legacyFormat, "%s signature while v2 is required; re-sign it: rye sign --format v2 %s %s", l.Format, in.Kind, in.ID)
		}
		r.Warnings = append(r.Warnings, legacyWarning(l.Format, in.Kind, in.ID, ext))
		r.CopyKey = sign.CopyKey(l)
	}
	if rust && in.Kind.Valid() {
		if _, err := metadataOf(in); err != nil {
			r.Warnings = append(r.Warnings, fmt.Sprintf("%s %s (signature era %s): rye can verify it but cannot load or execute it (%v)", ryeOSItemWarning, in.Kind, l.Format, err))
		}
	}
	r.Verdict = Verified
	return r
}

// IsLegacyWarning reports whether w, one of r's warnings, is the one
// legacyWarning wrote: the same for every item of a format, so reports can
// show many of them as one line.
func (r Result) IsLegacyWarning(w string) bool {
	return r.Format != "" && r.Format != "v2" && strings.HasPrefix(w, r.Format+" signature:")
}

// legacyWarning is the warning of an item verified under a legacy format:
// what the format leaves uncovered, and the command that fixes it. RyeOS
// reads only its own formats (r1, ryeos), so for those the fix is offered
// only where RyeOS need not read the item.
func legacyWarning(f sign.Format, k item.Kind, id item.ID, ext string) string {
	if f == sign.R1 || f == sign.RyeOS {
		return fmt.Sprintf("%s signature: %s; RyeOS reads no other format, so keep it where RyeOS reads the item (elsewhere: rye sign --format v2 %s)", f, f.Uncovered(k, ext), resignTarget(k, id))
	}
	return fmt.Sprintf("%s signature: %s; re-sign it: rye sign --format v2 %s %s", f, f.Uncovered(k, ext), k, id)
}

// ryeOSItemWarning starts the warning of an item of RyeOS 0.2+ that rye
// verifies but cannot load.
const ryeOSItemWarning = "a RyeOS 0.2+"

// resignTarget names an item on rye sign's command line: KIND ID, or for
// a kind rye does not load (RyeOS 0.2+), its id as a pattern.
func resignTarget(k item.Kind, id item.ID) string {
	if k.Valid() {
		return string(k) + " " + string(id)
	}
	return shellQuote(string(id))
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:@%+=,", r))
	}) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// metadataOf is the item's metadata, parsed by the caller or here.
func metadataOf(in Input) (*item.Metadata, error) {
	if in.Meta != nil {
		return in.Meta, nil
	}
	return item.ReadMetadata(in.Kind, in.Path, in.Data)
}

func ownerOf(k *TrustedKey) string {
	if k.Owner == "" {
		return ""
	}
	return " (" + k.Owner + ")"
}

// locationMismatch compares the metadata fields that name a place (a
// directive's name, a knowledge entry's id, any category) with where the
// file is. For v2 the signature binds the id and a move is caught by the
// signature check; no other format binds the location.
func locationMismatch(in Input, f sign.Format) (Verdict, string) {
	md, err := metadataOf(in)
	if err != nil {
		// v1 binds nothing to the location, so metadata that does not parse
		// fails it; a Rust-era item may be a RyeOS 0.2+ form rye cannot read
		// (Check says so), and v2 binds the location itself.
		if f == sign.V1 || f == sign.V1U {
			return Moved, "its metadata does not parse (" + err.Error() + "), so its location cannot be checked, and a " + f.String() + " signature does not bind it"
		}
		return "", ""
	}
	nameField := map[item.Kind]string{item.Directive: "name", item.Knowledge: "id"}[in.Kind]
	if nameField != "" {
		if v := md.Get(nameField); v != nil && v.Kind == syntax.StringNode && v.Str != in.ID.Name() {
			return Moved, fmt.Sprintf("its %s is %q but the file is named %q", nameField, v.Str, in.ID.Name())
		}
	}
	if v := md.Get("category"); v != nil && v.Kind == syntax.StringNode && v.Str != in.ID.Dir() {
		return Moved, fmt.Sprintf("its category is %q but it is in %q", v.Str, folderText(in.ID.Dir()))
	}
	return "", ""
}

func folderText(dir string) string {
	if dir == "" {
		return "the top folder"
	}
	return dir
}

// changeHint names a change that is easy to miss and invisible in most
// editors, or returns "".
func changeHint(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte(item.BOM)):
		return " (note: it starts with a byte-order mark)"
	case bytes.Contains(data, []byte("\r\n")):
		return " (note: it has CRLF line endings; check core.autocrlf and .gitattributes)"
	case !utf8.Valid(data):
		return " (note: it is not UTF-8)"
	}
	return ""
}

// lineOf returns the 1-based line of a byte offset.
func lineOf(data []byte, off int) int {
	return bytes.Count(data[:off], []byte("\n")) + 1
}
