package item

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ryekit/rye/internal/vectors"
)

// ryeosForms are the (kind, extension) pairs the RyeOS readers take, for
// the fuzz targets to choose from.
func ryeosForms() [][2]string {
	var out [][2]string
	for _, k := range RyeOSKinds {
		if k == BundleManifest {
			out = append(out, [2]string{string(k), ".yaml"})
			continue
		}
		for _, ext := range RyeOSExtensions(k) {
			out = append(out, [2]string{string(k), ext})
		}
	}
	return out
}

// addRyeOSVectorFiles seeds a fuzz target with the files of spec 7's
// vectors.
func addRyeOSVectorFiles(f *testing.F, add func(src []byte, ext string)) {
	_ = filepath.WalkDir(filepath.Join(vectors.RyeOS02Dir(), "files"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		src, err := os.ReadFile(p)
		if err == nil {
			add(src, filepath.Ext(p))
		}
		return nil
	})
}

// The RyeOS readers never panic, report every position inside the file,
// and refuse only with one of RyeOS's codes.
func FuzzReadRyeOS(f *testing.F) {
	forms := ryeosForms()
	addRyeOSVectorFiles(f, func(src []byte, ext string) {
		for i, form := range forms {
			if form[1] == ext {
				f.Add(src, uint8(i))
			}
		}
	})
	for _, edge := range []string{"---\n", "---\na: 1\n", "```yaml\n", "\ufeff---\na: 1\n---\n", "<!-- x", "\n\n---\n---",
		"#!/x\n# ryeos-tool:\n#  a: 1\n# b\n", "# ryeos-tool: 1\n", "# ryeos-tool:\n# ryeos-tool:\n", "const __x__ = \"1\"\r\n", "a: &x [*x]\n"} {
		for i := range forms {
			f.Add([]byte(edge), uint8(i))
		}
	}
	f.Fuzz(func(t *testing.T, src []byte, sel uint8) {
		form := forms[int(sel)%len(forms)]
		d := ReadRyeOS(Kind(form[0]), "demo/x", form[1], src)
		if d.Refusal != nil {
			code, _, _ := strings.Cut(d.Refusal.Rule, "/")
			if code != "parse" && code != "metadata" {
				t.Fatalf("refused with %q", d.Refusal.Rule)
			}
			if d.Refusal.Pos.IsValid() && (d.Refusal.Pos.Offset < 0 || d.Refusal.Pos.Offset > len(src)) {
				t.Fatalf("refusal at %+v, outside the file", d.Refusal.Pos)
			}
		} else if d.Value == nil {
			t.Fatal("no value and no refusal")
		}
		checkPositions(t, src, d.Value)
		checkPositions(t, src, d.Front)
		_ = d.Metadata()
	})
}

// Stripping marker lines leaves none, and is idempotent for text without
// carriage returns (a line "\r\r\n" keeps one '\r', as str::lines() does,
// which the second pass then reads as a line ending).
func FuzzStripRyeOSMarkers(f *testing.F) {
	addRyeOSVectorFiles(f, func(src []byte, ext string) { f.Add(src, ext) })
	f.Add([]byte("a\r\n# ryeos:signed\r\n  # ryeos:signed:x\nb\r"), ".yaml")
	f.Fuzz(func(t *testing.T, src []byte, ext string) {
		once := StripRyeOSMarkers(src, ext)
		if twice := StripRyeOSMarkers(once, ext); !bytes.Contains(src, []byte("\r")) && !bytes.Equal(once, twice) {
			t.Fatalf("stripping twice changes %q into %q", once, twice)
		}
		eachRustLine(once, func(line []byte, _ int) {
			if IsRyeOSMarkerLine(line, ext) {
				t.Fatalf("a marker line is left: %q", line)
			}
		})
	})
}

// Refs that parse print back as they were written; nothing panics.
func FuzzParseRef(f *testing.F) {
	for _, s := range []string{"tool:demo/x", "@subprocess", "knowledge:dé/café", "tool:demo/x@t:2026", "tool:demo/x@cap:a:b:c", "tool:demo/*", "Tool:x", "tool:../x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if r, err := ParseRef(s); err == nil && r.String() != s {
			t.Fatalf("%q parses to %q", s, r.String())
		}
		if _, err := parseSignTarget(s); err == nil && strings.Contains(s, "@") {
			t.Fatalf("a sign target with a suffix: %q", s)
		}
		for _, k := range []Kind{Tool, StreamingTool} {
			if _, err := ResolveExecutor(k, s); err != nil {
				if _, ok := err.(*RefError); !ok {
					t.Fatalf("error of type %T", err)
				}
			}
		}
	})
}
