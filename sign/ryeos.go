package sign

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/ryekit/rye/internal/atomicfile"
	"github.com/ryekit/rye/item"
)

// This file writes RyeOS's own formats (spec 7.6): ryeos, as RyeOS 0.2+
// signs, and r1, as its engine signed from April to May 2026. signRyeOS
// and signR1 are RyeOS's signers, byte for byte; oneRust is what rye sign
// does around them (whose line it replaces, what it checks first).

// Fingerprint64 is the key's fingerprint in RyeOS's Rust formats: the
// lowercase hex SHA-256 of the raw public key.
func (k *Key) Fingerprint64() string { return Fingerprint64(k.Public) }

// rustLine is a signature line of the Rust family for a file with
// extension ext: the envelope's opener, one space, the marker, the four
// fields, and " -->" for Markdown.
func rustLine(f Format, ext, ts, hash, sig, fp string) (string, error) {
	prefix, suffix, ok := item.Envelope(ext)
	if !ok {
		return "", fmt.Errorf("%s files cannot carry a signature line", ext)
	}
	marker := "ryeos:signed:"
	if f == R1 {
		marker = "rye:signed:"
	}
	return prefix + marker + ts + ":" + hash + ":" + sig + ":" + fp + suffix, nil
}

// rustSign hashes body and signs the 64 hex characters of the hash
// (spec 6.3.2), returning the line for ext.
func rustSign(key *Key, f Format, ext string, body []byte, t time.Time) (string, error) {
	sum := sha256.Sum256(body)
	hash := hex.EncodeToString(sum[:])
	sig, err := key.SignMessage([]byte(hash))
	if err != nil {
		return "", err
	}
	return rustLine(f, ext, t.UTC().Format(TimeLayout), hash, base64.StdEncoding.EncodeToString(sig), key.Fingerprint64())
}

// signRyeOS is RyeOS 0.2+'s signer (spec 7.6.1, steps 3 to 8) for a file
// with extension ext: every marker line of the file's envelope removed
// (CRLF becomes LF), a Python file's #! line kept above the signature
// line, the hash over the rest. A file already validly signed by key over
// that rest is returned unchanged (unchanged true), its old timestamp
// kept. A line of another key is replaced, as RyeOS does; rye sign's
// pipeline decides before whether it may be.
func signRyeOS(key *Key, ext string, src []byte, t time.Time) (out []byte, unchanged bool, err error) {
	s := item.StripRyeOSMarkers(src, ext)
	var shebang, body []byte
	body = s
	if ext == ".py" && bytes.HasPrefix(s, []byte("#!")) {
		if i := bytes.IndexByte(s, '\n'); i >= 0 {
			shebang, body = s[:i], s[i+1:]
		} else {
			shebang, body = s, nil
		}
	}
	if r, ok := hiddenBreakIn(RyeOS, shebang); ok {
		return nil, false, fmt.Errorf("the #! line holds a line break (U+%04X) that Python ends a line at, and a ryeos signature does not cover the #! line: code after the break would run unsigned; remove it", r)
	}
	if found := Find(src, ext); found.Status == Signed && found.Line.Format == RyeOS && found.Line.Fingerprint == key.Fingerprint64() {
		sum := sha256.Sum256(body)
		if hex.EncodeToString(sum[:]) == found.Line.Hash && VerifySignature(key.Public, found.Line, "", "") {
			return src, true, nil
		}
	}
	line, err := rustSign(key, RyeOS, ext, body, t)
	if err != nil {
		return nil, false, err
	}
	out = make([]byte, 0, len(shebang)+len(line)+len(body)+2)
	if shebang != nil {
		out = append(append(out, shebang...), '\n')
	}
	out = append(append(out, line...), '\n')
	return append(out, body...), false, nil
}

// signR1 is the r1 engine's signer (spec 7.6.2): every line that holds
// "rye:signed:" removed, in any envelope, and the line put on line 1,
// above a #! line (whose bytes it then covers). It has no idempotence.
func signR1(key *Key, ext string, src []byte, t time.Time) ([]byte, error) {
	s := item.StripLines(src, func(line []byte) bool { return bytes.Contains(line, []byte("rye:signed:")) })
	line, err := rustSign(key, R1, ext, s, t)
	if err != nil {
		return nil, err
	}
	return append(append([]byte(line), '\n'), s...), nil
}

// errOtherSigner is a file whose signature line another key made: rye
// sign replaces only a line of the signing key's own.
var errOtherSigner = errors.New("rye replaces only a signature line of your own")

