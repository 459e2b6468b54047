package verify

import (
	"github.com/ryekit/rye/internal/par"
	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/space"
)

// Source is one item to verify, not yet read: the verifier calls Read
// once, from the worker that verifies the item. Whether that reads the file
// or hands over bytes already in memory is up to the source: ChangedSince
// keeps the bytes it compared, and the CLI remembers each read so that
// rye check lints the very bytes it verified; so the bytes of every item
// may be in memory at once.
type Source struct {
	Kind     item.Kind
	ID       item.ID
	Space    string
	Path     string
	Embedded bool
	Read     func() ([]byte, error)
	// Where the item lives, for callers that look further (lint): its
	// space and its path relative to .ai/.
	In  *space.Space
	Rel string
}

// Verifier verifies many items in parallel.
type Verifier struct {
	Trust  *TrustStore
	Policy Policy
	// Cache, when set, remembers verified items (see Cache). Embedded items
	// bypass it: checking them costs nothing.
	Cache *Cache
	// Progress, when set, is called as items finish (one call at a time).
	Progress func(done, total int)
}

// Run verifies the sources on GOMAXPROCS workers and returns one result
// per source, in order.
func (v *Verifier) Run(sources []Source) []Result {
	results := make([]Result, len(sources))
	par.For(len(sources), par.CPU(), par.Counted(len(sources), func(i int) { results[i] = v.one(sources[i]) }, v.Progress))
	return results
}

func (v *Verifier) one(s Source) Result {
	in := Input{Kind: s.Kind, ID: s.ID, Space: s.Space, Path: s.Path, Embedded: s.Embedded}
	in.Data, in.ReadErr = s.Read()
	if in.ReadErr != nil || in.Embedded || v.Cache == nil {
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
