package sign

import (
	"crypto/ed25519"
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"testing"
	"time"

	"github.com/ryekit/rye/internal/vectors"
	"github.com/ryekit/rye/item"
)

// vectorsDir holds the conformance vectors (the repository's copy of
// ../shared/vectors).
var vectorsDir = vectors.Dir()

type vectorCase struct {
	Name         string `json:"name"`
	Path         string `json:"path"`
	Kind         string `json:"kind"`
	ItemID       string `json:"item_id"`
	Format       string `json:"format"`
	Expect       string `json:"expect"`
	File         string `json:"file"`
	Hash         string `json:"hash"`
	HashInput    string `json:"hash_input"`
	Message      string `json:"message"`
	Signature    string `json:"signature"`
	UnsignedFile string `json:"unsigned_file"`
}

type vectorSet struct {
	Timestamp            string       `json:"timestamp"`
	Fingerprint          string       `json:"fingerprint"`
	UntrustedFingerprint string       `json:"untrusted_fingerprint"`
	Cases                []vectorCase `json:"cases"`
}

func loadVectors(t *testing.T) vectorSet {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(vectorsDir, "vectors.json"))
	if err != nil {
		t.Fatal(err)
	}
	var v vectorSet
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Cases) != 81 {
		t.Fatalf("%d vector cases, want 81", len(v.Cases))
	}
	return v
}

// vectorKey is the test key: the Ed25519 key whose seed is 00 01 .. 1f.
func vectorKey() *Key {
	seed := make([]byte, ed25519.SeedSize)
	for i := range seed {
		seed[i] = byte(i)
	}
	return NewKey(ed25519.NewKeyFromSeed(seed))
}

func TestVectorKey(t *testing.T) {
	v := loadVectors(t)
	key := vectorKey()
	if key.Fingerprint != v.Fingerprint {
		t.Errorf("fingerprint %s, want %s", key.Fingerprint, v.Fingerprint)
	}
	pemText, err := os.ReadFile(filepath.Join(vectorsDir, "key", "public_key.pem"))
	if err != nil {
		t.Fatal(err)
	}
	canonical, _ := CanonicalPublicPEM(key.Public)
	if canonical != string(pemText) {
		t.Errorf("canonical PEM\n%s\nwant\n%s", canonical, pemText)
	}
	other, err := os.ReadFile(filepath.Join(vectorsDir, "key", "other_public_key.pem"))
	if err != nil {
		t.Fatal(err)
	}
	pub, err := ParsePublicKeyPEM(other)
	if err != nil || Fingerprint(pub) != v.UntrustedFingerprint {
		t.Errorf("other key: %v %s, want %s", err, Fingerprint(pub), v.UntrustedFingerprint)
	}
}

// TestVectorsCodec checks, for every case, the parse status, the hash and,
// for the positive cases, that signing the unsigned file reproduces the
// signed one byte for byte.
func TestVectorsCodec(t *testing.T) {
	v := loadVectors(t)
	key := vectorKey()
	ts, err := time.Parse(TimeLayout, v.Timestamp)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range v.Cases {
		t.Run(c.Name, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join(vectorsDir, c.File))
			if err != nil {
				t.Fatal(err)
			}
			kind, ext, id := item.Kind(c.Kind), path.Ext(c.Path), item.ID(c.ItemID)
			found := Find(src, ext)
			wantStatus := map[string]status{"unsigned": Unsigned, "malformed-signature": Malformed, "duplicate-signature": Duplicate}
			if s, ok := wantStatus[c.Expect]; ok {
				if found.Status != s {
					t.Fatalf("status %s (%s), want %s", found.Status, found.Reason, s)
				}
				return
			}
			if found.Status != Signed {
				t.Fatalf("status %s (%s), want signed", found.Status, found.Reason)
			}
			if got := found.Line.Format.String(); got != c.Format {
				t.Fatalf("format %s, want %s", got, c.Format)
			}
			hash, err := ContentHash(found, kind, src)
			if err != nil {
				t.Fatal(err)
			}
			switch c.Expect {
			case "modified":
				if hash == found.Line.Hash {
					t.Fatal("a modified file's hash matches its line")
				}
				return
			case "untrusted-key":
				if found.Line.Fingerprint != v.UntrustedFingerprint {
					t.Fatalf("fingerprint %s", found.Line.Fingerprint)
				}
				return
			case "moved":
				if hash != found.Line.Hash {
					t.Fatal("a moved file's hash does not match")
				}
				return
			case "bad-signature":
				if hash != found.Line.Hash || VerifySignature(key.Public, found.Line, kind, id) {
					t.Fatalf("hash match %v, signature verifies %v", hash == found.Line.Hash, VerifySignature(key.Public, found.Line, kind, id))
				}
				return
			}
			// verified
			if hash != found.Line.Hash {
				t.Fatalf("hash %s, line says %s", hash, found.Line.Hash)
			}
			if !VerifySignature(key.Public, found.Line, kind, id) {
				t.Fatal("signature does not verify")
			}
			if c.UnsignedFile == "" {
				return // CRLF and "uncovered" variants of the v1 cases
			}
			if c.Hash != "" && c.Hash != hash {
				t.Errorf("hash %s, vector says %s", hash, c.Hash)
			}
			if c.Format == "v2" {
				if msg := messageV2(kind, id, found.Line.Timestamp, found.Line.Fingerprint, hash); msg != c.Message {
					t.Errorf("message %q, want %q", msg, c.Message)
				}
			}
			if c.Format == "v1" {
				unsigned := []byte(c.UnsignedFile)
				uf := Find(unsigned, ext)
				in, err := hashInputV1(kind, unsigned, uf.Start, uf.End)
				if err != nil || in != c.HashInput {
					t.Errorf("v1 hash input %q (%v), want %q", in, err, c.HashInput)
				}
			}
			if found.Line.Signature != c.Signature {
				t.Errorf("signature %s, vector says %s", found.Line.Signature, c.Signature)
			}
			format, _ := ParseFormat(c.Format)
			signed, err := Sign(key, format, kind, id, ext, []byte(c.UnsignedFile), ts)
			if err != nil {
				t.Fatal(err)
			}
			if string(signed) != string(src) {
				t.Errorf("signing the unsigned file gives\n%q\nwant\n%q", signed, src)
			}
			if !SignedBy(key, format, kind, id, ext, signed) {
				t.Error("SignedBy is false for a fresh signature")
			}
		})
	}
}
