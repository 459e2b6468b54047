package sign

import (
	"bytes"
	"crypto"
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
	"golang.org/x/crypto/ssh"

	"github.com/ryekit/rye/item"
)

// PEM block types of the key files rye reads and writes (spec 2.4).
const (
	publicKeyPEM           = "PUBLIC KEY"
	privateKeyPEM          = "PRIVATE KEY"                    // PKCS#8, the reference's format
	encryptedPrivateKeyPEM = "ENCRYPTED SIGSTORE PRIVATE KEY" // sigstore cryptoutils (scrypt + secretbox)
	encryptedPKCS8PEM      = "ENCRYPTED PRIVATE KEY"          // PKCS#8 encrypted with PBES2 (openssl, and others)
	openSSHPrivateKeyPEM   = "OPENSSH PRIVATE KEY"            // ssh-keygen's format
)

// acceptedForms names every key file rye signs with, for error messages.
const acceptedForms = `rye signs with a PKCS#8 private key ("PRIVATE KEY"), an encrypted PKCS#8 key ("ENCRYPTED PRIVATE KEY"), ` +
	`sigstore's encrypted key ("ENCRYPTED SIGSTORE PRIVATE KEY", what rye keys generate writes), ` +
	`an OpenSSH ed25519 private key ("OPENSSH PRIVATE KEY", with or without a passphrase), ` +
	`or an OpenSSH public key file (ssh-ed25519 AAAA..., a .pub file) whose private half ssh-agent holds`

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
	if block.Type != publicKeyPEM {
		return nil, fmt.Errorf("PEM block is %q, expected %q", block.Type, publicKeyPEM)
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

// publicForms names the public key forms rye reads, for error messages.
const publicForms = `rye reads a PEM public key ("-----BEGIN PUBLIC KEY-----") or an OpenSSH public key line ("ssh-ed25519 AAAA... [comment]", as in a .pub file)`

// parsePublicKey reads an Ed25519 public key in either form a user has one:
// a PEM PUBLIC KEY block, or one OpenSSH public key line (a .pub file:
// "ssh-ed25519 <base64> [comment]"), whose comment it returns. Blank lines
// and # comment lines around an OpenSSH line are ignored; a second key is
// an error. The fingerprint of the result is rye's (Fingerprint), whatever
// the form.
func parsePublicKey(data []byte) (pub ed25519.PublicKey, comment string, err error) {
	if bytes.HasPrefix(bytes.TrimSpace(data), []byte("-----BEGIN ")) {
		pub, err := ParsePublicKeyPEM(data)
		return pub, "", err
	}
	var line string
	for n, l := range strings.Split(string(data), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		if line != "" {
			return nil, "", fmt.Errorf("line %d: a second key; give one key at a time", n+1)
		}
		line = l
	}
	if line == "" {
		return nil, "", errors.New("no key found: " + publicForms)
	}
	return ParseOpenSSHPublicKey(line)
}

// ParseOpenSSHPublicKey reads one OpenSSH public key line: "ssh-ed25519
// <base64> [comment]". Other key types are refused by name: rye signs and
// verifies plain Ed25519 only (an sk-ssh-ed25519 security key signs a
// different message, with a counter and flags).
func ParseOpenSSHPublicKey(line string) (ed25519.PublicKey, string, error) {
	fields := strings.Fields(line)
	if len(fields) < 2 {
		return nil, "", errors.New("not a public key: " + publicForms)
	}
	if err := checkSSHKeyType(fields[0]); err != nil {
		return nil, "", err
	}
	blob, err := base64.StdEncoding.DecodeString(fields[1])
	if err != nil {
		return nil, "", fmt.Errorf("the key after %q is not base64: %v", fields[0], err)
	}
	key, err := ssh.ParsePublicKey(blob)
	if err != nil {
		return nil, "", fmt.Errorf("not a valid %s key: %v", fields[0], err)
	}
	if key.Type() != fields[0] {
		return nil, "", fmt.Errorf("the line says %s but holds a %s key", fields[0], key.Type())
	}
	pub, err := sshEd25519(key)
	if err != nil {
		return nil, "", err
	}
	return pub, strings.Join(fields[2:], " "), nil
}

// checkSSHKeyType accepts ssh-ed25519 and names what is wrong with any
// other OpenSSH key type.
func checkSSHKeyType(t string) error {
	switch {
	case t == ssh.KeyAlgoED25519:
		return nil
	case strings.HasPrefix(t, "sk-"):
		return fmt.Errorf("%s is a security-key (FIDO) key, which signs a different message than rye's: use a plain ssh-ed25519 key (ssh-keygen -t ed25519)", t)
	case strings.Contains(t, "-cert-v01@openssh.com"):
		return fmt.Errorf("%s is an OpenSSH certificate: give rye the plain ssh-ed25519 key", t)
	case t == ssh.KeyAlgoRSA || t == "ssh-dss" || strings.HasPrefix(t, "ecdsa-sha2-"):
		return fmt.Errorf("the key is an OpenSSH %s key; rye uses Ed25519 keys only (ssh-keygen -t ed25519 makes one)", t)
	}
	return fmt.Errorf("%.40q is not an OpenSSH key type: %s", t, publicForms)
}

// sshEd25519 turns a parsed OpenSSH public key into an Ed25519 key.
func sshEd25519(key ssh.PublicKey) (ed25519.PublicKey, error) {
	if key.Type() != ssh.KeyAlgoED25519 {
		return nil, checkSSHKeyType(key.Type())
	}
	ck, ok := key.(ssh.CryptoPublicKey)
	if !ok {
		return nil, fmt.Errorf("cannot read the %s key", key.Type())
	}
	pub, ok := ck.CryptoPublicKey().(ed25519.PublicKey)
	if !ok || len(pub) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("cannot read the %s key", key.Type())
	}
	return pub, nil
}