// takeOver prepares src for signing in f (r1 or ryeos) with key: the line
// at the top of the file may be replaced only when it is the signer's own
// (made with key, in any format: a migration, which note tells), and is
// removed from src when RyeOS's signer would not remove it (a rye: line
// under ryeos, a ryeos line under r1), so that the old line never becomes
// signed body (spec 7.6.1). A line of another key, or one that does not
// parse, refuses the file.
func takeOver(key *Key, f Format, kind item.Kind, id item.ID, ext string, src []byte, replace bool) (out []byte, note string, err error) {
	found := Find(src, ext)
	start, end := item.SignatureSlot(src, ext)
	line := trimEOL(src[start:end])
	kindOf, _ := classify(line, ext)
	switch {
	case found.Status == Malformed || found.Status == Duplicate:
		return nil, "", fmt.Errorf("the file carries a signature line that rye cannot use (%s): rye does not sign above or over it; remove that line first if the item is yours", found.Reason)
	case found.Status == Unsigned && found.Reason != "":
		return nil, "", fmt.Errorf("the file carries a signature line where it does not count (%s): rye does not sign above it; remove it first", found.Reason)
	case found.Status == Signed:
		l := found.Line
		own := (l.Fingerprint == key.Fingerprint || l.Fingerprint == key.Fingerprint64()) && VerifySignature(key.Public, l, kind, id)
		switch {
		case !own && replace:
			note = "replaced the " + l.Format.String() + " line of key " + l.Fingerprint + " (--replace-other-signers)"
		case !own:
			return nil, "", fmt.Errorf("the file carries a %s signature by key %s, which is not the signing key %s: %w; if the item is yours to take over, remove that line first", l.Format, l.Fingerprint, key.Fingerprint64(), errOtherSigner)
		case l.Format != f:
			note = "replaced its " + l.Format.String() + " line"
		}
	case kindOf == notSignature:
		return src, "", nil
	}
	// The line at the top (the signer's own, a placeholder or a legacy
	// rye:validated: line) goes when RyeOS's signer would keep it.
	if f == RyeOS && !item.IsRyeOSMarkerLine(line, ext) || f == R1 && !bytes.Contains(line, []byte("rye:signed:")) {
		out = make([]byte, 0, len(src))
		out = append(append(out, src[:start]...), src[end:]...)
		return out, note, nil
	}
	return src, note, nil
}

// bodyMarkers counts the lines below the top of src that RyeOS's signer
// in format f removes as well: signature-looking lines in the body.
func bodyMarkers(f Format, ext string, src []byte) int {
	_, end := item.SignatureSlot(src, ext)
	rest := src[end:]
	n := 0
	for len(rest) > 0 {
		i := bytes.IndexByte(rest, '\n')
		line := rest
		if i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if f == RyeOS && item.IsRyeOSMarkerLine(line, ext) || f == R1 && bytes.Contains(line, []byte("rye:signed:")) {
			n++
		}
	}
	return n
}

// oneRust signs one target in r1 or ryeos (Batch.one): the line at the
// top is taken over (takeOver), the item checked as RyeOS checks it
// before signing (Validate), and the file written with RyeOS's signer's
// bytes. An item already validly signed by the key in the format is left
// alone unless Force.
func (b *Batch) oneRust(t Target, src []byte, staged *atomicfile.Batch) Result {
	r := Result{Target: t, Outcome: OutcomeFailed}
	ext := filepath.Ext(t.File)
	if !b.Force {
		if found := Find(src, ext); found.Status == Signed && found.Line.Format == b.Format && found.Line.Fingerprint == b.Key.Fingerprint64() {
			if hash, err := ContentHash(found, t.Kind, src); err == nil && hash == found.Line.Hash && VerifySignature(b.Key.Public, found.Line, t.Kind, t.ID) {
				r.Outcome = OutcomeUnchanged
				return r
			}
		}
	}
	in, note, err := takeOver(b.Key, b.Format, t.Kind, t.ID, ext, src, t.replace)
	if err != nil {
		r.Err = err
		return r
	}
	if b.Validate != nil {
		if err := b.Validate(t, in); err != nil {
			r.Err = err
			return r
		}
	}
	if !b.contentAllowed(&r, in) {
		return r
	}
	if n := bodyMarkers(b.Format, ext, in); n > 0 {
		note = joinNote(note, fmt.Sprintf("removed %d signature-looking line(s) below the top, as RyeOS's signer does", n))
	}
	if b.DryRun { // no private key: stop before the signer
		r.Note, r.Outcome = note, OutcomeWouldSign
		return r
	}
	var out []byte
	if b.Format == R1 {
		out, err = signR1(b.Key, ext, in, b.Time)
	} else {
		var unchanged bool
		out, unchanged, err = signRyeOS(b.Key, ext, in, b.Time)
		if err == nil && unchanged && b.Force {
			out, err = forceRyeOS(b.Key, ext, in, b.Time)
		}
	}
	if err == nil {
		r.Note = note
	}
	return b.write(r, out, err, staged)
}

// forceRyeOS signs again a file that signRyeOS would leave as it is
// (rye sign --force): its line removed first, so the signer makes a new
// one with the new time.
func forceRyeOS(key *Key, ext string, src []byte, t time.Time) ([]byte, error) {
	start, end := item.SignatureSlot(src, ext)
	in := append(append(make([]byte, 0, len(src)), src[:start]...), src[end:]...)
	out, _, err := signRyeOS(key, ext, in, t)
	return out, err
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// ryeosValidator refuses an item RyeOS would refuse to sign (spec 7.6.1
// step 2, 7.5.1 steps 1 to 3): one that is not UTF-8, does not parse, or
// breaks its kind's metadata rules; the reason is the lint finding.
func ryeosValidator(t Target, src []byte) error {
	d := item.ReadRyeOS(t.Kind, t.ID, filepath.Ext(t.Rel), src)
	if d.Refusal == nil {
		return nil
	}
	e := d.Refusal
	msg := e.Msg
	if e.Field != "" {
		msg = e.Field + ": " + msg
	}
	if e.Pos.IsValid() {
		msg = fmt.Sprintf("line %d:%d: %s", e.Pos.Line, e.Pos.Col, msg)
	}
	if e.Fix != "" {
		msg += " (fix: " + e.Fix + ")"
	}
	return fmt.Errorf("RyeOS would refuse it (%s), not signed: %s", e.Rule, strings.TrimSpace(msg))
}
