package verify

import (
	"crypto/sha256"
	"path/filepath"
	"time"

	"github.com/ryekit/rye/internal/filestat"
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
	// Read reads the item's bytes; nil reads the file Rel of space In
	// (Bytes).
	Read func() ([]byte, error)
	// Where the item lives, for callers that look further (lint): its
	// space and its path relative to .ai/.
	In  *space.Space
	Rel string
	// OnDisk is set when the item's bytes are those of its space's file
	// (not git's): the verdict cache may then know its hash from the
	// file's stat data without reading it (Cache.StatSum). A flag, not the
	// path, which DiskFile builds when asked: a hundred thousand paths
	// held for a whole run were 8 MB.
	OnDisk bool
	// Symlink is set for a symbolic link named like an item (its Read
	// fails with space.ErrSymlink), so that a later stage knows it without
	// reading.
	Symlink bool
}

// DiskFile is the path of the item's file when its bytes are read from
// there (OnDisk), else "".
func (s Source) DiskFile() string {
	if !s.OnDisk || s.In == nil {
		return ""
	}
	return s.In.AI() + string(filepath.Separator) + filepath.FromSlash(s.Rel) // Rel is clean: no Join
}

// Bytes reads the source's bytes: with Read, or from its space's file.
func (s Source) Bytes() ([]byte, error) {
	if s.Read != nil {
		return s.Read()
	}
	return s.In.ReadFile(s.Rel)
}

// verifier verifies many items in parallel.
type verifier struct {
	Trust  *TrustStore
	Policy Policy
	// Cache, when set, remembers verified items (see Cache). Embedded items
	// bypass it: checking them costs nothing.
	Cache *cache
	// Progress, when set, is called as items finish (one call at a time).
	Progress func(done, total int)
	// ReadEvery makes every item read and hashed, never known by its stat
	// data: set when a later stage reads the sources again (lint in rye
	// check), which must see the very bytes a verdict is about. A file
	// known by its stat data would be read for the first time by that
	// stage, after its verdict, and could have changed in between.
	ReadEvery bool
}

// Run verifies the sources on GOMAXPROCS workers and returns one result
// per source, in order.
func (v *verifier) Run(sources []Source) []Result {
	results := make([]Result, len(sources))
	var keys keyer
	if v.Cache != nil {
		keys = v.Cache.keyer(v.Trust, v.Policy)
	}
	par.For(len(sources), par.CPU(), par.Counted(len(sources), func(i int) { results[i] = v.one(sources[i], keys) }, v.Progress))
	return results
}

// runChunks verifies sources size at a time, in order: before each chunk
// is verified, prepare (when set) may change its sources; after, done gets
// its results. Progress counts over all the sources. An error from done
// ends the run.
func (v *verifier) runChunks(sources []Source, size int, prepare func(chunk []Source), done func(first int, chunk []Source, results []Result) error) error {
	total := len(sources)
	progress := v.Progress
	defer func() { v.Progress = progress }()
	for first := 0; first < total; first += size {
		chunk := sources[first:min(first+size, total)]
		if prepare != nil {
			prepare(chunk)
		}
		if progress != nil {
			at := first
			v.Progress = func(n, _ int) { progress(at+n, total) }
		}
		if err := done(first, chunk, v.Run(chunk)); err != nil {
			return err
		}
	}
	return nil
}

// one verifies one source; keys are the cache's keys of this run's trust
// store and policy.
func (v *verifier) one(s Source, keys keyer) Result {
	in := Input{Kind: s.Kind, ID: s.ID, Space: s.Space, Path: s.Path, Embedded: s.Embedded}
	if in.Embedded || v.Cache == nil {
		in.Data, in.ReadErr = s.Bytes()
		return Check(in, v.Trust, v.Policy)
	}
	// The warm path: a file whose stat data are those recorded with its
	// hash is not read; its verdict is looked up by that hash. It
	// allocates nothing per item but the C string of the file's path
	// below .ai/.
	var st filestat.Stat
	var at pathKey // the stat record's key: the file's path, hashed
	known := false // st holds the file's complete stat data
	if s.OnDisk && s.In != nil {
		if stat, regular, complete, err := s.In.StatData(s.Rel); err == nil && regular && complete {
			st, at, known = stat, pathKeyIn(s.In.AI(), s.Rel), true
			// A run that reads every item (ReadEvery) judges the bytes read,
			// never a hash the stat data vouch for.
			if !v.ReadEvery {
				if sum, ok := v.Cache.statSum(at, st); ok {
					if r, ok := v.Cache.Get(keys.key(sum, in), in); ok {
						return r
					}
				}
			}
		}
	}
	readAt := time.Now()
	in.Data, in.ReadErr = s.Bytes()
	if in.ReadErr != nil {
		return Check(in, v.Trust, v.Policy)
	}
	sum := sha256.Sum256(in.Data)
	if known {
		v.Cache.putStat(at, st, sum, readAt)
	}
	key := keys.key(sum, in)
	if r, ok := v.Cache.Get(key, in); ok {
		return r
	}
	r := Check(in, v.Trust, v.Policy)
	if r.Verdict == Verified {
		v.Cache.Put(key, r)
	}
	return r
}
