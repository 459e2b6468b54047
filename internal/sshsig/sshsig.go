// Package sshsig reads, writes and checks OpenSSH's detached file
// signatures (the SSHSIG format of OpenSSH's PROTOCOL.sshsig: what
// `ssh-keygen -Y sign` writes and `ssh-keygen -Y verify` checks), for
// Ed25519 keys only.
//
// rye signs the checksums file of its own releases this way, so that two
// independent verifiers can check a download: `ssh-keygen -Y verify`, which
// every CI runner has and which trusts nothing downloaded, and `rye version
// verify`, so that an installed rye can check the next one. The format is
// OpenSSH's, not rye's item signature line, because the signed file is not
// an item and because ssh-keygen must be able to check it.
//
// A signature binds a namespace (rye's releases use "rye-release"): a
// signature made for one purpose (git commits use "git") never verifies
// for another. Parsing fails closed: anything that is not exactly a
// version 1 SSHSIG blob of an Ed25519 key, with an empty reserved field, a
// known hash and no bytes left over, is an error.
package sshsig

import (
	"bytes"
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"
	"strings"
)

const (
	magic      = "SSHSIG"
	sigVersion = 1
	armorBegin = "-----BEGIN SSH SIGNATURE-----"
	armorEnd   = "-----END SSH SIGNATURE-----"
	keyType    = "ssh-ed25519"

	// maxArmored bounds the armored signature Parse reads: an Ed25519
	// signature is about 300 bytes armored, so anything near this is not
	// one.
	maxArmored = 16 << 10
)

// Hash algorithms a signature may use; ssh-keygen signs with sha512.
const (
	shA256 = "sha256"
	shA512 = "sha512"
)

// signature is a parsed SSHSIG signature.
type signature struct {
	PublicKey     ed25519.PublicKey // the key that made it, as the signature states (never trusted by itself)
	Namespace     string
	HashAlgorithm string // shA256 or shA512
	Sig           []byte // the Ed25519 signature, 64 bytes
}

// Parse reads an armored signature (a .sig file ssh-keygen -Y sign
// writes). Blank space around the armor and at the ends of its lines is
// ignored; anything else outside it is an error.
func Parse(armored []byte) (*signature, error) {
	if len(armored) > maxArmored {
		return nil, fmt.Errorf("%d bytes: larger than any SSH signature (%d bytes at most)", len(armored), maxArmored)
	}
	lines := strings.Split(strings.TrimSpace(string(armored)), "\n")
	for i := range lines {
		lines[i] = strings.TrimSpace(lines[i])
	}
	if lines[0] != armorBegin {
		return nil, fmt.Errorf("not an SSH signature: it must start with a line %s (what ssh-keygen -Y sign writes)", armorBegin)
	}
	if len(lines) < 3 || lines[len(lines)-1] != armorEnd {
		return nil, fmt.Errorf("the SSH signature does not end with a line %s", armorEnd)
	}
	body := strings.Join(lines[1:len(lines)-1], "")
	blob, err := base64.StdEncoding.Strict().DecodeString(body)
	if err != nil {
		return nil, fmt.Errorf("the SSH signature is not valid base64: %v", err)
	}
	return parseBlob(blob)
}

// parseBlob reads the binary SSHSIG blob inside the armor.
func parseBlob(blob []byte) (*signature, error) {
	if !bytes.HasPrefix(blob, []byte(magic)) {
		return nil, errors.New("not an SSHSIG blob (no SSHSIG preamble)")
	}
	r := &reader{b: blob[len(magic):]}
	v, err := r.uint32()
	if err != nil {
		return nil, err
	}
	if v != sigVersion {
		return nil, fmt.Errorf("SSHSIG version %d: only version %d is known", v, sigVersion)
	}
	pubBlob, err := r.str("public key")
	if err != nil {
		return nil, err
	}
	ns, err := r.str("namespace")
	if err != nil {
		return nil, err
	}
	reserved, err := r.str("reserved field")
	if err != nil {
		return nil, err
	}
	alg, err := r.str("hash algorithm")
	if err != nil {
		return nil, err
	}
	sigBlob, err := r.str("signature")
	if err != nil {
		return nil, err
	}
	if len(r.b) != 0 {
		return nil, fmt.Errorf("%d bytes after the signature", len(r.b))
	}
	if len(ns) == 0 {
		return nil, errors.New("the signature has an empty namespace")
	}
	if len(reserved) != 0 {
		return nil, errors.New("the signature's reserved field is not empty")
	}
	if a := string(alg); a != shA256 && a != shA512 {
		return nil, fmt.Errorf("hash algorithm %.40q: only %s and %s are defined", a, shA256, shA512)
	}
	pub, err := parseEd25519(pubBlob, "public key", ed25519.PublicKeySize)
	if err != nil {
		return nil, err
	}
	sig, err := parseEd25519(sigBlob, "signature", ed25519.SignatureSize)
	if err != nil {
		return nil, err
	}
	return &signature{PublicKey: pub, Namespace: string(ns), HashAlgorithm: string(alg), Sig: sig}, nil
}

