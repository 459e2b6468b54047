package sshsig

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/binary"
	"encoding/pem"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
)

// key is a fixed test key (seed 00 01 .. 1f).
func key(t *testing.T, first byte) ed25519.PrivateKey {
	t.Helper()
	seed := make([]byte, ed25519.SeedSize)
	for i := range seed {
		seed[i] = first + byte(i)
	}
	return ed25519.NewKeyFromSeed(seed)
}

func TestSignParseVerify(t *testing.T) {
	priv := key(t, 0)
	msg := []byte("abc  rye_1.0.0_linux_amd64.tar.gz\n")
	sig, err := Sign(priv, "rye-release", bytes.NewReader(msg))
	if err != nil {
		t.Fatal(err)
	}
	armored := sig.Marshal()
	got, err := Parse(armored)
	if err != nil {
		t.Fatal(err)
	}
	pub := priv.Public().(ed25519.PublicKey)
	if err := got.Verify(pub, "rye-release", bytes.NewReader(msg)); err != nil {
		t.Fatalf("a fresh signature does not verify: %v", err)
	}
	if !bytes.Equal(got.Blob(), sig.Blob()) || !bytes.Equal(got.Marshal(), armored) {
		t.Error("Parse and Marshal do not round-trip")
	}

	for name, tc := range map[string]struct {
		key ed25519.PublicKey
		ns  string
		msg []byte
		err string
	}{
		"changed message": {pub, "rye-release", []byte("abd  rye_1.0.0_linux_amd64.tar.gz\n"), "the signed file or the signature was changed"},
		"other namespace": {pub, "git", msg, `namespace "rye-release", not "git"`},
		"other key":       {key(t, 0x20).Public().(ed25519.PublicKey), "rye-release", msg, "made by another key (" + Fingerprint(pub) + ")"},
	} {
		err := got.Verify(tc.key, tc.ns, bytes.NewReader(tc.msg))
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: got %v, want an error with %q", name, err, tc.err)
		}
	}

	// A signature whose bytes were changed does not verify, although it
	// parses.
	bad := *got
	bad.Sig = bytes.Clone(got.Sig)
	bad.Sig[10] ^= 1
	if err := bad.Verify(pub, "rye-release", bytes.NewReader(msg)); !errors.Is(err, ErrBadSignature) {
		t.Errorf("a changed signature: got %v, want ErrBadSignature", err)
	}
	// A signature that names the right key but was made by another one.
	forged, err := Sign(key(t, 0x20), "rye-release", bytes.NewReader(msg))
	if err != nil {
		t.Fatal(err)
	}
	forged.PublicKey = pub
	if err := forged.Verify(pub, "rye-release", bytes.NewReader(msg)); !errors.Is(err, ErrBadSignature) {
		t.Errorf("a signature that claims the pinned key: got %v, want ErrBadSignature", err)
	}
}

// blob builds an SSHSIG blob from parts, for the refusals below.
func blob(version uint32, pubType string, pub []byte, ns, reserved, alg, sigType string, sig []byte, extra []byte) []byte {
	str := func(b []byte, s []byte) []byte { return append(binary.BigEndian.AppendUint32(b, uint32(len(s))), s...) }
	b := []byte(magic)
	b = binary.BigEndian.AppendUint32(b, version)
	b = str(b, str(str(nil, []byte(pubType)), pub))
	b = str(b, []byte(ns))
	b = str(b, []byte(reserved))
	b = str(b, []byte(alg))
	b = str(b, str(str(nil, []byte(sigType)), sig))
	return append(b, extra...)
}

func armor(b []byte) []byte {
	return []byte(armorBegin + "\n" + base64.StdEncoding.EncodeToString(b) + "\n" + armorEnd + "\n")
}

func TestParseRefuses(t *testing.T) {
	pub := make([]byte, 32)
	sig := make([]byte, 64)
	good := blob(1, keyType, pub, "rye-release", "", "sha512", keyType, sig, nil)
	if _, err := parseBlob(good); err != nil {
		t.Fatalf("the well-formed blob of this test is refused: %v", err)
	}
	for name, tc := range map[string]struct {
		in  []byte
		err string
	}{
		"no armor":         {good, "not an SSH signature"},
		"no end line":      {[]byte(armorBegin + "\n" + base64.StdEncoding.EncodeToString(good) + "\n"), "does not end with"},
		"text after armor": {append(armor(good), "hello\n"...), "does not end with"},
		"bad base64":       {[]byte(armorBegin + "\n!!!!\n" + armorEnd + "\n"), "not valid base64"},
		"no preamble":      {armor(good[1:]), "no SSHSIG preamble"},
		"version 2":        {armor(blob(2, keyType, pub, "rye-release", "", "sha512", keyType, sig, nil)), "version 2"},
		"rsa key":          {armor(blob(1, "ssh-rsa", pub, "rye-release", "", "sha512", keyType, sig, nil)), `public key is "ssh-rsa"`},
		"short key":        {armor(blob(1, keyType, pub[:31], "rye-release", "", "sha512", keyType, sig, nil)), "public key is 31 bytes"},
		"rsa signature":    {armor(blob(1, keyType, pub, "rye-release", "", "sha512", "rsa-sha2-512", sig, nil)), `signature is "rsa-sha2-512"`},
		"long signature":   {armor(blob(1, keyType, pub, "rye-release", "", "sha512", keyType, append(sig, 0), nil)), "signature is 65 bytes"},
		"empty namespace":  {armor(blob(1, keyType, pub, "", "", "sha512", keyType, sig, nil)), "empty namespace"},
		"reserved":         {armor(blob(1, keyType, pub, "rye-release", "x", "sha512", keyType, sig, nil)), "reserved field"},
		"md5":              {armor(blob(1, keyType, pub, "rye-release", "", "md5", keyType, sig, nil)), `"md5"`},
		"trailing bytes":   {armor(blob(1, keyType, pub, "rye-release", "", "sha512", keyType, sig, []byte{0})), "1 bytes after the signature"},
		"truncated":        {armor(good[:len(good)-3]), "truncated"},
		"huge":             {bytes.Repeat([]byte("A"), maxArmored+1), "larger than any SSH signature"},
	} {
		_, err := Parse(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: got %v, want an error with %q", name, err, tc.err)
		}
	}
}

