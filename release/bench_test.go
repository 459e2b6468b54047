package release

import (
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

// benchBundle is a signed 3,000-item corpus (internal/corpus) whose
// namespace ns00 (about 180 items, 2 KiB each) is packed.
func benchBundle(b *testing.B) *project {
	p := &project{root: b.TempDir(), key: testKey(3)}
	if err := corpus.Generate(p.root, 3000, 7); err != nil {
		b.Fatal(err)
	}
	p.sp = space.NewDiskSpace(space.Project, p.root, "")
	p.trustKey(b, p.key)
	found, _, err := p.sp.Walk(item.Kinds)
	if err != nil {
		b.Fatal(err)
	}
	var targets []sign.Target
	for _, f := range found {
		targets = append(targets, sign.Target{Kind: f.Kind, ID: f.ID, Space: f.Space, Rel: f.Rel})
	}
	for _, r := range (&sign.Batch{Key: p.key, Format: sign.V2, Time: signTime}).Run(targets) {
		if r.Err != nil {
			b.Fatal(r.Err)
		}
	}
	p.reload(b)
	return p
}

func BenchmarkCreate(b *testing.B) {
	p := benchBundle(b)
	o := p.options()
	o.ID = "ns00"
	for b.Loop() {
		if _, err := Create(o); err != nil {
			b.Fatal(err)
		}
	}
}

// benchCreated is the ns00 bundle of benchBundle, made.
func benchCreated(b *testing.B) (*project, *Created) {
	p := benchBundle(b)
	o := p.options()
	o.ID = "ns00"
	c, err := Create(o)
	if err != nil {
		b.Fatal(err)
	}
	return p, c
}

func BenchmarkCheck(b *testing.B) {
	p, c := benchCreated(b)
	b.SetBytes(int64(len(c.Archive)))
	policy := verify.Policy{Now: time.Now()}
	for b.Loop() {
		if r := check(c.Archive, p.trust, policy, defaultLimits); r.Failed() {
			b.Fatal(r.Reason)
		}
	}
	b.ReportMetric(float64(len(c.Items)), "items")
}

func BenchmarkInstall(b *testing.B) {
	p, c := benchCreated(b)
	r := check(c.Archive, p.trust, verify.Policy{Now: time.Now()}, defaultLimits)
	for b.Loop() {
		dest := b.TempDir()
		os.MkdirAll(filepath.Join(dest, ".ai"), 0o755)
		if _, err := Install(r, InstallOptions{Root: dest, Now: time.Now()}); err != nil {
			b.Fatal(err)
		}
	}
}
