package verify

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"sync"

	"github.com/ryekit/rye/internal/atomicfile"
)

// Cache remembers which items verified, so that an unchanged tree is not
// verified again. An entry's key is a hash of everything the verdict
// depends on: the item's bytes, its kind, id and space, the exact contents
// of every trust-store file, the policy, the day (key expiry is judged by
// the day), and the rye binary (a new version may judge differently). Only
// "verified" results are stored, and a hit reproduces the result without
// looking at the signature again. A wrong or damaged cache file can only
// cost time: a key that is not in it means "verify".
type Cache struct {
	path string
	self string // identifies the rye binary

	mu      sync.Mutex
	entries map[[32]byte]cached
	used    map[[32]byte]bool
	added   int
}

// cached is what a hit needs to rebuild the result.
type cached struct {
	Format      string   `json:"f,omitempty"`
	Fingerprint string   `json:"k,omitempty"`
	Owner       string   `json:"o,omitempty"`
	Line        int      `json:"l,omitempty"`
	Reason      string   `json:"r,omitempty"`
	Warnings    []string `json:"w,omitempty"`
}

const cacheMagic = "rye-verify-cache-v1\n"

// maxCacheEntries bounds the file: entries not used by the last run are
// kept only up to this many.
const maxCacheEntries = 200000

// OpenCache opens (or starts) the cache file at path. A missing or
// unreadable file is an empty cache.
func OpenCache(path string) *Cache {
	c := &Cache{path: path, self: selfIdentity(), entries: map[[32]byte]cached{}, used: map[[32]byte]bool{}}
	data, err := os.ReadFile(path)
	if err != nil || len(data) < len(cacheMagic) || string(data[:len(cacheMagic)]) != cacheMagic {
		return c
	}
	var stored map[string]cached
	if json.Unmarshal(data[len(cacheMagic):], &stored) != nil {
		return c
	}
	for k, v := range stored {
		var key [32]byte
		if n, err := hex.Decode(key[:], []byte(k)); err == nil && n == len(key) {
			c.entries[key] = v
		}
	}
	return c
}

// selfIdentity names the running binary by its path, size and time: two
// builds of rye never share cache entries.
func selfIdentity() string {
	exe, err := os.Executable()
	if err != nil {
		return "unknown"
	}
	info, err := os.Stat(exe)
	if err != nil {
		return exe
	}
	return exe + "\x00" + info.ModTime().UTC().String() + "\x00" + string(binary.AppendVarint(nil, info.Size()))
}

// Key computes the cache key of an item under a trust store and policy.
func (c *Cache) Key(in Input, ts *TrustStore, p Policy) [32]byte {
	d := newDigest()
	content := sha256.Sum256(in.Data)
	require := "v1-allowed"
	if p.RequireV2 {
		require = "v2-required"
	}
	d.add(cacheMagic, c.self, string(in.Kind), string(in.ID), in.Space, path.Ext(in.Path), content[:], ts.Digest(), require, p.Now.UTC().Format("2006-01-02"))
	var key [32]byte
	copy(key[:], d.h.Sum(nil))
	return key
}

// Get returns the cached result for key, rebuilt for in.
func (c *Cache) Get(key [32]byte, in Input) (Result, bool) {
	c.mu.Lock()
	e, ok := c.entries[key]
	if ok {
		c.used[key] = true
	}
	c.mu.Unlock()
	if !ok {
		return Result{}, false
	}
	return Result{Kind: in.Kind, ID: in.ID, Space: in.Space, Path: in.Path, Embedded: in.Embedded, Verdict: Verified, Format: e.Format,
		Fingerprint: e.Fingerprint, Owner: e.Owner, Line: e.Line, Reason: e.Reason, Warnings: e.Warnings}, true
}

// Put remembers a verified result.
func (c *Cache) Put(key [32]byte, r Result) {
	if r.Verdict != Verified {
		return
	}
	c.mu.Lock()
	c.entries[key] = cached{Format: r.Format, Fingerprint: r.Fingerprint, Owner: r.Owner, Line: r.Line, Reason: r.Reason, Warnings: r.Warnings}
	c.used[key] = true
	c.added++
	c.mu.Unlock()
}

// Save writes the cache when this run added to it.
func (c *Cache) Save() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.added == 0 {
		return nil
	}
	stored := make(map[string]cached, len(c.entries))
	for k, v := range c.entries {
		if c.used[k] {
			stored[hex.EncodeToString(k[:])] = v
		}
	}
	for k, v := range c.entries {
		if len(stored) >= maxCacheEntries {
			break
		}
		stored[hex.EncodeToString(k[:])] = v
	}
	data, err := json.Marshal(stored)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(c.path), 0o700); err != nil {
		return err
	}
	return atomicfile.WriteFile(c.path, append([]byte(cacheMagic), data...), 0o600)
}
