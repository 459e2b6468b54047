package verify

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ryekit/rye/internal/vectors"
	"github.com/ryekit/rye/sign"
	"github.com/ryekit/rye/space"
)

// eraCase is one case of vectors-eras/eras.json (spec 6).
type eraCase struct {
	Name         string   `json:"name"`
	Era          string   `json:"era"`
	Kind         string   `json:"kind"`
	Path         string   `json:"path"`
	File         string   `json:"file"`
	Trust        []string `json:"trust"`
	Expect       string   `json:"expect"`
	Hash         string   `json:"hash"`
	Message      string   `json:"message"`
	Signature    string   `json:"signature"`
	TrustProblem string   `json:"expect_trust_problem"`
}

// eraTrust builds a case's trust store: each folder read as a RYE OS trust
// folder (.ai/config/keys/trusted), and a PUBLISHER_TRUST.toml imported as
// rye trust add imports it (it is never read from a trust folder).
func eraTrust(t *testing.T, dir string, folders []string) *TrustStore {
	t.Helper()
	var srcs []TrustSource
	for _, f := range folders {
		root := filepath.Join(dir, filepath.FromSlash(f))
		pub := filepath.Join(root, "PUBLISHER_TRUST.toml")
		if data, err := os.ReadFile(pub); err == nil {
			k, err := importKey("PUBLISHER_TRUST.toml", data)
			if err != nil {
				t.Fatalf("%s: %v", pub, err)
			}
			k.Owner = "imported"
			srcs = append(srcs, MemTrustSource("user", "user", map[string][]byte{k.Fingerprint + ".toml": FormatTrustedKey(k)}))
			continue
		}
		srcs = append(srcs, TrustSource{Label: "project", Files: os.DirFS(root), Shown: f, Era: true})
	}
	ts, err := LoadTrustStore(srcs)
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

// TestEraVectors reproduces every case of the RYE OS era vectors: the
// verdict, the era named in the result, and for verified cases the
// content hash and signature; refused trust documents are reported.
func TestEraVectors(t *testing.T) {
	dir := vectors.ErasDir()
	data, err := os.ReadFile(filepath.Join(dir, "eras.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Cases []eraCase `json:"cases"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Cases) < 60 {
		t.Fatalf("only %d cases", len(doc.Cases))
	}
	for _, c := range doc.Cases {
		ts := eraTrust(t, dir, c.Trust)
		src, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(c.File)))
		if err != nil {
			t.Fatal(err)
		}
		k, id, _, err := space.KindAndID(strings.TrimPrefix(c.Path, ".ai/"))
		if err != nil || string(k) != c.Kind {
			t.Fatalf("%s: %s: %v", c.Name, c.Path, err)
		}
		r := Check(Input{Kind: k, ID: id, Space: "project", Path: c.Path, Data: src}, ts, Policy{Now: time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)})
		if string(r.Verdict) != c.Expect {
			t.Errorf("%s: %s (%s), want %s", c.Name, r.Verdict, r.Reason, c.Expect)
			continue
		}
		if c.TrustProblem != "" {
			found := false
			for _, p := range ts.Problems {
				found = found || strings.HasSuffix(p.Path, "/"+c.TrustProblem)
			}
			if !found {
				t.Errorf("%s: no problem reported for %s: %v", c.Name, c.TrustProblem, ts.Problems)
			}
		}
		if c.Expect != "verified" {
			continue
		}
		f := sign.Find(src, filepath.Ext(c.Path))
		hash, err := sign.ContentHash(f, k, src)
		if r.Format != c.Era || err != nil || hash != c.Hash || f.Line.Hash != c.Hash || string(sign.SignedBytes(f.Line, k, id)) != c.Message || f.Line.Signature != c.Signature {
			t.Errorf("%s: era %s (want %s), hash %s (want %s), signature %s, err %v", c.Name, r.Format, c.Era, hash, c.Hash, f.Line.Signature, err)
		}
	}
}

// Every refused case of spec 6.5 gives its verdict for the right reason,
// not by accident: the reasons name what is wrong.
func TestEraRefusalReasons(t *testing.T) {
	dir := vectors.ErasDir()
	reasons := map[string]string{
		"files/v1u-wrong-encoding/greet.py":  "does not match",
		"files/v1u-87chars/greet.py":         "does not match",
		"files/r1-wrong-encoding/greet.yaml": "standard base64",
		"files/ryeos-unpadded/greet.yaml":    "standard base64",
		"files/r1-fp16/greet.yaml":           "16 hex fingerprint", // a malformed v1 line (spec 6.1)
		"files/ryeos-fp32/greet.yaml":        "64 lowercase hex",
		"files/ryeos-renamed-v1/greet.yaml":  "v1 fields under the ryeos marker",
		"files/r1-md-no-suffix/note.md":      "without \" -->\"",
		"files/ryeos-bom/greet.yaml":         "byte-order mark",
	}
	for file, want := range reasons {
		src, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		f := sign.Find(src, filepath.Ext(file))
		if !strings.Contains(f.Reason, want) {
			t.Errorf("%s: %s %q, want a reason containing %q", file, f.Status, f.Reason, want)
		}
	}
}

