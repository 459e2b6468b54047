package sign

import (
	"bytes"
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
			if _, err := DecodeSignature(l); err != nil {
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
