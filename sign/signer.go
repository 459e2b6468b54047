package sign

import (
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

// NewSignerKey wraps a signer whose private half rye does not hold (an
// agent, a hardware token). Its public key must be Ed25519, and it must
// make pure Ed25519 signatures (crypto.Hash(0): the message itself, not a
// digest).
func NewSignerKey(s crypto.Signer) (*Key, error) {
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

// ErrDuplicate is returned when asked to sign a file that has two signature
// lines at the top: the signer changes no byte but its own line, so the
// second one must be removed by hand.
var ErrDuplicate = errors.New("two signature lines at the top of the file: remove the second one, then sign again")

// Sign returns src with a signature line for (kind, id) in format f, made
// with key at time t: the line at the signature position is inserted or
// replaced, and no other byte changes (spec 2.1).
func Sign(key *Key, f Format, kind item.Kind, id item.ID, ext string, src []byte, t time.Time) ([]byte, error) {
	found := Find(src, ext)
	if found.Status == Duplicate || (found.End > found.Start && followedBySignature(src, found.End, ext)) {
		return nil, ErrDuplicate
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
	l := &Line{Format: f, Timestamp: t.UTC().Format(TimeLayout), Fingerprint: key.Fingerprint}
	switch f {
	case V2:
		l.Hash = HashV2(content, 0, 0)
	case V1:
		// content has no line at the signature position: nothing to drop.
		h, err := HashV1(kind, content, 0, 0)
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
	l.Signature = EncodeSignature(sig)
	text, err := l.Encode(ext)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(content)+len(text))
	out = append(out, content[:at]...)
	out = append(out, text...)
	return append(out, content[at:]...), nil
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
	found := Find(src, ext)
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
	if found.Line != nil && found.Line.Format == V1 {
		return HashV1(kind, src, found.Start, found.End)
	}
	return HashV2(src, found.Start, found.End), nil
}
