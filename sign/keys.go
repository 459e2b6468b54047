package sign

import (
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"

	"github.com/sigstore/sigstore/pkg/cryptoutils"

	"github.com/ryekit/rye/item"
)

// PEM block types of the key files rye reads and writes (spec 2.4).
const (
	PublicKeyPEM           = "PUBLIC KEY"
	PrivateKeyPEM          = "PRIVATE KEY"                    // PKCS#8, the reference's format
	EncryptedPrivateKeyPEM = "ENCRYPTED SIGSTORE PRIVATE KEY" // sigstore cryptoutils (scrypt + secretbox)
)

// CanonicalPublicPEM is the public key as the reference writes it: the
// PEM text whose hash is the fingerprint.
func CanonicalPublicPEM(pub ed25519.PublicKey) (string, error) {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return "", err
	}
	return "-----BEGIN PUBLIC KEY-----\n" + base64.StdEncoding.EncodeToString(der) + "\n-----END PUBLIC KEY-----\n", nil
}

// Fingerprint is the first 16 lowercase hex characters of SHA-256 over the
// canonical public-key PEM (spec 2.4). It is always computed from the key,
// never read from a file name or a field.
func Fingerprint(pub ed25519.PublicKey) string {
	p, err := CanonicalPublicPEM(pub)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256([]byte(p))
	return hex.EncodeToString(sum[:])[:16]
}

// ParsePublicKeyPEM reads an Ed25519 public key from PEM text (one PUBLIC
// KEY block, surrounding blanks ignored).
func ParsePublicKeyPEM(data []byte) (ed25519.PublicKey, error) {
	block, rest := pem.Decode([]byte(strings.TrimSpace(string(data))))
	if block == nil {
		return nil, errors.New("no PEM block found")
	}
	if block.Type != PublicKeyPEM {
		return nil, fmt.Errorf("PEM block is %q, expected %q", block.Type, PublicKeyPEM)
	}
	if len(strings.TrimSpace(string(rest))) != 0 {
		return nil, errors.New("text after the PEM block")
	}
	key, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		return nil, err
	}
	pub, ok := key.(ed25519.PublicKey)
	if !ok {
		return nil, fmt.Errorf("the key is %T; rye uses Ed25519 keys only", key)
	}
	return pub, nil
}

// MarshalPrivateKey writes a private key as PEM: PKCS#8, or encrypted with
// passphrase (sigstore's format) when passphrase is not nil.
func MarshalPrivateKey(priv ed25519.PrivateKey, passphrase []byte) ([]byte, error) {
	if passphrase == nil {
		der, err := x509.MarshalPKCS8PrivateKey(priv)
		if err != nil {
			return nil, err
		}
		return pem.EncodeToMemory(&pem.Block{Type: PrivateKeyPEM, Bytes: der}), nil
	}
	der, err := cryptoutils.MarshalPrivateKeyToEncryptedDER(priv, cryptoutils.StaticPasswordFunc(passphrase))
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: EncryptedPrivateKeyPEM, Bytes: der}), nil
}

// ErrPassphraseNeeded is returned when a key is encrypted and no passphrase
// source is available.
var ErrPassphraseNeeded = errors.New("the key is encrypted: set RYE_KEY_PASSWORD or run rye on a terminal to be asked for the passphrase")

// ParsePrivateKey reads a private key file's contents. passphrase is called
// only for an encrypted key; it may return ErrPassphraseNeeded.
func ParsePrivateKey(data []byte, passphrase func() ([]byte, error)) (ed25519.PrivateKey, error) {
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, errors.New("not a PEM private key")
	}
	var der []byte
	switch block.Type {
	case PrivateKeyPEM:
		der = block.Bytes
	case EncryptedPrivateKeyPEM:
		pass, err := passphrase()
		if err != nil {
			return nil, err
		}
		key, err := cryptoutils.UnmarshalPEMToPrivateKey(data, cryptoutils.StaticPasswordFunc(pass))
		if err != nil {
			return nil, errors.New("wrong passphrase, or the key file is damaged")
		}
		return ed25519Key(key)
	default:
		return nil, fmt.Errorf("PEM block is %q; rye reads %q (PKCS#8) and %q", block.Type, PrivateKeyPEM, EncryptedPrivateKeyPEM)
	}
	key, err := x509.ParsePKCS8PrivateKey(der)
	if err != nil {
		return nil, fmt.Errorf("not a PKCS#8 private key: %v", err)
	}
	return ed25519Key(key)
}

func ed25519Key(key any) (ed25519.PrivateKey, error) {
	priv, ok := key.(ed25519.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("the key is %T; rye signs with Ed25519 keys only", key)
	}
	return priv, nil
}

// MessageV2 is what a v2 signature signs (spec 2.3): ASCII lines joined by
// '\n', no trailing newline.
func MessageV2(kind item.Kind, id item.ID, timestamp, fingerprint, hash string) string {
	return "rye-signature-v2\n" + string(kind) + "\n" + string(id) + "\n" + timestamp + "\n" + fingerprint + "\n" + hash
}

// SignedBytes is what the signature of a line covers: the v2 message, or
// for every other format the 64 ASCII characters of the hash.
func SignedBytes(l *Line, kind item.Kind, id item.ID) []byte {
	if l.Format == V2 {
		return []byte(MessageV2(kind, id, l.Timestamp, l.Fingerprint, l.Hash))
	}
	return []byte(l.Hash)
}

// EncodeSignature is base64url with padding (88 characters for Ed25519).
func EncodeSignature(sig []byte) string { return base64.URLEncoding.EncodeToString(sig) }

// signatureEncoding is how a format writes its signature: base64url padded
// (v1, v2), unpadded (v1u), standard base64 padded (r1, ryeos). Decoding is
// strict: non-zero unused bits are an error, not another signature.
func signatureEncoding(f Format) *base64.Encoding {
	switch f {
	case V1U:
		return base64.RawURLEncoding.Strict()
	case R1, RyeOS:
		return base64.StdEncoding.Strict()
	}
	return base64.URLEncoding.Strict()
}

// DecodeSignature returns the 64 signature bytes of a line, or an error
// when they do not decode to exactly that.
func DecodeSignature(l *Line) ([]byte, error) {
	sig, err := signatureEncoding(l.Format).DecodeString(l.Signature)
	if err != nil || len(sig) != ed25519.SignatureSize {
		return nil, fmt.Errorf("the signature does not decode to %d bytes", ed25519.SignatureSize)
	}
	return sig, nil
}

// VerifySignature checks a line's signature with a public key, over the
// message rebuilt from the item's actual kind and id (for v2).
func VerifySignature(pub ed25519.PublicKey, l *Line, kind item.Kind, id item.ID) bool {
	sig, err := DecodeSignature(l)
	if err != nil {
		return false
	}
	return ed25519.Verify(pub, SignedBytes(l, kind, id), sig)
}