// The format is OpenSSH's: ssh-keygen -Y verify accepts what Sign makes,
// and Verify accepts what ssh-keygen -Y sign makes, with the same
// namespace rules.
func TestOpenSSHInterop(t *testing.T) {
	keygen, err := exec.LookPath("ssh-keygen")
	if err != nil {
		t.Skip("ssh-keygen is not installed: the OpenSSH interoperability of SSHSIG is not tested here")
	}
	dir := t.TempDir()
	priv := key(t, 0)
	pub := priv.Public().(ed25519.PublicKey)
	block, err := ssh.MarshalPrivateKey(priv, "test")
	if err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(dir, "id_ed25519")
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	sshPub, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	signers := filepath.Join(dir, "allowed_signers")
	line := `release namespaces="rye-release" ` + string(ssh.MarshalAuthorizedKey(sshPub))
	if err := os.WriteFile(signers, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	msg := filepath.Join(dir, "checksums.txt")
	if err := os.WriteFile(msg, []byte("0123  rye.tar.gz\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(stdin []byte, args ...string) ([]byte, error) {
		cmd := exec.Command(keygen, args...)
		cmd.Stdin = bytes.NewReader(stdin)
		return cmd.CombinedOutput()
	}

	// ssh-keygen signs, Verify checks.
	if out, err := run(nil, "-Y", "sign", "-q", "-f", keyFile, "-n", "rye-release", msg); err != nil {
		t.Fatalf("ssh-keygen -Y sign: %v\n%s", err, out)
	}
	armored, err := os.ReadFile(msg + ".sig")
	if err != nil {
		t.Fatal(err)
	}
	sig, err := Parse(armored)
	if err != nil {
		t.Fatalf("Parse of ssh-keygen's signature: %v", err)
	}
	data, _ := os.ReadFile(msg)
	if err := sig.Verify(pub, "rye-release", bytes.NewReader(data)); err != nil {
		t.Errorf("ssh-keygen's signature does not verify: %v", err)
	}
	if err := sig.Verify(pub, "rye-release", bytes.NewReader(append(data, '\n'))); err == nil {
		t.Error("ssh-keygen's signature verifies over a changed file")
	}
	if !bytes.Equal(sig.Marshal(), armored) {
		t.Errorf("Marshal differs from ssh-keygen's armor:\n%s\nwant:\n%s", sig.Marshal(), armored)
	}

	// Sign signs, ssh-keygen -Y verify checks.
	mine, err := Sign(priv, "rye-release", bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(msg+".sig", mine.Marshal(), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := run(data, "-Y", "verify", "-f", signers, "-I", "release", "-n", "rye-release", "-s", msg+".sig"); err != nil {
		t.Errorf("ssh-keygen -Y verify refuses Sign's signature: %v\n%s", err, out)
	}
	if out, err := run(append(data, 'x'), "-Y", "verify", "-f", signers, "-I", "release", "-n", "rye-release", "-s", msg+".sig"); err == nil {
		t.Errorf("ssh-keygen -Y verify accepts Sign's signature over a changed file:\n%s", out)
	}
	// The allowed_signers line limits the key to rye-release: a signature
	// for git fails in ssh-keygen as in Verify.
	gitSig, err := Sign(priv, "git", bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(msg+".sig", gitSig.Marshal(), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := run(data, "-Y", "verify", "-f", signers, "-I", "release", "-n", "git", "-s", msg+".sig"); err == nil {
		t.Errorf("ssh-keygen -Y verify accepts a git signature from a key limited to rye-release:\n%s", out)
	}
}

func FuzzParse(f *testing.F) {
	priv := ed25519.NewKeyFromSeed(make([]byte, 32))
	sig, err := Sign(priv, "rye-release", strings.NewReader("x"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(sig.Marshal())
	f.Add(armor(sig.Blob()[:40]))
	f.Fuzz(func(t *testing.T, in []byte) {
		s, err := Parse(in)
		if err != nil {
			return
		}
		// What parses, writes back to a blob that parses to the same.
		again, err := parseBlob(s.Blob())
		if err != nil {
			t.Fatalf("the blob of a parsed signature does not parse: %v", err)
		}
		if !bytes.Equal(again.Blob(), s.Blob()) {
			t.Fatal("Blob does not round-trip")
		}
		_ = s.Verify(s.PublicKey, s.Namespace, strings.NewReader("x"))
	})
}
