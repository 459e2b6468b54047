package sign

import (
	"bytes"
	"crypto"
	"crypto/ed25519"
	"errors"
	"fmt"
	"time"

	"github.com/ryekit/rye/item"
)

// Key is a signing key: its public half, its fingerprint, and what signs
// with it. The private half may be elsewhere (ssh-agent holds it for a key
// named by its OpenSSH public key), so signing goes through a crypto.Signer,
// and every signature is checked against the public key before it is used.
type Key struct {
	Public      ed25519.PublicKey
	Fingerprint string
	signer      crypto.Signer
}

// NewKey wraps a private key held in memory.
func NewKey(priv ed25519.PrivateKey) *Key {
	pub := priv.Public().(ed25519.PublicKey)
	return &Key{Public: pub, Fingerprint: Fingerprint(pub), signer: priv}
}

// newSignerKey wraps a signer whose private half rye does not hold (an
// agent, a hardware token). Its public key must be Ed25519, and it must
// make pure Ed25519 signatures (crypto.Hash(0): the message itself, not a
// digest).
func newSignerKey(s crypto.Signer) (*Key, error) {
	pub, ok := s.Public().(ed25519.PublicKey)
	if !ok {
		return nil, fmt.Errorf("the key is %T; rye signs with Ed25519 keys only", s.Public())
	}
	return &Key{Public: pub, Fingerprint: Fingerprint(pub), signer: s}, nil
}

// SignMessage returns the Ed25519 signature of msg, after checking that it
// verifies with the key's public half: a signer that answers with anything
// else (another key, a damaged reply, a faulty device) fails here, before
// any file is written.
func (k *Key) SignMessage(msg []byte) ([]byte, error) {
	if k.signer == nil {
		return nil, errors.New("this key has no private half to sign with")
	}
	sig, err := k.signer.Sign(nil, msg, crypto.Hash(0))
	if err != nil {
		return nil, err
	}
	if len(sig) != ed25519.SignatureSize || !ed25519.Verify(k.Public, msg, sig) {
		return nil, fmt.Errorf("the signature made with key %s does not verify against its public key: nothing signed", k.Fingerprint)
	}
	return sig, nil
}

// errDuplicate is returned when asked to sign a file that has two signature
// lines at the top: the signer changes no byte but its own line, so the
// second one must be removed by hand.
var errDuplicate = errors.New("two signature lines at the top of the file: remove the second one, then sign again")

// Sign returns src with a signature line for (kind, id) in format f, made
// with key at time t: the line at the signature position is inserted or
// replaced, and no other byte changes (spec 2.1).
func Sign(key *Key, f Format, kind item.Kind, id item.ID, ext string, src []byte, t time.Time) ([]byte, error) {
	found := Find(src, ext)
	if duplicated(found, src, ext) {
		return nil, errDuplicate
	}
	if err := replaceable(key, kind, id, ext, src, found); err != nil {
		return nil, err
	}
	return signFound(key, f, kind, id, ext, src, found, t)
}

// duplicated reports a file with more than one signature line.
func duplicated(found Found, src []byte, ext string) bool {
	return found.Status == Duplicate || (found.End > found.Start && followedBySignature(src, found.End, ext))
}

// signFound is Sign once src's line is found (found: Find's answer) and
// known to be one rye may replace.
func signFound(key *Key, f Format, kind item.Kind, id item.ID, ext string, src []byte, found Found, t time.Time) ([]byte, error) {
	if err := formatFits(f, ext, src); err != nil {
		return nil, err
	}
	// The content without any line at the signature position.
	content := make([]byte, 0, len(src)+1)
	content = append(content, src[:found.Start]...)
	at := found.Start
	if afterUnterminatedShebang(content, at) {
		// A script that is only "#!..." without a newline: the line can
		// only go after one.
		content = append(content, '\n')
		at++
	}
	content = append(content, src[found.End:]...)
	l := &line{Format: f, Timestamp: t.UTC().Format(TimeLayout), Fingerprint: key.Fingerprint}
	switch f {
	case V2:
		l.Hash = hashV2(content, 0, 0)
	case V1:
		// content has no line at the signature position: nothing to drop.
		h, err := hashV1(kind, content, 0, 0)
		if err != nil {
			return nil, err
		}
		l.Hash = h
	default:
		return nil, fmt.Errorf("unknown signature format %d", f)
	}
	sig, err := key.SignMessage(SignedBytes(l, kind, id))
	if err != nil {
		return nil, err
	}
	l.Signature = encodeSignature(sig)
	text, err := l.Encode(ext)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(content)+len(text))
	out = append(out, content[:at]...)
	out = append(out, text...)
	return append(out, content[at:]...), nil
}

