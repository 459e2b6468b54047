package sign

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestKeyFiles(t *testing.T) {
	dir := t.TempDir()
	paths, err := DefaultKeyPaths("", dir)
	if err != nil || paths.Private != filepath.Join(dir, ".ai", "keys", "private_key.pem") || paths.Public != filepath.Join(dir, ".ai", "keys", "public_key.pem") {
		t.Fatalf("%+v %v", paths, err)
	}
	if p, _ := DefaultKeyPaths("/x/k.pem", dir); p.Private != "/x/k.pem" || p.Public != "/x/public_key.pem" {
		t.Errorf("RYE_SIGNING_KEY: %+v", p)
	}
	if _, err := DefaultKeyPaths("", ""); err == nil {
		t.Error("no location accepted")
	}
	if _, err := LoadSigningKey(KeySource{Path: paths.Private}); err == nil || !strings.Contains(err.Error(), "no signing key here") {
		t.Errorf("missing: %v", err)
	}
	key, err := GenerateKeyFiles(paths, keyFilePEM, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	// An existing key is refused before a passphrase is asked for.
	noAsk := func() ([]byte, error) {
		t.Error("passphrase asked for a key that will not be written")
		return nil, nil
	}
	if _, err := GenerateKeyFiles(paths, keyFilePEM, noAsk, false); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("overwrite: %v", err)
	}
	loaded, err := LoadSigningKey(KeySource{Path: paths.Private})
	if err != nil || loaded.Fingerprint != key.Fingerprint {
		t.Fatalf("load: %v", err)
	}
	pub, err := loadPublicKey(paths.Public)
	if err != nil || Fingerprint(pub) != key.Fingerprint {
		t.Fatalf("public: %v", err)
	}
	if runtime.GOOS != "windows" {
		info, _ := os.Stat(paths.Private)
		if info.Mode().Perm() != 0o600 {
			t.Errorf("private key mode %v", info.Mode().Perm())
		}
		os.Chmod(paths.Private, 0o640)
		if _, err := LoadSigningKey(KeySource{Path: paths.Private}); err == nil || !strings.Contains(err.Error(), "chmod 600") {
			t.Errorf("group-readable: %v", err)
		}
	}
	// Encrypted keys: the right passphrase, a wrong one, none.
	enc := KeyPaths{Private: filepath.Join(dir, "enc", "k.pem"), Public: filepath.Join(dir, "enc", "public_key.pem")}
	key, err = GenerateKeyFiles(enc, keyFilePEM, func() ([]byte, error) { return []byte("open sesame"), nil }, false)
	if err != nil {
		t.Fatal(err)
	}
	pass := func(p string) func(string, int) ([]byte, error) {
		return func(string, int) ([]byte, error) { return []byte(p), nil }
	}
	if k, err := LoadSigningKey(KeySource{Path: enc.Private, Passphrase: pass("open sesame")}); err != nil || k.Fingerprint != key.Fingerprint {
		t.Errorf("right passphrase: %v", err)
	}
	if _, err := LoadSigningKey(KeySource{Path: enc.Private, Passphrase: pass("close")}); err == nil || !strings.Contains(err.Error(), "wrong passphrase") {
		t.Errorf("wrong passphrase: %v", err)
	}
	if _, err := LoadSigningKey(KeySource{Path: enc.Private}); err == nil || !strings.Contains(err.Error(), "RYE_KEY_PASSWORD") {
		t.Errorf("no passphrase: %v", err)
	}
	// Not Ed25519.
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	der, _ := x509.MarshalPKCS8PrivateKey(ec)
	if _, err := parsePrivateKey(pem.EncodeToMemory(&pem.Block{Type: privateKeyPEM, Bytes: der}), nil); err == nil || !strings.Contains(err.Error(), "Ed25519 keys only") {
		t.Errorf("ECDSA: %v", err)
	}
	if _, err := parsePrivateKey([]byte("-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n"), nil); err == nil || !strings.Contains(err.Error(), `PEM block is "RSA PRIVATE KEY"`) {
		t.Errorf("RSA: %v", err)
	}
	pubDER, _ := x509.MarshalPKIXPublicKey(&ec.PublicKey)
	if _, err := ParsePublicKeyPEM(pem.EncodeToMemory(&pem.Block{Type: publicKeyPEM, Bytes: pubDER})); err == nil || !strings.Contains(err.Error(), "Ed25519 keys only") {
		t.Errorf("ECDSA public: %v", err)
	}
}

// TestKeyWithAForeignPublicHalf: an OpenSSH key file stores the public half
// beside the seed; one whose halves disagree is refused as damaged, never
// used to sign under a fingerprint that is not the signer's.
func TestKeyWithAForeignPublicHalf(t *testing.T) {
	priv, other := testPrivateKey(5), testPrivateKey(6)
	mixed := append(append([]byte{}, priv.Seed()...), other[32:]...)
	data, err := marshalOpenSSHPrivateKey(mixed, "c", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := parsePrivateKey(data, nil); err == nil || !strings.Contains(err.Error(), "its public half is not the one its private half makes") {
		t.Fatalf("mixed halves: %v", err)
	}
	good, _ := marshalOpenSSHPrivateKey(priv, "c", nil)
	if got, err := parsePrivateKey(good, nil); err != nil || !got.Equal(priv) {
		t.Fatalf("whole key: %v", err)
	}
}