// OpenSSHPublicKey is the key as an OpenSSH public key line, without a
// comment or newline: what a .pub file, authorized_keys, allowed_signers
// and git's user.signingKey hold.
func OpenSSHPublicKey(pub ed25519.PublicKey) string {
	key, err := ssh.NewPublicKey(pub)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(string(ssh.MarshalAuthorizedKey(key)), "\n")
}

// marshalPrivateKey writes a private key as PEM: PKCS#8, or encrypted with
// passphrase (sigstore's format) when passphrase is not nil.
func marshalPrivateKey(priv ed25519.PrivateKey, passphrase []byte) ([]byte, error) {
	if passphrase == nil {
		der, err := x509.MarshalPKCS8PrivateKey(priv)
		if err != nil {
			return nil, err
		}
		return pem.EncodeToMemory(&pem.Block{Type: privateKeyPEM, Bytes: der}), nil
	}
	der, err := cryptoutils.MarshalPrivateKeyToEncryptedDER(priv, cryptoutils.StaticPasswordFunc(passphrase))
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: encryptedPrivateKeyPEM, Bytes: der}), nil
}

// marshalOpenSSHPrivateKey writes a private key in OpenSSH's format, the
// one ssh-keygen writes and ssh-add and git read: unencrypted, or with
// passphrase (bcrypt KDF, aes256-ctr) when passphrase is not nil. comment
// is the key's label in ssh-add -l.
func marshalOpenSSHPrivateKey(priv ed25519.PrivateKey, comment string, passphrase []byte) ([]byte, error) {
	var block *pem.Block
	var err error
	if passphrase == nil {
		block, err = ssh.MarshalPrivateKey(priv, comment)
	} else {
		block, err = ssh.MarshalPrivateKeyWithPassphrase(priv, comment, passphrase)
	}
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(block), nil
}

// ErrPassphraseNeeded is returned when a key is encrypted and no passphrase
// source is available.
var ErrPassphraseNeeded = errors.New("the key is encrypted and there is no terminal to ask for its passphrase on: set RYE_KEY_PASSWORD (in CI), or run rye from a terminal")

// errWrongPassphrase is returned when an encrypted key does not open with
// the passphrase given. The formats cannot tell a wrong passphrase from a
// damaged file.
var errWrongPassphrase = errors.New("wrong passphrase, or the key file is damaged")