// formatFits refuses a file that format f cannot sign as it is.
func formatFits(f Format, ext string, src []byte) error {
	if f == V1 && bytes.HasPrefix(src, []byte(item.BOM)) {
		return errors.New("a v1 signature line cannot follow a byte-order mark (the Python reference would read no signature): remove the mark, or sign with v2")
	}
	return shebangFits(f, ext, src)
}

// shebangFits refuses a file whose #! line, which a signature of format
// f would leave out of its hash, holds a line break an interpreter
// honours (hiddenBreakIn): what follows it would run unsigned, and rye
// verify calls such a line malformed.
func shebangFits(f Format, ext string, src []byte) error {
	if f == R1 || (f == RyeOS && ext != ".py") {
		return nil // the line goes above the #! line, and covers it
	}
	start, _ := item.SignatureSlot(src, ext)
	if why := hiddenBreak(f, src, start); why != "" {
		line := src[:start]
		if i := bytes.IndexByte(line, '\n'); i >= 0 {
			line = line[:i]
		}
		r, _ := hiddenBreakIn(f, line)
		return fmt.Errorf("the #! line holds a line break (U+%04X) that Python or Node ends a line at, and a %s signature does not cover the #! line: code after the break would run unsigned; remove it, or sign with v2", r, f)
	}
	return nil
}

// replaceable refuses to sign over a line of another format (spec 6.4):
// signing must not put rye's line above a RYE OS signature, which would
// then become signed body, nor silently drop one that someone else made.
// A foreign line is replaced only when it verifies with the signer's own
// key: then it is the user's own signature, in an older format.
func replaceable(key *Key, kind item.Kind, id item.ID, ext string, src []byte, found Found) error {
	start, end := item.SignatureSlot(src, ext)
	line := trimEOL(src[start:end])
	if k, rest := classify(line, ext); k != signatureLike || !foreignMarker(rest) {
		return nil
	}
	l := found.Line
	if found.Status == Signed && l.Format != V1 && l.Format != V2 {
		hash, err := ContentHash(found, kind, src)
		if err == nil && hash == l.Hash && VerifySignature(key.Public, l, kind, id) {
			return nil // the user's own signature, in an older format
		}
		return fmt.Errorf("the file carries a %s signature by key %s, which is not the signing key %s: rye does not sign over another format's line (verify it with rye verify; to take the item over, remove that line first)", l.Format, l.Fingerprint, key.Fingerprint)
	}
	why := found.Reason
	if why == "" {
		why = "it does not parse"
	}
	return fmt.Errorf("the file carries a RYE OS signature line that rye cannot use (%s): rye does not sign above or over it; remove that line first if the item is yours", why)
}

// foreignMarker reports a signature line (after its opener) written in a
// RYE OS format rather than rye's v1 or v2: the ryeos: marker, or a
// rye:signed: line that is neither v2 nor in the v1 grammar with a padded
// signature.
func foreignMarker(rest []byte) bool {
	if bytes.HasPrefix(rest, []byte("ryeos:signed:")) {
		return true
	}
	body := rest[len("rye:signed:"):]
	if bytes.HasPrefix(body, []byte("v")) || isPlaceholderLine(body, "-->") {
		return false
	}
	if l, _, ok := parseV1Family(body); ok {
		return l.Format != V1
	}
	return !isV1Family(body, " -->")
}

func afterUnterminatedShebang(content []byte, at int) bool {
	if at == 0 || content[at-1] == '\n' {
		return false
	}
	return !(at == len(item.BOM) && string(content[:at]) == item.BOM)
}

// SignedBy reports whether src already carries a valid signature in format
// f by key for (kind, id): the hash matches the content and the signature
// verifies. Such a file is left alone by the signer (idempotent signing).
func SignedBy(key *Key, f Format, kind item.Kind, id item.ID, ext string, src []byte) bool {
	return signedBy(key, f, kind, id, src, Find(src, ext))
}

// signedBy is SignedBy once src's line is found.
func signedBy(key *Key, f Format, kind item.Kind, id item.ID, src []byte, found Found) bool {
	if found.Status != Signed || found.Line.Format != f || found.Line.Fingerprint != key.Fingerprint {
		return false
	}
	hash, err := ContentHash(found, kind, src)
	if err != nil || hash != found.Line.Hash {
		return false
	}
	return VerifySignature(key.Public, found.Line, kind, id)
}

// ContentHash recomputes the hash that the found line's format covers;
// found is what Find returned for src.
func ContentHash(found Found, kind item.Kind, src []byte) (string, error) {
	if found.Line != nil {
		switch f := found.Line.Format; {
		case f == V1 || f == V1U:
			return hashV1(kind, src, found.Start, found.End)
		case f.rustFamily():
			return hashAfterLine(src, found.End), nil
		}
	}
	return hashV2(src, found.Start, found.End), nil
}
