package verify

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sync"
	"time"

	"github.com/ryekit/rye/internal/atomicfile"
)

// Cache remembers which items verified, so that an unchanged tree is not
// verified again. An entry's key is a hash of everything the verdict
// depends on: the item's bytes, its kind, id and space, the exact contents
// of every trust-store file, the policy, the day (key expiry is judged by
// the day), and the rye binary (a new version may judge differently). Only
// "verified" results are stored, and a hit reproduces the result without
// looking at the signature again.
//
// The file is authenticated as a whole with an HMAC under the user's cache
// secret (internal/cachedir.Secret): a file that this user's rye did not
// write (a CI cache restored from elsewhere, an edited or forged one) is
// an empty cache. So a wrong, damaged, copied or forged cache can only
// cost time.
//
// It also remembers, per file, the stat data (size, modification and
// change times, inode) it had when its bytes were hashed, like git's
// index: a file whose stat data are unchanged need not be read again to
// know its hash (StatSum). A file modified within statMargin of its read
// is never remembered (git's racy-timestamp rule, with a margin for
// coarse file-system clocks), and the change time cannot be set back
// without changing the clock, so a modified file is always read again.
type Cache struct {
	path   string
	self   string // identifies the rye binary
	secret []byte

	mu      sync.Mutex
	entries map[[32]byte]cached
	used    map[[32]byte]bool
	stats   map[string]statEntry
	added   int
}

// cached is what a hit needs to rebuild the result.
type cached struct {
	Format, Fingerprint, Owner, Reason string
	Line                               int
	Warnings                           []string
}

// statEntry is what a file's stat data were when its bytes hashed to sum.
type statEntry struct {
	stat fileStat
	sum  [32]byte
}

// fileStat is the stat data that change when a file's content does.
type fileStat struct {
	size, mtime, ctime int64 // times in nanoseconds
	ino, dev           uint64
}

// statMargin is how long before its read a file must last have changed for
// its stat data to be trusted later (git's racy rule, widened for file
// systems whose timestamps lag the clock). A variable for the tests only.
var statMargin = 2 * time.Second

const cacheMagic = "rye-verify-cache-v3\n"

// maxCacheEntries bounds the file: entries not used by the last run are
// kept only up to this many.
const maxCacheEntries = 200000

// OpenCache opens (or starts) the cache file at path, authenticated with
// secret (at least 32 bytes). A missing, unreadable, damaged or
// unauthenticated file is an empty cache.
func OpenCache(path string, secret []byte) *Cache {
	c := &Cache{path: path, self: selfIdentity(), secret: secret, entries: map[[32]byte]cached{}, used: map[[32]byte]bool{}, stats: map[string]statEntry{}}
	data, err := os.ReadFile(path)
	if err != nil || len(data) < len(cacheMagic)+sha256.Size || string(data[:len(cacheMagic)]) != cacheMagic {
		return c
	}
	body, mac := data[:len(data)-sha256.Size], data[len(data)-sha256.Size:]
	if !hmac.Equal(mac, c.mac(body)) {
		return c
	}
	if err := c.decode(body[len(cacheMagic):]); err != nil {
		c.entries, c.stats = map[[32]byte]cached{}, map[string]statEntry{}
	}
	return c
}

// mac is the file's HMAC under the secret.
func (c *Cache) mac(body []byte) []byte {
	m := hmac.New(sha256.New, c.secret)
	m.Write(body)
	return m.Sum(nil)
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
	return c.KeyForSum(sha256.Sum256(in.Data), in, ts, p)
}

// KeyForSum is Key for an item whose bytes hash (SHA-256) to sum.
func (c *Cache) KeyForSum(sum [32]byte, in Input, ts *TrustStore, p Policy) [32]byte {
	d := newDigest()
	require := "v1-allowed"
	if p.RequireV2 {
		require = "v2-required"
	}
	d.add(cacheMagic, c.self, string(in.Kind), string(in.ID), in.Space, path.Ext(in.Path), sum[:], ts.Digest(), require, p.Now.UTC().Format("2006-01-02"))
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

// StatSum returns the hash of file's bytes when its stat data (fi, from
// lstat) are those recorded with it: then the file need not be read.
func (c *Cache) StatSum(file string, fi fs.FileInfo) ([32]byte, bool) {
	st, ok := statOf(fi)
	if !ok {
		return [32]byte{}, false
	}
	c.mu.Lock()
	e, found := c.stats[file]
	c.mu.Unlock()
	return e.sum, found && e.stat == st
}

// PutStat records that file, with stat data fi taken before it was read at
// readAt, hashed to sum; unless it changed within statMargin of the read,
// when its stat data could not tell a later change in the same tick apart.
func (c *Cache) PutStat(file string, fi fs.FileInfo, sum [32]byte, readAt time.Time) {
	st, ok := statOf(fi)
	limit := readAt.Add(-statMargin).UnixNano()
	if !ok || st.mtime >= limit || st.ctime >= limit {
		return
	}
	c.mu.Lock()
	if old, ok := c.stats[file]; !ok || old.stat != st || old.sum != sum {
		c.stats[file] = statEntry{stat: st, sum: sum}
		c.added++
	}
	c.mu.Unlock()
}

// Save writes the cache when this run added to it.
func (c *Cache) Save() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.added == 0 {
		return nil
	}
	body := c.encode()
	data := append(append([]byte(cacheMagic), body...), c.mac(append([]byte(cacheMagic), body...))...)
	if err := os.MkdirAll(filepath.Dir(c.path), 0o700); err != nil {
		return err
	}
	return atomicfile.WriteFile(c.path, data, 0o600)
}

