package lint

import (
	"crypto/ed25519"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ryekit/rye/internal/corpus"
	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/sign"
	"github.com/ryekit/rye/space"
	"github.com/ryekit/rye/verify"
)

// BenchmarkLint10k runs every analyzer, verification included, over 10,000
// generated items (2 KiB each), as `rye lint` does: load the files, parse
// them, check rules, build every tool's chain, check schemas, verify.
// Every finding but schema/none fails it.
func BenchmarkLint10k(b *testing.B) {
	root := b.TempDir()
	if err := corpus.Generate(root, 10000, 5); err != nil {
		b.Fatal(err)
	}
	key := sign.NewKey(ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize)))
	sp := space.NewDiskSpace(space.Project, root, "")
	found, _, _ := sp.Walk(item.Kinds)
	var targets []sign.Target
	for _, f := range found {
		targets = append(targets, sign.Target{Kind: f.Kind, ID: f.ID, Space: f.Space, Rel: f.Rel})
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	(&sign.Batch{Key: key, Format: sign.V2, Time: now}).Run(targets)
	os.MkdirAll(filepath.Join(root, ".ai", "trusted_keys"), 0o755)
	os.WriteFile(filepath.Join(root, ".ai", "trusted_keys", key.Fingerprint+".toml"), verify.FormatTrustedKey(&verify.TrustedKey{Public: key.Public}), 0o644)
	ss := &space.Spaces{Project: sp, System: []*space.Space{space.EmbeddedSpace()}}
	b.ResetTimer()
	for b.Loop() {
		e, err := load(ss, sp, item.Kinds, nil, root)
		if err != nil {
			b.Fatal(err)
		}
		ts, err := verify.LoadTrustStore(verify.TrustSources([]*space.Space{sp}))
		if err != nil {
			b.Fatal(err)
		}
		e.Verify = func(f *file, md *item.Metadata) verify.Result {
			return verify.Check(verify.Input{Kind: f.Kind, ID: f.ID, Space: "project", Path: f.Name, Data: f.Src, Meta: md}, ts, verify.Policy{Now: now})
		}
		res, err := lint(e, options{})
		if err != nil {
			b.Fatal(err)
		}
		// The corpus's shell tools declare no config_schema, which
		// schema/none warns about; anything else means the run went wrong.
		for _, f := range res.Findings {
			if f.Rule != "schema/none" {
				b.Fatalf("%d findings, one %+v", len(res.Findings), f)
			}
		}
	}
}
