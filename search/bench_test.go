package search

import (
	"testing"
	"time"

	"github.com/ryekit/rye/internal/corpus"
	"github.com/ryekit/rye/space"
)

// benchSpaces generates a 10,000-item project once per benchmark.
func benchSpaces(b *testing.B) []*space.Space {
	b.Helper()
	root := b.TempDir()
	if err := corpus.Generate(root, 10000, 42); err != nil {
		b.Fatal(err)
	}
	return []*space.Space{space.NewDiskSpace(space.Project, root, ""), space.EmbeddedSpace()}
}

// BenchmarkSearch10kWarm is what `rye search` costs on a tree of 10,000
// items whose index cache is current: walk and stat every file, load the
// cache, rank.
func BenchmarkSearch10kWarm(b *testing.B) {
	spaces := benchSpaces(b)
	cache := b.TempDir()
	if _, err := open(spaces, options{CacheDir: cache, Secret: testSecret, RacyMargin: time.Nanosecond}); err != nil {
		b.Fatal(err)
	}
	sc, _ := parseScope("all")
	b.ResetTimer()
	for b.Loop() {
		ix, err := open(spaces, options{CacheDir: cache, Secret: testSecret, RacyMargin: time.Nanosecond})
		if err != nil {
			b.Fatal(err)
		}
		if rs, _ := ix.Search(sc, "deploy verify", 10); len(rs) == 0 {
			b.Fatal("no results")
		}
	}
}

// BenchmarkSearch10kCold builds the index from scratch (no cache): every
// item read and parsed.
func BenchmarkSearch10kCold(b *testing.B) {
	spaces := benchSpaces(b)
	sc, _ := parseScope("all")
	b.ResetTimer()
	for b.Loop() {
		ix, err := open(spaces, options{})
		if err != nil {
			b.Fatal(err)
		}
		ix.Search(sc, "deploy verify", 10)
	}
}

// BenchmarkQuery10k is the ranking alone, on an index in memory.
func BenchmarkQuery10k(b *testing.B) {
	ix, err := open(benchSpaces(b), options{})
	if err != nil {
		b.Fatal(err)
	}
	sc, _ := parseScope("all")
	b.ResetTimer()
	for b.Loop() {
		ix.Search(sc, "deploy verify token", 10)
	}
}
