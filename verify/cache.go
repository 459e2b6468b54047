package verify

import (
	"crypto/hmac"
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
// verified again. An entry's key is an HMAC, under the user's cache secret
// (internal/cachedir.Secret), of everything the verdict depends on: the
// item's bytes, its kind, id and space, the exact contents of every
// trust-store file, the policy, the day (key expiry is judged by the day),
// and the rye binary (a new version may judge differently); each entry
// carries an HMAC of its key and its result. Only "verified" results are
// stored, and a hit reproduces the result without looking at the signature
// again. So a wrong, damaged, copied or forged cache file can only cost
// time: without the secret nobody can write an entry that this user's rye
// accepts, and a key that is not in the file means "verify".
type Cache struct {
	path   string
	self   string // identifies the rye binary
	secret []byte

	mu      sync.Mutex
	entries map[[32]byte]cached
	used    map[[32]byte]bool
	added   int
}

// cached is what a hit needs to rebuild the result, with its MAC.
type cached struct {
	Format      string   `json:"f,omitempty"`
	Fingerprint string   `json:"k,omitempty"`
	Owner       string   `json:"o,omitempty"`
	Line        int      `json:"l,omitempty"`
	Reason      string   `json:"r,omitempty"`
	Warnings    []string `json:"w,omitempty"`
	MAC         string   `json:"m,omitempty"`
}

const cacheMagic = "rye-verify-cache-v2\n"

// maxCacheEntries bounds the file: entries not used by the last run are
// kept only up to this many.
const maxCacheEntries = 200000

// OpenCache opens (or starts) the cache file at path, whose entries are
// authenticated with secret (at least 32 bytes). A missing or unreadable
// file is an empty cache; an entry whose MAC does not match is dropped.
func OpenCache(path string, secret []byte) *Cache {
	c := &Cache{path: path, self: selfIdentity(), secret: secret, entries: map[[32]byte]cached{}, used: map[[32]byte]bool{}}
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
		if n, err := hex.Decode(key[:], []byte(k)); err == nil && n == len(key) && hmac.Equal([]byte(v.MAC), []byte(c.mac(key, v))) {
			c.entries[key] = v
		}
	}
	return c
}

// mac authenticates an entry: its key and every field of its result.
func (c *Cache) mac(key [32]byte, e cached) string {
	e.MAC = ""
	body, _ := json.Marshal(e)
	m := hmac.New(sha256.New, c.secret)
	m.Write([]byte("entry\x00"))
	m.Write(key[:])
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
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
	m := hmac.New(sha256.New, c.secret)
	m.Write([]byte("key\x00"))
	m.Write(d.h.Sum(nil))
	var key [32]byte
	copy(key[:], m.Sum(nil))
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
	e := cached{Format: r.Format, Fingerprint: r.Fingerprint, Owner: r.Owner, Line: r.Line, Reason: r.Reason, Warnings: r.Warnings}
	e.MAC = c.mac(key, e)
	c.entries[key] = e
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
