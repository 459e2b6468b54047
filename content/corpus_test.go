package content

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ryekit/rye/internal/corpus"
	"github.com/ryekit/rye/item"
)

// The measurements behind the rules (BENCHMARKS.md, docs/lint.md): recall
// on the hostile corpus (internal/corpus plants each trick into copies of
// benign items, knowing nothing of these rules), silence on the
// near-misses, and the findings on benign items. Run with -v to see the
// tables.

// benignSet is the benign corpus: the items a project ships in the
// repository (examples/hello, the test vectors' items, the system
// bundle), the hand-written items of testdata/corpus/benign in the styles
// real projects use, and generated items (internal/corpus, the benchmark
// corpus).
func benignSet(t testing.TB) (real, synthetic []corpus.Sample) {
	t.Helper()
	add := func(kind, path string) {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		real = append(real, corpus.Sample{Kind: kind, Name: path, Src: src})
	}
	for _, root := range []string{"../examples/hello/.ai", "../space/system/.ai"} {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			folder, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
			if k, ok := item.KindOfFolder(folder); ok && k.HasExtension(filepath.Ext(p)) {
				add(string(k), p)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	vectors, _ := filepath.Glob("../internal/vectors/testdata*/files/*/*")
	for _, p := range vectors {
		kind, _, _ := strings.Cut(filepath.Base(p), "-")
		if k, err := item.ParseKind(kind); err == nil && k.HasExtension(filepath.Ext(p)) {
			add(string(k), p)
		}
	}
	written, _ := filepath.Glob("testdata/corpus/benign/*/*")
	for _, p := range written {
		add(filepath.Base(filepath.Dir(p)), p)
	}
	if len(written) < 15 || len(vectors) < 50 {
		t.Fatalf("benign corpus too small: %d written, %d vectors", len(written), len(vectors))
	}
	dir := t.TempDir()
	if err := corpus.Generate(dir, 600, 5); err != nil {
		t.Fatal(err)
	}
	filepath.WalkDir(filepath.Join(dir, ".ai"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(filepath.Join(dir, ".ai"), p)
		folder, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
		k, _ := item.KindOfFolder(folder)
		src, _ := os.ReadFile(p)
		synthetic = append(synthetic, corpus.Sample{Kind: string(k), Name: p, Src: src})
		return nil
	})
	return real, synthetic
}

func check(s corpus.Sample) []Finding {
	return Check(&File{Kind: item.Kind(s.Kind), Name: s.Name, Src: s.Src})
}

// handWritten are the benign items a hostile sample is planted into: the
// realistic ones (not the vectors' many copies of four items).
func handWritten(real []corpus.Sample) []corpus.Sample {
	var out []corpus.Sample
	for _, s := range real {
		if !strings.Contains(s.Name, "vectors") {
			out = append(out, s)
		}
	}
	return out
}

// TestCorpus enforces what the rules promise: at least 95 % recall per
// class on the hostile corpus, no finding at all on the near-misses, and
// no error-level finding on any benign item.
func TestCorpus(t *testing.T) {
	real, synthetic := benignSet(t)
	hostile := corpus.Plant(handWritten(real), 1)

	// Recall per class.
	type tally struct{ n, found, errors int }
	byClass := map[string]*tally{}
	for _, s := range hostile {
		c := byClass[s.Class]
		if c == nil {
			c = &tally{}
			byClass[s.Class] = c
		}
		c.n++
		hit, hitErr := false, false
		for _, f := range check(s) {
			if f.Rule == s.Class {
				hit = true
				hitErr = hitErr || f.Severity == Error
			}
		}
		if hit {
			c.found++
		} else {
			t.Logf("missed %s in %s: %q", s.Class, s.Name, excerpt(s.Src))
		}
		if hitErr {
			c.errors++
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n| class | samples | found | recall | found as error |\n|---|---|---|---|---|\n")
	for _, class := range corpus.Classes {
		c := byClass[class]
		if c == nil || c.n < 20 {
			t.Errorf("class %s: too few samples (%v)", class, c)
			continue
		}
		recall := float64(c.found) / float64(c.n)
		fmt.Fprintf(&b, "| %s | %d | %d | %.1f %% | %d |\n", class, c.n, c.found, 100*recall, c.errors)
		if recall < 0.95 {
			t.Errorf("class %s: recall %.1f %% < 95 %%", class, 100*recall)
		}
	}
	t.Log(b.String())

	// Near-misses: silent.
	near, _ := filepath.Glob("testdata/corpus/nearmiss/*/*")
	if len(near) < 5 {
		t.Fatalf("%d near-misses", len(near))
	}
	for _, p := range near {
		src, _ := os.ReadFile(p)
		for _, f := range check(corpus.Sample{Kind: filepath.Base(filepath.Dir(p)), Name: p, Src: src}) {
			t.Errorf("near-miss %s:%d:%d: %s: %s [%s]", p, f.Line, f.Col, f.Severity, f.Message, f.Rule)
		}
	}

	// Benign: no error; the warnings counted per 1,000 items.
	for _, set := range []struct {
		name    string
		samples []corpus.Sample
	}{{"realistic", real}, {"generated", synthetic}} {
		counts := map[string]int{}
		warnings := 0
		for _, s := range set.samples {
			for _, f := range check(s) {
				if f.Severity == Error {
					t.Errorf("benign %s:%d:%d: error: %s [%s]", s.Name, f.Line, f.Col, f.Message, f.Rule)
				}
				warnings++
				counts[string(f.Severity)+" "+f.Rule]++
				t.Logf("benign %s:%d:%d: %s: %s [%s]", s.Name, f.Line, f.Col, f.Severity, f.Message, f.Rule)
			}
		}
		var rules []string
		for r := range counts {
			rules = append(rules, fmt.Sprintf("%s ×%d", r, counts[r]))
		}
		sort.Strings(rules)
		t.Logf("benign (%s): %d items, %d warnings (%.1f per 1,000 items): %s", set.name, len(set.samples), warnings,
			1000*float64(warnings)/float64(len(set.samples)), strings.Join(rules, ", "))
	}
}

func excerpt(src []byte) string {
	s := string(src)
	if len(s) > 300 {
		s = "…" + s[len(s)-300:]
	}
	return s
}

// BenchmarkCheckCorpus is the per-file rules over the generated corpus
// (the items of rye lint's 100k benchmark), per item, with the metadata
// read beforehand as lint's parse analyzer does.
func BenchmarkCheckCorpus(b *testing.B) {
	_, synthetic := benignSet(b)
	metas := make([]*item.Metadata, len(synthetic))
	for i, s := range synthetic {
		metas[i], _ = item.ReadMetadata(item.Kind(s.Kind), s.Name, s.Src)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k := i % len(synthetic)
		s := synthetic[k]
		Check(&File{Kind: item.Kind(s.Kind), Name: s.Name, Src: s.Src, Meta: metas[k], MetaRead: true})
	}
}
