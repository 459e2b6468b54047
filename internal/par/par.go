// Package par is rye's one worker pool: every walk over many files (verify,
// lint, sign, search, atomic renames) runs its per-file work through For,
// so that the number of goroutines is bounded in one place.
package par

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// CPU is the worker count for work that keeps a processor busy (hashing,
// parsing, signatures): one per CPU Go may use.
func CPU() int { return runtime.GOMAXPROCS(0) }

// IO is the worker count for work that mostly waits on the file system
// (opening, reading, creating files): more than the CPUs, so that waits
// overlap.
func IO() int { return 4 * runtime.GOMAXPROCS(0) }

// For calls fn(i) for every i in [0, n) on at most workers goroutines and
// returns when all calls have returned. Indexes are handed out in order,
// one at a time, so that a slow item does not hold back a whole share.
func For(n, workers int, fn func(i int)) {
	if n <= 0 {
		return
	}
	workers = max(1, min(workers, n))
	if workers == 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				fn(i)
			}
		})
	}
	wg.Wait()
}

// Counted wraps fn, called for the indexes of [0, n), so that report(done,
// n) follows each call, one report at a time and with done increasing: a
// progress line for a walk run through For. A nil report leaves fn as it
// is.
func Counted(n int, fn func(i int), report func(done, total int)) func(i int) {
	if report == nil {
		return fn
	}
	var mu sync.Mutex
	done := 0
	return func(i int) {
		fn(i)
		mu.Lock()
		done++
		report(done, n)
		mu.Unlock()
	}
}
