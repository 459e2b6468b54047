package verify

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ryekit/rye/internal/vectors"
	"github.com/ryekit/rye/item"
)

// vectorsDir holds the conformance vectors (the repository's copy of
// ../shared/vectors).
var vectorsDir = vectors.Dir()

type vectorCase struct {
	Name   string `json:"name"`
	Path   string `json:"path"`
	Kind   string `json:"kind"`
	ItemID string `json:"item_id"`
	Expect string `json:"expect"`
	File   string `json:"file"`
}

// vectorTrustStore is the trust store of the vectors: their trusted_keys folder.
func vectorTrustStore(t testing.TB) *TrustStore {
	t.Helper()
	ts, err := LoadTrustStore([]TrustSource{{Label: "project", Files: os.DirFS(filepath.Join(vectorsDir, "trusted_keys"))}})
	if err != nil {
		t.Fatal(err)
	}
	if len(ts.Keys()) != 1 || len(ts.Problems) != 0 {
		t.Fatalf("vector trust store: %d keys, problems %v", len(ts.Keys()), ts.Problems)
	}
	return ts
}

// TestVectorVerdicts: every one of the 81 cases gets exactly its expected
// verdict when verified as if it were at its path.
func TestVectorVerdicts(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(vectorsDir, "vectors.json"))
	if err != nil {
		t.Fatal(err)
	}
	var v struct{ Cases []vectorCase }
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Cases) != 81 {
		t.Fatalf("%d cases, want 81", len(v.Cases))
	}
	ts := vectorTrustStore(t)
	policy := Policy{Now: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)}
	counts := map[Verdict]int{}
	for _, c := range v.Cases {
		src, err := os.ReadFile(filepath.Join(vectorsDir, c.File))
		if err != nil {
			t.Fatal(err)
		}
		in := Input{Kind: item.Kind(c.Kind), ID: item.MustID(c.ItemID), Space: "project", Path: c.Path, Data: src}
		r := Check(in, ts, policy)
		counts[r.Verdict]++
		if string(r.Verdict) != c.Expect {
			t.Errorf("%s: %s (%s), want %s", c.Name, r.Verdict, r.Reason, c.Expect)
		}
	}
	t.Logf("verdicts: %v", counts)
}