// parsePrivateKey reads a private key file's contents: PKCS#8, encrypted
// PKCS#8, sigstore's encrypted PEM or an OpenSSH private key. passphrase is
// called only for an encrypted key; it may return ErrPassphraseNeeded. A
// passphrase that does not open the key gives errWrongPassphrase; a nil
// passphrase gives ErrPassphraseNeeded.
func parsePrivateKey(data []byte, passphrase func() ([]byte, error)) (ed25519.PrivateKey, error) {
	if passphrase == nil {
		passphrase = func() ([]byte, error) { return nil, ErrPassphraseNeeded }
	}
	block, _ := pem.Decode(data)
	if block == nil {
		if IsOpenSSHPublicKey(data) {
			return nil, errors.New("this is an OpenSSH public key, not a private key: rye signs with it only through ssh-agent")
		}
		return nil, errors.New("not a key file rye reads: " + acceptedForms)
	}
	switch block.Type {
	case privateKeyPEM:
		key, err := x509.ParsePKCS8PrivateKey(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("not a PKCS#8 private key: %v", err)
		}
		return ed25519Key(key)
	case encryptedPrivateKeyPEM, encryptedPKCS8PEM:
		pass, err := passphrase()
		if err != nil {
			return nil, err
		}
		key, err := decryptPEM(data, pass)
		if err != nil {
			return nil, err
		}
		return ed25519Key(key)
	case openSSHPrivateKeyPEM:
		return parseOpenSSHPrivateKey(data, passphrase)
	case publicKeyPEM:
		return nil, errors.New(`this is a PEM public key ("PUBLIC KEY"): signing needs the private key`)
	}
	return nil, fmt.Errorf("PEM block is %q; %s", block.Type, acceptedForms)
}

// decryptPEM opens an encrypted PEM key (sigstore's or PKCS#8) with
// sigstore's cryptoutils. A damaged PKCS#8 file can make the library it
// relies on panic (a ciphertext that is not whole blocks), so a panic is
// turned into an error here: bad input must never crash rye.
func decryptPEM(data, pass []byte) (key any, err error) {
	if len(pass) == 0 {
		// The PKCS#8 reader takes an empty passphrase for "not encrypted".
		return nil, errWrongPassphrase
	}
	defer func() {
		if recover() != nil {
			key, err = nil, errors.New("the encrypted key is damaged")
		}
	}()
	key, err = cryptoutils.UnmarshalPEMToPrivateKey(data, cryptoutils.StaticPasswordFunc(pass))
	if err != nil {
		msg := err.Error()
		if strings.Contains(msg, "unsupported") || strings.Contains(msg, "only PBES2") || strings.Contains(msg, "only PKCS #5") || strings.Contains(msg, "unknown") {
			return nil, fmt.Errorf("the key is encrypted in a way rye cannot read (%v): re-encrypt it with PBES2 (openssl pkcs8 -topk8 -v2 aes-256-cbc)", err)
		}
		return nil, errWrongPassphrase
	}
	return key, nil
}

// parseOpenSSHPrivateKey reads ssh-keygen's format. The public half is
// stored in clear, so a key of another type is refused before a passphrase
// is asked for.
func parseOpenSSHPrivateKey(data []byte, passphrase func() ([]byte, error)) (ed25519.PrivateKey, error) {
	raw, err := ssh.ParseRawPrivateKey(data)
	var missing *ssh.PassphraseMissingError
	var clear ed25519.PublicKey // an encrypted file's public half, stored in clear
	if errors.As(err, &missing) {
		if missing.PublicKey != nil {
			if err := checkSSHKeyType(missing.PublicKey.Type()); err != nil {
				return nil, err
			}
			if clear, err = sshEd25519(missing.PublicKey); err != nil {
				return nil, err
			}
		}
		pass, perr := passphrase()
		if perr != nil {
			return nil, perr
		}
		if len(pass) == 0 {
			return nil, errWrongPassphrase
		}
		raw, err = ssh.ParseRawPrivateKeyWithPassphrase(data, pass)
		if errors.Is(err, x509.IncorrectPasswordError) {
			return nil, errWrongPassphrase
		}
	}
	if err != nil {
		return nil, fmt.Errorf("not an OpenSSH private key rye can read: %s", strings.TrimPrefix(err.Error(), "ssh: "))
	}
	var priv ed25519.PrivateKey
	switch k := raw.(type) {
	case *ed25519.PrivateKey:
		priv = *k
	case ed25519.PrivateKey:
		priv = k
	}
	if priv != nil {
		priv, err := wholeKey(priv)
		// The clear half is what rye trust self and rye keys show read
		// without the passphrase: a file whose halves disagree would be
		// trusted as one key and sign with the other.
		if err == nil && clear != nil && !clear.Equal(priv.Public()) {
			return nil, errors.New("the key file is damaged or was edited: the public key it stores in clear is not its private key's (rye trust self and rye keys show read the first, signing uses the second); make a new key (ssh-keygen -t ed25519) or restore the file")
		}
		return priv, err
	}
	if pk, ok := raw.(interface{ Public() crypto.PublicKey }); ok {
		if sk, err := ssh.NewPublicKey(pk.Public()); err == nil {
			return nil, checkSSHKeyType(sk.Type())
		}
	}
	return ed25519Key(raw)
}

