package lint

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/space"
	"github.com/ryekit/rye/verify"
)

// TestCheckInChunks: rye check lints each chunk as it is verified; with
// one file a chunk, its findings are those of one chunk for everything, and
// those of rye lint over the same tree (less the signature verdicts, which
// are verification's).
func TestCheckInChunks(t *testing.T) {
	dirs, _ := filepath.Glob("testdata/src/*/*")
	if len(dirs) == 0 {
		t.Fatal("no test trees")
	}
	for _, dir := range dirs {
		sp := space.NewDiskSpace(space.Project, dir, "")
		sp.Shown = "."
		ss := &space.Spaces{Project: sp, System: []*space.Space{space.EmbeddedSpace()}}
		ts, _, err := verify.LoadTrust(ss, verify.TrustOptions{})
		if err != nil {
			t.Fatal(err)
		}
		check := func(chunk int) string {
			t.Helper()
			res, err := Check(CheckRequest{Verify: verify.Request{Spaces: ss, Trust: ts, Policy: verify.Policy{Now: time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)}}, Options: options{chunkSize: chunk}})
			if err != nil {
				t.Fatalf("%s: %v", dir, err)
			}
			return renderFindings(res.Lint.Findings)
		}
		whole := check(0)
		if got := check(1); got != whole {
			t.Errorf("%s: one file a chunk:\n%s\nall at once:\n%s", dir, got, whole)
		}
		e, err := load(ss, sp, item.Kinds, nil, dir)
		if err != nil {
			t.Fatal(err)
		}
		lint, err := lint(e, options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := renderFindings(lint.Findings); got != whole {
			t.Errorf("%s: rye lint:\n%s\nrye check:\n%s", dir, got, whole)
		}
	}
}
