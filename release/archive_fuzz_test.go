package release

import (
	"archive/tar"
	"strings"
	"testing"
	"time"

	"github.com/ryekit/rye/verify"
)

// FuzzReadArchive: any bytes either are refused or give files that all
// pass the path checks, once each, within the limits; checking them as a
// bundle never panics either.
func FuzzReadArchive(f *testing.F) {
	p := newProject(f)
	good := p.create(f).Archive
	f.Add(good)
	f.Add(build(f, []entry{reg(".ai/tools/a/b.sh", []byte("x")), reg(".ai/tools/a/B.sh", []byte("y"))}))
	f.Add(build(f, []entry{{h: tar.Header{Typeflag: tar.TypeSymlink, Name: ".ai/x", Linkname: "/etc"}}}))
	f.Add(build(f, []entry{reg("../x", []byte("x"))}))
	f.Add([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff})
	small := limits{MaxCompressed: 1 << 20, MaxEntry: 64 << 10, MaxTotal: 1 << 20, MaxEntries: 100}
	policy := verify.Policy{Now: time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)}
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := ReadArchive(data, small)
		if err != nil {
			return
		}
		seen := map[string]bool{}
		var total int64
		for _, file := range a.Files {
			if reason := checkEntryName(file.Path); reason != "" {
				t.Fatalf("accepted %q: %s", file.Path, reason)
			}
			low := strings.ToLower(file.Path)
			if seen[low] {
				t.Fatalf("accepted %q twice (case-folded)", file.Path)
			}
			seen[low] = true
			if int64(len(file.Data)) > small.MaxEntry {
				t.Fatalf("accepted %d bytes", len(file.Data))
			}
			total += int64(len(file.Data))
		}
		if total > small.MaxTotal || len(a.Files) > small.MaxEntries {
			t.Fatalf("accepted %d bytes in %d files", total, len(a.Files))
		}
		check(data, p.trust, policy, small)
	})
}