// rye trust add takes every RYE OS form of the vectors' key, and refuses
// the documents whose declared fingerprint is not their key's.
func TestImportKeyForms(t *testing.T) {
	dir := vectors.ErasDir()
	for _, f := range []string{
		"trust/v1u/f0ff50dacf109dea.toml",
		"trust/r1/56475aa75463474c0285df5dbf2bcab73da651358839e9b77481b2eab107708c.toml",
		"trust/ryeos/56475aa75463474c0285df5dbf2bcab73da651358839e9b77481b2eab107708c.toml",
		"trust/r1-pub/vectors.pub",
		"trust/ryeos-publisher/PUBLISHER_TRUST.toml",
	} {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		k, err := importKey(filepath.Base(f), data)
		if err != nil || k.Fingerprint != "f0ff50dacf109dea" || k.Fingerprint64 != "56475aa75463474c0285df5dbf2bcab73da651358839e9b77481b2eab107708c" {
			t.Errorf("%s: %+v %v", f, k, err)
		}
	}
	for _, f := range []string{
		"trust/v1u-badfp/f0ff50dacf109dea.toml",
		"trust/ryeos-badfp/56475aa75463474c0285df5dbf2bcab73da651358839e9b77481b2eab107708c.toml",
	} {
		data, _ := os.ReadFile(filepath.Join(dir, f))
		if _, err := importKey(filepath.Base(f), data); err == nil || !strings.Contains(err.Error(), "fingerprint field says") {
			t.Errorf("%s: %v", f, err)
		}
	}
	if _, err := importKey("x", []byte("not a key\n")); err == nil || !strings.Contains(err.Error(), "PUBLISHER_TRUST.toml") {
		t.Errorf("garbage: %v", err)
	}
	// rye's own file keeps its scopes and expiry: a key imported without
	// them would be trusted for more than the file says.
	priv := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
	exp := time.Date(2030, 1, 2, 0, 0, 0, 0, time.UTC)
	scoped := &TrustedKey{Owner: "alice", Public: priv.Public().(ed25519.PublicKey), Scopes: []string{"tool:alice/*"}, Expires: &exp}
	k, err := importKey("k.toml", FormatTrustedKey(scoped))
	if err != nil || !slices.Equal(k.Scopes, scoped.Scopes) || k.Expires == nil || !k.Expires.Equal(exp) || k.Owner != "alice" {
		t.Errorf("rye's own file: %+v %v", k, err)
	}
	bad := bytes.Replace(FormatTrustedKey(scoped), []byte("tool:alice/*"), []byte("nonsense"), 1)
	if _, err := importKey("k.toml", bad); err == nil {
		t.Error("a bad scope was imported")
	}
}

// ImportKeyFile reads a file or standard input ("-"), names it in a
// refusal, and reads no more than 64 KiB of standard input.
func TestImportKeyFile(t *testing.T) {
	pub := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize)).Public().(ed25519.PublicKey)
	line := sign.OpenSSHPublicKey(pub) + " alice@example.com\n"
	file := filepath.Join(t.TempDir(), "alice.pub")
	os.WriteFile(file, []byte(line), 0o644)
	for _, c := range []struct{ name, stdin string }{{file, ""}, {"-", line}} {
		k, err := ImportKeyFile(c.name, strings.NewReader(c.stdin))
		if err != nil || k.Fingerprint != sign.Fingerprint(pub) {
			t.Errorf("%s: %+v %v", c.name, k, err)
		}
	}
	if _, err := ImportKeyFile("-", strings.NewReader("not a key\n")); err == nil || !strings.HasPrefix(err.Error(), "standard input: ") {
		t.Errorf("a refusal does not name standard input: %v", err)
	}
	if _, err := ImportKeyFile(filepath.Join(t.TempDir(), "missing.pub"), nil); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
	// Past 64 KiB of blanks, the key is not read.
	if _, err := ImportKeyFile("-", strings.NewReader(strings.Repeat(" ", maxKeyInput)+line)); err == nil {
		t.Error("read past 64 KiB of standard input")
	}
}

// An owner is printed in reports, the refusal of a bundle whose signers'
// keys it ships included, so no key document may carry one with a control
// character (a terminal escape sequence can rewrite what the reader sees)
// or a bidirectional override: rye's TOML, RYE OS's trusted-key documents
// and PUBLISHER_TRUST.toml alike.
func TestOwnerWithControlCharacters(t *testing.T) {
	priv := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
	pub := priv.Public().(ed25519.PublicKey)
	raw := "ed25519:" + base64.StdEncoding.EncodeToString(pub)
	for _, owner := range []string{"evil\x1b[2K\rtrusted", "a\u202eb", "x\x00"} {
		k := &TrustedKey{Owner: owner, Public: pub}
		if _, err := ParseTrustedKey(sign.Fingerprint(pub)+".toml", FormatTrustedKey(k)); err == nil {
			t.Errorf("rye TOML: owner %q accepted", owner)
		}
		era := fmt.Sprintf("fingerprint = %q\nowner = %q\n\n[public_key]\npem = %q\n", sign.Fingerprint64(pub), owner, raw)
		if _, err := importKey("k.toml", []byte(era)); err == nil {
			t.Errorf("RYE OS document: owner %q accepted", owner)
		}
		pubTrust := fmt.Sprintf("public_key = %q\nfingerprint = %q\nowner = %q\n", raw, sign.Fingerprint64(pub), owner)
		if _, err := importKey("PUBLISHER_TRUST.toml", []byte(pubTrust)); err == nil {
			t.Errorf("PUBLISHER_TRUST.toml: owner %q accepted", owner)
		}
	}
	k := &TrustedKey{Owner: "José <jose@example.com>", Public: pub}
	if _, err := ParseTrustedKey(sign.Fingerprint(pub)+".toml", FormatTrustedKey(k)); err != nil {
		t.Errorf("a plain owner: %v", err)
	}
}
