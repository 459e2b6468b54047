package sign

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
)

// Fingerprint64 is the RYE OS Rust engine's fingerprint of a key (r1,
// ryeos; spec 6.3.1): the lowercase hex SHA-256 of the raw 32-byte key. One
// key has both this and Fingerprint; a trust store indexes it under both.
func Fingerprint64(pub ed25519.PublicKey) string {
	sum := sha256.Sum256(pub)
	return hex.EncodeToString(sum[:])
}

// ParseRawPublicKey reads an Ed25519 public key in any form RYE OS wrote
// (spec 6.3.3): "ed25519:" followed by the standard base64 of the 32 raw
// bytes, the bare base64, or a PUBLIC KEY PEM block.
func ParseRawPublicKey(s string) (ed25519.PublicKey, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "-----BEGIN") {
		return ParsePublicKeyPEM([]byte(s))
	}
	s = strings.TrimPrefix(s, "ed25519:")
	raw, err := base64.StdEncoding.Strict().DecodeString(s)
	if err != nil || len(raw) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("not an Ed25519 public key: expected ed25519:<base64 of 32 bytes>, the bare base64, or a PUBLIC KEY PEM block")
	}
	return ed25519.PublicKey(raw), nil
}
