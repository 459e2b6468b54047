package lint

import (
	"crypto/ed25519"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/tools/go/analysis"

	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/sign"
	"github.com/ryekit/rye/space"
	"github.com/ryekit/rye/verify"
)

// TestSignatureAnalyzer: verdicts other than verified are errors, v1 is a
// warning naming what it leaves uncovered, and a signature line below the
// top of a file is a warning.
func TestSignatureAnalyzer(t *testing.T) {
	seed := make([]byte, ed25519.SeedSize)
	key := sign.NewKey(ed25519.NewKeyFromSeed(seed))
	dir := t.TempDir()
	when := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	write := func(rel string, content []byte) {
		p := filepath.Join(dir, ".ai", filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tool := func(id string) []byte {
		return []byte("version: \"1.0.0\"\ntool_type: library\nexecutor_id: null\ncategory: s\ndescription: " + id + "\n")
	}
	signed := func(f sign.Format, id string, src []byte) []byte {
		out, err := sign.Sign(key, f, item.Tool, item.ID("s/"+id), ".yaml", src, when)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	write("tools/s/good.yaml", signed(sign.V2, "good", tool("good")))
	write("tools/s/old.yaml", signed(sign.V1, "old", tool("old")))
	edited := signed(sign.V2, "edited", tool("edited"))
	write("tools/s/edited.yaml", append(edited, "# later\n"...))
	write("tools/s/unsigned.yaml", tool("unsigned"))
	pasted := append(tool("pasted"), signed(sign.V2, "pasted", tool("x"))[:200]...)
	write("tools/s/pasted.yaml", signed(sign.V2, "pasted", append(pasted, '\n')))
	// Documentation that shows a signature line in a code block: an
	// example, not a misplaced line; the same line outside one is.
	doc := []byte("---\nid: doc\ntitle: Doc\nversion: \"1.0.0\"\nentry_type: reference\ncategory: s\n---\nA signed tool starts:\n\n```yaml\n# rye:signed:2026-02-11T00:00:00Z:aa:bb:cc\n```\n\n````markdown\n```\n<!-- rye:signed:in-a-nested-fence -->\n```\n<!-- rye:signed:still-in-the-outer-fence -->\n````\n<!-- rye:signed:pasted -->\n")
	docSigned, err := sign.Sign(key, sign.V2, item.Knowledge, "s/doc", ".md", doc, when)
	if err != nil {
		t.Fatal(err)
	}
	write("knowledge/s/doc.md", docSigned)
	write("trusted_keys/"+key.Fingerprint+".toml", verify.FormatTrustedKey(&verify.TrustedKey{Owner: "t", Public: key.Public}))

	e := testEnv(t, dir)
	ts, err := verify.LoadTrustStore(verify.TrustSources([]*space.Space{e.Spaces.Project}))
	if err != nil {
		t.Fatal(err)
	}
	e.Verify = func(f *file, md *item.Metadata) verify.Result {
		return verify.Check(verify.Input{Kind: f.Kind, ID: f.ID, Space: "project", Path: f.Name, Data: f.Src, Meta: md}, ts, verify.Policy{Now: when})
	}
	res, err := lint(e, options{Analyzers: []*analysis.Analyzer{signature}})
	if err != nil {
		t.Fatal(err)
	}
	want := `.ai/knowledge/s/doc.md:21:1: warning: a signature line on line 21, below the top of the file, is ignored by verification: the signature line is the first line (the second after #!); remove this one [signature/misplaced]
.ai/tools/s/edited.yaml:1:1: error: modified: content changed since it was signed; if the change is intended, sign it again: rye sign tool s/edited [signature/modified]
.ai/tools/s/old.yaml:1:1: warning: v1 signature: the timestamp is unsigned and nothing binds the item to its location; re-sign it: rye sign --format v2 tool s/old [signature/v1]
.ai/tools/s/pasted.yaml:7:1: warning: a signature line on line 7, below the top of the file, is ignored by verification: the signature line is the first line (the second after #!); remove this one [signature/misplaced]
.ai/tools/s/unsigned.yaml:1:1: error: unsigned: no signature line; sign it: rye sign tool s/unsigned [signature/unsigned]
`
	if got := renderFindings(res.Findings); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}