// parseEd25519 reads an SSH public key or signature blob: the string
// "ssh-ed25519", then the key or signature bytes, nothing after.
func parseEd25519(blob []byte, what string, size int) ([]byte, error) {
	r := &reader{b: blob}
	t, err := r.str(what + " type")
	if err != nil {
		return nil, err
	}
	if string(t) != keyType {
		return nil, fmt.Errorf("the %s is %.40q: only %s is accepted", what, t, keyType)
	}
	v, err := r.str(what)
	if err != nil {
		return nil, err
	}
	if len(v) != size || len(r.b) != 0 {
		return nil, fmt.Errorf("the %s %s is %d bytes, not %d", keyType, what, len(v)+len(r.b), size)
	}
	return bytes.Clone(v), nil
}

// Marshal writes the signature armored, as ssh-keygen -Y sign does (lines
// of 70 characters, a final newline).
func (s *signature) Marshal() []byte {
	b64 := base64.StdEncoding.EncodeToString(s.Blob())
	var out strings.Builder
	out.WriteString(armorBegin + "\n")
	for len(b64) > 70 {
		out.WriteString(b64[:70] + "\n")
		b64 = b64[70:]
	}
	out.WriteString(b64 + "\n" + armorEnd + "\n")
	return []byte(out.String())
}

// Blob is the binary SSHSIG blob.
func (s *signature) Blob() []byte {
	var b []byte
	b = append(b, magic...)
	b = binary.BigEndian.AppendUint32(b, sigVersion)
	b = appendString(b, ed25519Blob(s.PublicKey))
	b = appendString(b, []byte(s.Namespace))
	b = appendString(b, nil)
	b = appendString(b, []byte(s.HashAlgorithm))
	b = appendString(b, ed25519Blob(s.Sig))
	return b
}

func ed25519Blob(v []byte) []byte {
	return appendString(appendString(nil, []byte(keyType)), v)
}

// Sign signs message for namespace with signer, an Ed25519 key (a key
// file's, or ssh-agent's), hashing it with SHA-512 as ssh-keygen does.
func Sign(signer crypto.Signer, namespace string, message io.Reader) (*signature, error) {
	pub, ok := signer.Public().(ed25519.PublicKey)
	if !ok {
		return nil, fmt.Errorf("the key is a %T, not an Ed25519 key", signer.Public())
	}
	if namespace == "" {
		return nil, errors.New("an SSH signature needs a namespace")
	}
	data, err := signedData(namespace, shA512, message)
	if err != nil {
		return nil, err
	}
	sig, err := signer.Sign(rand.Reader, data, crypto.Hash(0))
	if err != nil {
		return nil, err
	}
	if !ed25519.Verify(pub, data, sig) {
		return nil, errors.New("the key made a signature that does not verify against its own public key")
	}
	return &signature{PublicKey: pub, Namespace: namespace, HashAlgorithm: shA512, Sig: sig}, nil
}

// ErrBadSignature is the error of a signature that does not verify.
var ErrBadSignature = errors.New("the signature does not verify")

// Verify checks that s is a signature by key, for namespace, over
// message. The key is the caller's (a pinned key), never the one the
// signature names: a signature by another key is an error that says so.
func (s *signature) Verify(key ed25519.PublicKey, namespace string, message io.Reader) error {
	if s.Namespace != namespace {
		return fmt.Errorf("the signature is for namespace %q, not %q: it was made for another purpose", s.Namespace, namespace)
	}
	if !bytes.Equal(s.PublicKey, key) {
		return fmt.Errorf("%w: it was made by another key (%s)", ErrBadSignature, Fingerprint(s.PublicKey))
	}
	data, err := signedData(namespace, s.HashAlgorithm, message)
	if err != nil {
		return err
	}
	if !ed25519.Verify(key, data, s.Sig) {
		return fmt.Errorf("%w: the signed file or the signature was changed", ErrBadSignature)
	}
	return nil
}

// Fingerprint is the key's OpenSSH fingerprint (shA256:<base64>), as
// ssh-keygen -l prints it.
func Fingerprint(key ed25519.PublicKey) string {
	sum := sha256.Sum256(ed25519Blob(key))
	return "SHA256:" + base64.RawStdEncoding.EncodeToString(sum[:])
}

// signedData is what the Ed25519 signature covers (PROTOCOL.sshsig): the
// preamble, the namespace, the empty reserved field, the hash algorithm
// and the message's hash.
func signedData(namespace, alg string, message io.Reader) ([]byte, error) {
	var h hash.Hash
	switch alg {
	case shA256:
		h = sha256.New()
	case shA512:
		h = sha512.New()
	default:
		return nil, fmt.Errorf("hash algorithm %q: only %s and %s are defined", alg, shA256, shA512)
	}
	if _, err := io.Copy(h, message); err != nil {
		return nil, err
	}
	var b []byte
	b = append(b, magic...)
	b = appendString(b, []byte(namespace))
	b = appendString(b, nil)
	b = appendString(b, []byte(alg))
	b = appendString(b, h.Sum(nil))
	return b, nil
}

func appendString(b, s []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...)
}

// reader reads SSH wire-format values (RFC 4251 section 5).
type reader struct{ b []byte }

func (r *reader) uint32() (uint32, error) {
	if len(r.b) < 4 {
		return 0, errors.New("the SSHSIG blob is truncated")
	}
	v := binary.BigEndian.Uint32(r.b)
	r.b = r.b[4:]
	return v, nil
}

func (r *reader) str(what string) ([]byte, error) {
	n, err := r.uint32()
	if err != nil {
		return nil, fmt.Errorf("the SSHSIG blob is truncated before its %s", what)
	}
	if uint64(n) > uint64(len(r.b)) {
		return nil, fmt.Errorf("the SSHSIG blob is truncated in its %s", what)
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v, nil
}
