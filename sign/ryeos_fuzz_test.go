package sign

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ryekit/rye/internal/vectors"
)

// What RyeOS's signer writes verifies, whatever the input, and signing it
// again changes nothing (for text without carriage returns, which the
// signer's line splitting may read differently a second time).
func FuzzSignRyeOS(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(vectors.RyeOS02Dir(), "files", "sign", "*", "*"))
	for _, p := range files {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data, filepath.Ext(p))
		}
	}
	f.Add([]byte("#!x"), ".py")
	f.Add([]byte("\xef\xbb\xbf---\n"), ".md")
	key := vectorKey()
	at := time.Date(2026, 8, 1, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, src []byte, ext string) {
		out, unchanged, err := signRyeOS(key, ext, src, at)
		if err != nil {
			return // an extension that carries no line
		}
		if unchanged {
			if !bytes.Equal(out, src) {
				t.Fatal("unchanged, but other bytes")
			}
			return
		}
		found := Find(out, ext)
		if found.Status != Signed || found.Line.Format != RyeOS {
			t.Fatalf("the signed file reads as %s (%s):\n%q", found.Status, found.Reason, out)
		}
		if hash, err := ContentHash(found, "", out); err != nil || hash != found.Line.Hash || !VerifySignature(key.Public, found.Line, "", "") {
			t.Fatalf("the signed file does not verify:\n%q", out)
		}
		if !bytes.ContainsRune(src, '\r') {
			if again, unchanged, err := signRyeOS(key, ext, out, at.Add(time.Hour)); err != nil || !unchanged || !bytes.Equal(again, out) {
				t.Fatalf("signing again changes it (%v):\n%q\n%q", err, out, again)
			}
		}
	})
}