// IsOpenSSHPublicKey reports whether data starts like an OpenSSH public key
// line (a .pub file): a key type, a space, base64.
func IsOpenSSHPublicKey(data []byte) bool {
	t, rest, ok := strings.Cut(strings.TrimSpace(string(data)), " ")
	return ok && IsOpenSSHKeyType(t) && strings.HasPrefix(strings.TrimSpace(rest), "AAAA")
}

// IsOpenSSHKeyType reports whether t looks like the name of an OpenSSH key
// type (ssh-ed25519, ssh-rsa, ecdsa-sha2-..., sk-..., certificates), for
// telling a key line from other text; checkSSHKeyType says which rye takes.
func IsOpenSSHKeyType(t string) bool {
	return strings.HasPrefix(t, "ssh-") || strings.HasPrefix(t, "ecdsa-sha2-") || strings.HasPrefix(t, "sk-")
}

func ed25519Key(key any) (ed25519.PrivateKey, error) {
	priv, ok := key.(ed25519.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("the key is %T; rye signs with Ed25519 keys only", key)
	}
	return wholeKey(priv)
}

// wholeKey refuses a key whose stored public half is not the one its seed
// makes. OpenSSH's format stores both halves and the ssh reader takes them
// as written, so a damaged or crafted file would give signatures that no
// trusted key verifies, under a fingerprint that is not the signer's.
func wholeKey(priv ed25519.PrivateKey) (ed25519.PrivateKey, error) {
	if len(priv) != ed25519.PrivateKeySize {
		return nil, fmt.Errorf("the Ed25519 private key is %d bytes, not %d", len(priv), ed25519.PrivateKeySize)
	}
	if !ed25519.NewKeyFromSeed(priv.Seed()).Equal(priv) {
		return nil, errors.New("the key file is damaged: its public half is not the one its private half makes (make a new key or restore the file)")
	}
	return priv, nil
}

// messageV2 is what a v2 signature signs (spec 2.3): ASCII lines joined by
// '\n', no trailing newline.
func messageV2(kind item.Kind, id item.ID, timestamp, fingerprint, hash string) string {
	return "rye-signature-v2\n" + string(kind) + "\n" + string(id) + "\n" + timestamp + "\n" + fingerprint + "\n" + hash
}

// SignedBytes is what the signature of a line covers: the v2 message, or
// for every other format the 64 ASCII characters of the hash.
func SignedBytes(l *line, kind item.Kind, id item.ID) []byte {
	if l.Format == V2 {
		return []byte(messageV2(kind, id, l.Timestamp, l.Fingerprint, l.Hash))
	}
	return []byte(l.Hash)
}

// encodeSignature is base64url with padding (88 characters for Ed25519).
func encodeSignature(sig []byte) string { return base64.URLEncoding.EncodeToString(sig) }

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

// decodeSignature returns the 64 signature bytes of a line, or an error
// when they do not decode to exactly that.
func decodeSignature(l *line) ([]byte, error) {
	sig, err := signatureEncoding(l.Format).DecodeString(l.Signature)
	if err != nil || len(sig) != ed25519.SignatureSize {
		return nil, fmt.Errorf("the signature does not decode to %d bytes", ed25519.SignatureSize)
	}
	return sig, nil
}

// CopyKey identifies what a line in a format that does not bind the item's
// location (Format.Legacy: v1, v1u, r1, ryeos) signs, and with which
// signature: 16 bytes of a hash of the content hash and the decoded
// signature. The formats write one Ed25519 signature of one hash in
// different base64 forms (padded or not, URL-safe or standard) and the
// key's fingerprint in two lengths, so a line is compared by what it
// decodes to, never as text: two files with one key carry one signed
// content, a copy under another name. "" for v2, which binds the item's
// kind and id, and for a signature that does not decode.
func CopyKey(l *line) string {
	if l == nil || !l.Format.Legacy() {
		return ""
	}
	sig, err := decodeSignature(l)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(append([]byte(l.Hash+":"), sig...))
	return string(sum[:16])
}

// VerifySignature checks a line's signature with a public key, over the
// message rebuilt from the item's actual kind and id (for v2).
func VerifySignature(pub ed25519.PublicKey, l *line, kind item.Kind, id item.ID) bool {
	sig, err := decodeSignature(l)
	if err != nil {
		return false
	}
	return ed25519.Verify(pub, SignedBytes(l, kind, id), sig)
}
