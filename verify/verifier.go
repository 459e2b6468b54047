package verify

import (
	"runtime"
	"sync"

	"github.com/ryekit/rye/bundle"
	"github.com/ryekit/rye/item"
)

// Source is one item to verify, not yet read: Read is called once, by the
// worker that verifies it, so that each file is read exactly once and only
// a bounded number are in memory at a time.
type Source struct {
	Kind     item.Kind
	ID       item.ID
	Space    string
	Path     string
	Embedded bool
	Read     func() ([]byte, error)
	// Where the item lives, for callers that look further (lint): its
	// space and its path relative to .ai/.
	In  *bundle.Space
	Rel string
}

// Verifier verifies many items in parallel.
type Verifier struct {
	Trust  *TrustStore
	Policy Policy
	// Cache, when set, remembers verified items (see Cache).
	Cache *Cache
	// Workers bounds the pool (default GOMAXPROCS).
	Workers int
}

// Run verifies the sources and returns one result per source, in order.
func (v *Verifier) Run(sources []Source) []Result {
	results := make([]Result, len(sources))
	workers := v.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i] = v.one(sources[i])
			}
		}()
	}
	for i := range sources {
		next <- i
	}
	close(next)
	wg.Wait()
	return results
}

func (v *Verifier) one(s Source) Result {
	in := Input{Kind: s.Kind, ID: s.ID, Space: s.Space, Path: s.Path, Embedded: s.Embedded}
	in.Data, in.ReadErr = s.Read()
	if in.ReadErr != nil || v.Cache == nil {
		return Check(in, v.Trust, v.Policy)
	}
	key := v.Cache.Key(in, v.Trust, v.Policy)
	if r, ok := v.Cache.Get(key, in); ok {
		return r
	}
	r := Check(in, v.Trust, v.Policy)
	if r.Verdict == Verified {
		v.Cache.Put(key, r)
	}
	return r
}