// encode writes the entries (those used by this run first, then others up
// to maxCacheEntries) and the stat table in rye's binary form: counts and
// lengths as uvarints.
func (c *Cache) encode() []byte {
	var keys [][32]byte
	for k := range c.entries {
		if c.used[k] {
			keys = append(keys, k)
		}
	}
	for k := range c.entries {
		if len(keys) >= maxCacheEntries {
			break
		}
		if !c.used[k] {
			keys = append(keys, k)
		}
	}
	var b []byte
	b = binary.AppendUvarint(b, uint64(len(keys)))
	str := func(s string) { b = binary.AppendUvarint(b, uint64(len(s))); b = append(b, s...) }
	for _, k := range keys {
		e := c.entries[k]
		b = append(b, k[:]...)
		str(e.Format)
		str(e.Fingerprint)
		str(e.Owner)
		str(e.Reason)
		b = binary.AppendUvarint(b, uint64(e.Line))
		b = binary.AppendUvarint(b, uint64(len(e.Warnings)))
		for _, w := range e.Warnings {
			str(w)
		}
	}
	n := min(len(c.stats), maxCacheEntries)
	b = binary.AppendUvarint(b, uint64(n))
	for f, e := range c.stats {
		if n == 0 {
			break
		}
		n--
		str(f)
		for _, v := range []uint64{uint64(e.stat.size), uint64(e.stat.mtime), uint64(e.stat.ctime), e.stat.ino, e.stat.dev} {
			b = binary.AppendUvarint(b, v)
		}
		b = append(b, e.sum[:]...)
	}
	return b
}

var errDamaged = errors.New("damaged verdict cache")

// decode reads what encode wrote; any inconsistency is an error (the
// caller then starts empty).
func (c *Cache) decode(b []byte) error {
	r := bytes.NewReader(b)
	num := func() (uint64, error) { return binary.ReadUvarint(r) }
	str := func() (string, error) {
		n, err := num()
		if err != nil || n > uint64(r.Len()) {
			return "", errDamaged
		}
		s := make([]byte, n)
		_, err = r.Read(s)
		return string(s), err
	}
	fixed := func(dst []byte) error {
		if n, err := r.Read(dst); err != nil || n != len(dst) {
			return errDamaged
		}
		return nil
	}
	count, err := num()
	if err != nil || count > maxCacheEntries {
		return errDamaged
	}
	for range count {
		var k [32]byte
		var e cached
		if err := fixed(k[:]); err != nil {
			return err
		}
		for _, f := range []*string{&e.Format, &e.Fingerprint, &e.Owner, &e.Reason} {
			if *f, err = str(); err != nil {
				return errDamaged
			}
		}
		line, err := num()
		if err != nil || line > 1<<20 {
			return errDamaged
		}
		e.Line = int(line)
		nw, err := num()
		if err != nil || nw > 64 {
			return errDamaged
		}
		for range nw {
			w, err := str()
			if err != nil {
				return errDamaged
			}
			e.Warnings = append(e.Warnings, w)
		}
		c.entries[k] = e
	}
	if count, err = num(); err != nil || count > maxCacheEntries {
		return errDamaged
	}
	for range count {
		f, err := str()
		if err != nil {
			return errDamaged
		}
		var v [5]uint64
		for i := range v {
			if v[i], err = num(); err != nil {
				return errDamaged
			}
		}
		e := statEntry{stat: fileStat{size: int64(v[0]), mtime: int64(v[1]), ctime: int64(v[2]), ino: v[3], dev: v[4]}}
		if err := fixed(e.sum[:]); err != nil {
			return err
		}
		c.stats[f] = e
	}
	if r.Len() != 0 {
		return errDamaged
	}
	return nil
}
