package search

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"time"

	"github.com/ryekit/rye/internal/atomicfile"
	"github.com/ryekit/rye/internal/filestat"
	"github.com/ryekit/rye/internal/par"
	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/space"
)

// options control Open.
type options struct {
	// CacheDir holds the index cache ("" disables it).
	CacheDir string
	// Secret authenticates the cache file (internal/cachedir.Secret): a
	// file whose HMAC under it does not check is ignored and rebuilt. nil
	// disables the cache.
	Secret []byte
	// Extractors supply the field weights per kind (nil: defaults).
	Extractors map[item.Kind]*item.Extractor
	// racyMargin is how long before its read a file must last have changed
	// for its cached entry to be reused later (filestat.Stat.Racy); 0 is
	// the default, racyMargin. Tests that index files they have just
	// written make it tiny.
	RacyMargin time.Duration
}

// racyMargin is the default of Options.RacyMargin.
const racyMargin = 2 * time.Second

// open indexes every item of the spaces, reusing the cached entry of each
// file whose stat data (size, modification and change times, inode and
// device; filestat) are those it had when it was indexed. An entry for a
// file that changed within Options.RacyMargin of its read is never reused. An
// item found more than once (in several spaces, or in several file forms
// of one space) is indexed once, from the file that resolution would
// pick. Items whose metadata does not parse are still indexed by their
// id.
func open(spaces []*space.Space, o options) (*index, error) {
	if o.RacyMargin == 0 {
		o.RacyMargin = racyMargin
	}
	cachePath := ""
	var cached *index
	if o.CacheDir != "" && len(o.Secret) > 0 {
		cachePath = filepath.Join(o.CacheDir, cacheName(spaces))
		if data, err := os.ReadFile(cachePath); err == nil {
			if body, err := unseal(data, o.Secret); err == nil {
				cached, _ = decodeIndex(body) // a damaged cache is rebuilt
			}
		}
	}
	old := map[string]*Doc{}
	if cached != nil {
		for _, d := range cached.Docs {
			old[d.Space+"\x00"+d.rel] = d
		}
	}
	ix := newIndex()
	if cached != nil {
		// Keep the cached dictionary so that cached postings need no
		// translation; terms of deleted items linger harmlessly.
		ix.terms, ix.termIDs = cached.terms, cached.termIDs
	}
	for k, x := range o.Extractors {
		ix.Weights[k] = weightsFrom(x)
	}
	files, err := walkAll(spaces)
	if err != nil {
		return nil, err
	}
	changed := cached == nil
	for _, f := range files {
		if d := old[f.Space.Label+"\x00"+f.Rel]; d != nil && f.statOK && d.stat == f.stat {
			// The path shown depends on the working directory (the
			// project's is relative to it): it is never cached.
			d.Path = f.Path()
			ix.Docs = append(ix.Docs, d)
			continue
		}
		changed = true
		read := time.Now()
		fields, sum := fieldsOf(f.Found)
		d := &Doc{Kind: f.Kind, ID: f.ID, Space: f.Space.Label, Path: f.Path(), rel: f.Rel, sum: sum}
		if f.statOK && !f.stat.Racy(read, o.RacyMargin) {
			d.stat = f.stat // else zero: read again next time
		}
		ix.Add(d, fields)
	}
	if cached != nil && len(ix.Docs) != len(cached.Docs) {
		changed = true // items were deleted
	}
	if cachePath != "" && changed {
		// Best effort: a cache that cannot be written only costs time.
		if err := os.MkdirAll(filepath.Dir(cachePath), 0o700); err == nil {
			_ = atomicfile.WriteFile(cachePath, seal(ix.encode(), o.Secret), 0o600)
		}
	}
	return ix, nil
}

// file is an item found by walking, with its stat data; statOK is false
// when they could not be read.
type file struct {
	space.Found
	stat   filestat.Stat
	statOK bool
}

// walkAll lists the items of the spaces that resolution would pick and
// stats them, in parallel: on a tree of ten thousand items the stat calls
// are most of the time a warm search takes. An item shadowed by an earlier
// space is left out; when one space holds an item in two file forms
// (acme/x.py and acme/x.js), the one Space.Find picks (the kind's fixed
// extension order) is kept, not the first the walk met.
func walkAll(spaces []*space.Space) ([]file, error) {
	var files []file
	seen := map[string]bool{}
	for _, sp := range spaces {
		found, _, err := sp.Walk(item.Kinds)
		if err != nil {
			return nil, err
		}
		at := map[string]int{} // key -> index in files, for this space
		for _, f := range found {
			key := string(f.Kind) + "\x00" + string(f.ID)
			if i, dup := at[key]; dup {
				// Another form of an item of this space: keep what
				// resolution finds (if it finds nothing, as when a
				// symbolic link stops it, the first form stays).
				if rel, err := sp.Find(f.Kind, f.ID); err == nil && rel == f.Rel {
					files[i] = file{Found: f}
				}
				continue
			}
			if !seen[key] {
				seen[key] = true
				at[key] = len(files)
				files = append(files, file{Found: f})
			}
		}
	}
	par.For(len(files), par.CPU(), func(i int) {
		if info, err := files[i].Info(); err == nil {
			// Outside unix only the size and modification time are known;
			// Run's check of the bytes it verifies still holds there.
			files[i].stat, _ = filestat.Of(info)
			files[i].statOK = true
		}
	})
	return files, nil
}

// fieldsOf reads an item for indexing, and the SHA-256 of the bytes read;
// unreadable or unparsable items are indexed by id alone.
func fieldsOf(f space.Found) (fields, [32]byte) {
	it, err := f.Load()
	if err != nil {
		return fields{Name: f.ID.Name(), Category: f.ID.Dir()}, [32]byte{}
	}
	md, err := it.Metadata()
	if err != nil {
		md = nil
	}
	return FieldsOf(it, md), sha256.Sum256(it.Bytes)
}

// cacheName names the cache file after the set of spaces it covers.
func cacheName(spaces []*space.Space) string {
	h := sha256.New()
	for _, sp := range spaces {
		h.Write([]byte(sp.Label + "\x00" + sp.Root + "\x00"))
		if sp.Embedded() {
			h.Write([]byte(space.EmbeddedDigest()))
		}
	}
	return "search-" + hex.EncodeToString(h.Sum(nil)[:12]) + ".idx"
}
