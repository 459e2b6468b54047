package sign

import (
	"bytes"
	"crypto/ed25519"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ryekit/rye/internal/vectors"
	"github.com/ryekit/rye/item"
)

var fuzzExts = []string{".md", ".py", ".yaml", ".yml", ".sh", ".toml", ".js", ".ts"}

// FuzzFind: the signature-line codec never panics; a line it accepts
// re-encodes to the same bytes; spans stay inside the input; and signing
// whatever it found yields a file that is signed by the key.
func FuzzFind(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(vectorsDir, "files", "*", "*"))
	eras, _ := filepath.Glob(filepath.Join(vectors.ErasDir(), "files", "*", "*"))
	if len(files) == 0 || len(eras) == 0 {
		f.Fatal("no vector files to seed the corpus with")
	}
	for _, p := range append(files, eras...) {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data, uint8(0))
		}
	}
	f.Add([]byte("# rye:signed:v2:"+ts+":"+hash64+":"+sig88+":"+fp16+"\n"), uint8(1))
	key := vectorKey()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	f.Fuzz(func(t *testing.T, src []byte, extIndex uint8) {
		ext := fuzzExts[int(extIndex)%len(fuzzExts)]
		found := Find(src, ext)
		if found.Start < 0 || found.End < found.Start || found.End > len(src) {
			t.Fatalf("span %d..%d of %d", found.Start, found.End, len(src))
		}
		if found.Status == Signed {
			l := found.Line
			if _, err := decodeSignature(l); err != nil {
				t.Fatalf("accepted a %s line whose signature does not decode: %q", l.Format, l.Signature)
			}
			if want := map[bool]int{false: 16, true: 64}[l.Format.rustFamily()]; len(l.Fingerprint) != want {
				t.Fatalf("a %s line with a %d-character fingerprint", l.Format, len(l.Fingerprint))
			}
			if l.Format == V1 || l.Format == V2 { // the formats rye writes re-encode exactly
				text, err := l.Encode(ext)
				if err != nil {
					t.Fatal(err)
				}
				got := bytes.TrimSuffix(trimEOL(src[found.Start:found.End]), nil)
				if string(got)+"\n" != text {
					t.Fatalf("re-encoded %q, file has %q", text, got)
				}
			}
		}
		for _, format := range []Format{V1, V2} {
			out, err := Sign(key, format, item.Tool, "a/b", ext, src, now)
			if err != nil {
				continue
			}
			if !SignedBy(key, format, item.Tool, "a/b", ext, out) {
				t.Fatalf("%s: signed output is not signed by the key:\n%q", format, out)
			}
		}
	})
}

// FuzzParsePublicKey: the public key reader (PEM or an OpenSSH line) never
// panics, and a key it accepts reads back the same from both forms rye
// writes, with the same fingerprint.
func FuzzParsePublicKey(f *testing.F) {
	pub := testPrivateKey(3).Public().(ed25519.PublicKey)
	pemText, _ := CanonicalPublicPEM(pub)
	f.Add([]byte(pemText))
	f.Add([]byte(OpenSSHPublicKey(pub) + " alice@laptop\n"))
	f.Add([]byte("# comment\n\n" + OpenSSHPublicKey(pub) + "\n"))
	f.Add([]byte("ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ"))
	f.Add([]byte("sk-ssh-ed25519@openssh.com AAAAGnNrLXNzaC1lZDI1NTE5QG9wZW5zc2guY29tAAAAIA== x"))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, _, err := parsePublicKey(data)
		if err != nil {
			return
		}
		if len(got) != ed25519.PublicKeySize {
			t.Fatalf("a %d-byte key", len(got))
		}
		again, _, err := parsePublicKey([]byte(OpenSSHPublicKey(got)))
		if err != nil || !again.Equal(got) {
			t.Fatalf("OpenSSH form does not read back: %v", err)
		}
		p, _ := CanonicalPublicPEM(got)
		again, _, err = parsePublicKey([]byte(p))
		if err != nil || !again.Equal(got) || Fingerprint(again) != Fingerprint(got) {
			t.Fatalf("PEM form does not read back: %v", err)
		}
	})
}

// FuzzParsePrivateKey: the private key reader never panics on any file
// (encrypted ones stop at the passphrase, which is not given: a fuzzed KDF
// cost must not stall the fuzzer), and a key it accepts signs messages that
// verify.
func FuzzParsePrivateKey(f *testing.F) {
	priv := testPrivateKey(4)
	plain, _ := marshalPrivateKey(priv, nil)
	f.Add(plain)
	ossh, _ := marshalOpenSSHPrivateKey(priv, "c", nil)
	f.Add(ossh)
	enc, _ := marshalOpenSSHPrivateKey(priv, "c", []byte("pw"))
	f.Add(enc)
	f.Add([]byte("-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n"))
	f.Add([]byte(OpenSSHPublicKey(priv.Public().(ed25519.PublicKey))))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := parsePrivateKey(data, nil)
		if err != nil {
			return
		}
		if _, err := NewKey(got).SignMessage([]byte("rye-signature-v2\ntool\na/b")); err != nil {
			t.Fatalf("an accepted key does not sign: %v", err)
		}
	})
}
