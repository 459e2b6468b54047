package par

import (
	"sync/atomic"
	"testing"
)

// Every index is visited exactly once, and never by more than the allowed
// number of goroutines at a time.
func TestForVisitsEachIndexOnceWithinTheBound(t *testing.T) {
	for _, c := range []struct{ n, workers int }{{0, 4}, {1, 4}, {7, 1}, {100, 3}, {1000, 16}, {5, 0}} {
		seen := make([]atomic.Int32, c.n)
		var running, most atomic.Int32
		For(c.n, c.workers, func(i int) {
			r := running.Add(1)
			for {
				m := most.Load()
				if r <= m || most.CompareAndSwap(m, r) {
					break
				}
			}
			seen[i].Add(1)
			running.Add(-1)
		})
		for i := range seen {
			if got := seen[i].Load(); got != 1 {
				t.Fatalf("n=%d workers=%d: index %d visited %d times", c.n, c.workers, i, got)
			}
		}
		if bound := int32(max(1, c.workers)); most.Load() > bound {
			t.Errorf("n=%d workers=%d: %d calls at once", c.n, c.workers, most.Load())
		}
	}
}

// Counted reports once per call, in increasing order, from several
// goroutines at once.
func TestCountedReportsEachCallInOrder(t *testing.T) {
	var calls atomic.Int64
	var seen []int
	fn := Counted(500, func(int) { calls.Add(1) }, func(done, total int) {
		if total != 500 {
			t.Errorf("total %d", total)
		}
		seen = append(seen, done) // Counted serialises reports
	})
	For(500, 8, fn)
	if calls.Load() != 500 || len(seen) != 500 {
		t.Fatalf("%d calls, %d reports", calls.Load(), len(seen))
	}
	for i, d := range seen {
		if d != i+1 {
			t.Fatalf("report %d says %d", i, d)
		}
	}
	if f := func(int) {}; Counted(1, f, nil) == nil {
		t.Error("nil report")
	}
}
