package sign

import (
	"encoding/base64"
	"strings"
	"testing"
)

// One signature of one hash is one copy key in every legacy form the line
// can write it (padded or unpadded base64url, standard base64, a 16- or
// 64-hex fingerprint): the copy check compares what a line decodes to,
// never its text. v2, another signature or another hash is another key.
func TestCopyKeyIgnoresTheEncoding(t *testing.T) {
	sig := make([]byte, 64)
	for i := range sig {
		sig[i] = byte(i*7 + 0xf3)
	}
	hash := strings.Repeat("ab", 32)
	v1 := &line{Format: V1, Hash: hash, Signature: base64.URLEncoding.EncodeToString(sig), Fingerprint: strings.Repeat("1", 16)}
	key := CopyKey(v1)
	if key == "" {
		t.Fatal("no copy key for v1")
	}
	for _, l := range []*line{
		{Format: V1U, Hash: hash, Signature: base64.RawURLEncoding.EncodeToString(sig), Fingerprint: strings.Repeat("2", 16)},
		{Format: R1, Hash: hash, Signature: base64.StdEncoding.EncodeToString(sig), Fingerprint: strings.Repeat("3", 64)},
		{Format: RyeOS, Hash: hash, Signature: base64.StdEncoding.EncodeToString(sig), Fingerprint: strings.Repeat("4", 64)},
	} {
		if got := CopyKey(l); got != key {
			t.Errorf("%s: another copy key for the same signature", l.Format)
		}
	}
	other := append([]byte(nil), sig...)
	other[0] ^= 1
	for name, l := range map[string]*line{
		"v2":              {Format: V2, Hash: hash, Signature: v1.Signature},
		"another sig":     {Format: V1, Hash: hash, Signature: base64.URLEncoding.EncodeToString(other)},
		"another hash":    {Format: V1, Hash: strings.Repeat("cd", 32), Signature: v1.Signature},
		"does not decode": {Format: V1, Hash: hash, Signature: "!" + v1.Signature[1:]},
	} {
		if got := CopyKey(l); got == key || (name != "another sig" && name != "another hash" && got != "") {
			t.Errorf("%s: copy key %q", name, got)
		}
	}
	if CopyKey(nil) != "" {
		t.Error("a nil line has a copy key")
	}
}
