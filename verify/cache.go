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
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ryekit/rye/internal/atomicfile"
	"github.com/ryekit/rye/internal/filestat"
)

// cache remembers which items verified, so that an unchanged tree is not
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
// know its hash (StatSum). A file modified within a margin of its read
// is never remembered (git's racy-timestamp rule, with a margin for
// coarse file-system clocks), and the change time cannot be set back
// without changing the clock, so a modified file is always read again.
type cache struct {
	path   string
	self   string // identifies the rye binary
	secret []byte
	limits cacheLimits

	mu sync.Mutex
	// file is the cache file as read: its tables are searched in place
	// (a run that looks up ten items does not decode a hundred thousand).
	file     tables
	usedFile []atomic.Bool // entries of file that this run looked up
	// decoded holds each verdict's details decoded once, by offset in the
	// file (entries share their details: a tree signed by one key has a
	// handful of distinct ones).
	decoded sync.Map // uint32 → *cached
	// prefix remembers the digest of what every key of a run shares.
	prefixMu  sync.Mutex
	prefixFor prefixKey
	prefix    [32]byte
	// What this run adds: verdicts by key, stat records by path key. The
	// lookups of a run that added nothing (a warm run) take no lock:
	// putEntries and putStats count the additions.
	entries              map[[32]byte]cached
	stats                map[pathKey]statEntry
	putEntries, putStats atomic.Int64
	added                int
}

// pathKey is a stat record's key: the first 16 bytes of the SHA-256 of the
// file's path. It only says where to look: a record is used only when all
// its stat data (size, times, inode, device) are the file's, so two paths
// whose keys collide can only make one of them be read again (or, for two
// links to one inode, share the hash of the same bytes).
type pathKey [16]byte

func pathKeyOf(file string) pathKey { return pathKeyIn(file, "") }

// pathKeyIn is pathKeyOf(ai + separator + rel) for a file rel ('/'-
// separated) of the .ai folder ai (rel "": ai itself), hashed from a
// buffer on the stack, without making the path: a warm run does this for
// every file.
func pathKeyIn(ai, rel string) pathKey {
	if rel != "" && filepath.Separator != '/' {
		return pathKeyOf(ai + string(filepath.Separator) + filepath.FromSlash(rel))
	}
	var buf [512]byte
	b := append(buf[:0], ai...)
	if rel != "" {
		b = append(append(b, filepath.Separator), rel...)
	}
	h := sha256.Sum256(b) // b escapes to the heap only when over 512 bytes
	return pathKey(h[:16])
}

// cached is what a hit needs to rebuild the result.
type cached struct {
	Format, Fingerprint, Owner, Reason string
	Line                               int
	Warnings                           []string
	CopyKey                            string
}

// statEntry is what a file's stat data were when its bytes hashed to sum.
type statEntry struct {
	stat filestat.Stat
	sum  [32]byte
}

// statOf is a regular file's stat data; ok is false where they are not all
// known (outside unix: every file is then read).
func statOf(fi fs.FileInfo) (filestat.Stat, bool) {
	if !fi.Mode().IsRegular() {
		return filestat.Stat{}, false
	}
	return filestat.Of(fi)
}

// statMargin is how long before its read a file must last have changed for
// its stat data to be trusted later (git's racy rule, widened for file
// systems whose timestamps lag the clock): the default of
// cacheLimits.StatMargin.
const statMargin = 2 * time.Second

const cacheMagic = "rye-verify-cache-v7\n"

// maxCacheEntries bounds the file: entries not used by the last run are
// kept only up to this many (the default of cacheLimits.MaxEntries).
const maxCacheEntries = 200000

// cacheLimits are a cache's bounds; zero fields are the defaults
// (statMargin, maxCacheEntries). Tests shorten them.
type cacheLimits struct {
	StatMargin time.Duration
	MaxEntries int
}

func (l cacheLimits) withDefaults() cacheLimits {
	if l.StatMargin == 0 {
		l.StatMargin = statMargin
	}
	if l.MaxEntries == 0 {
		l.MaxEntries = maxCacheEntries
	}
	return l
}

// openCache opens (or starts) the cache file at path, authenticated with
// secret (at least 32 bytes). A missing, unreadable, damaged or
// unauthenticated file is an empty cache.
func openCache(path string, secret []byte) *cache {
	return openCacheWith(path, secret, cacheLimits{})
}

// openCacheWith is openCache with the cache's bounds.
func openCacheWith(path string, secret []byte, limits cacheLimits) *cache {
	c := &cache{path: path, self: selfIdentity(), secret: secret, limits: limits.withDefaults(), entries: map[[32]byte]cached{}, stats: map[pathKey]statEntry{}}
	data, err := os.ReadFile(path)
	if err != nil || len(data) < len(cacheMagic)+sha256.Size || string(data[:len(cacheMagic)]) != cacheMagic {
		return c
	}
	body, mac := data[:len(data)-sha256.Size], data[len(data)-sha256.Size:]
	if !hmac.Equal(mac, c.mac(body)) {
		return c
	}
	if t, err := parseTables(body[len(cacheMagic):], c.limits.MaxEntries); err == nil {
		c.file, c.usedFile = t, make([]atomic.Bool, t.entryCount())
	}
	return c
}

// mac is the file's HMAC under the secret.
func (c *cache) mac(body []byte) []byte {
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
func (c *cache) Key(in Input, ts *TrustStore, p Policy) [32]byte {
	return c.KeyForSum(sha256.Sum256(in.Data), in, ts, p)
}

// KeyForSum is Key for an item whose bytes hash (SHA-256) to sum: the
// SHA-256 of the digest of what every key of the run shares (the cache
// format, the rye binary, the trust store, the policy, the day; keyPrefix)
// and of the item's kind, id, space, file form and bytes' hash, each
// length-prefixed.
func (c *cache) KeyForSum(sum [32]byte, in Input, ts *TrustStore, p Policy) [32]byte {
	return c.keyer(ts, p).key(sum, in)
}

// keyer computes the keys of one trust store and policy: a verifier makes
// one per run, so that the shared prefix is not looked up per item.
type keyer [32]byte

func (c *cache) keyer(ts *TrustStore, p Policy) keyer { return keyer(c.keyPrefix(ts, p)) }

// key is KeyForSum, hashed from a buffer on the stack: this runs for every
// item of a warm run.
func (k keyer) key(sum [32]byte, in Input) [32]byte {
	var buf [256]byte
	b := append(buf[:0], k[:]...)
	part := func(s string) { b = binary.BigEndian.AppendUint64(b, uint64(len(s))); b = append(b, s...) }
	part(string(in.Kind))
	part(string(in.ID))
	part(in.Space)
	part(path.Ext(in.Path))
	b = binary.BigEndian.AppendUint64(b, uint64(len(sum)))
	b = append(b, sum[:]...)
	return sha256.Sum256(b)
}

// prefixKey is what a key prefix is computed from.
type prefixKey struct {
	ts        *TrustStore
	requireV2 bool
	year, day int
	month     time.Month
}

// keyPrefix digests what every key of a run shares, once per trust store,
// policy and day.
func (c *cache) keyPrefix(ts *TrustStore, p Policy) [32]byte {
	k := prefixKey{ts: ts, requireV2: p.RequireV2}
	k.year, k.month, k.day = p.Now.UTC().Date()
	c.prefixMu.Lock()
	defer c.prefixMu.Unlock()
	if c.prefixFor != k {
		require := "v1-allowed"
		if p.RequireV2 {
			require = "v2-required"
		}
		d := newDigest()
		d.add(cacheMagic, c.self, ts.Digest(), require, p.Now.UTC().Format("2006-01-02"))
		copy(c.prefix[:], d.h.Sum(nil))
		c.prefixFor = k
	}
	return c.prefix
}

// Get returns the cached result for key, rebuilt for in.
func (c *cache) Get(key [32]byte, in Input) (Result, bool) {
	// The file's tables do not change: they are searched without the
	// lock, by every worker at once, and each distinct record is decoded
	// once.
	e, ok := c.fileEntry(key)
	if !ok && c.putEntries.Load() > 0 {
		c.mu.Lock()
		var v cached
		if v, ok = c.entries[key]; ok {
			e = &v
		}
		c.mu.Unlock()
	}
	if !ok {
		return Result{}, false
	}
	return Result{Kind: in.Kind, ID: in.ID, Space: in.Space, Path: in.Path, Embedded: in.Embedded, Verdict: Verified, Format: e.Format,
		Fingerprint: e.Fingerprint, Owner: e.Owner, Line: e.Line, Reason: e.Reason, Warnings: e.Warnings, CopyKey: e.CopyKey}, true
}

// fileEntry looks key up in the file's verdict table and returns its
// details, decoded once per distinct record and shared (read-only: the
// warnings' slice is clipped, so that an append copies it).
func (c *cache) fileEntry(key [32]byte) (*cached, bool) {
	i, ok := c.file.findEntry(key)
	if !ok {
		return nil, false
	}
	off, rec := c.file.entryRecord(i)
	if rec == nil {
		return nil, false
	}
	if v, ok := c.decoded.Load(off); ok {
		c.usedFile[i].Store(true)
		return v.(*cached), true
	}
	e, err := decodeCached(rec)
	if err != nil {
		return nil, false
	}
	e.Warnings = slices.Clip(e.Warnings)
	v, _ := c.decoded.LoadOrStore(off, &e)
	c.usedFile[i].Store(true)
	return v.(*cached), true
}

// Put remembers a verified result.
func (c *cache) Put(key [32]byte, r Result) {
	if r.Verdict != Verified {
		return
	}
	c.mu.Lock()
	c.entries[key] = cached{Format: r.Format, Fingerprint: r.Fingerprint, Owner: r.Owner, Line: r.Line, Reason: r.Reason, Warnings: slices.Clip(r.Warnings), CopyKey: r.CopyKey}
	c.added++
	c.putEntries.Add(1)
	c.mu.Unlock()
}

// size is how many verdicts the cache holds (for the tests).
func (c *cache) size() int { return c.file.entryCount() + len(c.entries) }

// StatSum returns the hash of file's bytes when its stat data (fi, from
// lstat) are those recorded with it: then the file need not be read.
func (c *cache) StatSum(file string, fi fs.FileInfo) ([32]byte, bool) {
	st, ok := statOf(fi)
	if !ok {
		return [32]byte{}, false
	}
	return c.statSum(pathKeyOf(file), st)
}

// statSum is StatSum for stat data already read, of the file whose path
// has key h.
func (c *cache) statSum(h pathKey, st filestat.Stat) ([32]byte, bool) {
	if e, found := c.file.findStat(h, st); found {
		return e.sum, true
	}
	if c.putStats.Load() == 0 {
		return [32]byte{}, false
	}
	c.mu.Lock()
	e, found := c.stats[h]
	c.mu.Unlock()
	return e.sum, found && e.stat == st
}

// PutStat records that file, with stat data fi taken before it was read at
// readAt, hashed to sum; unless it changed within the stat margin of the read,
// when its stat data could not tell a later change in the same tick apart.
func (c *cache) PutStat(file string, fi fs.FileInfo, sum [32]byte, readAt time.Time) {
	if st, ok := statOf(fi); ok {
		c.putStat(pathKeyOf(file), st, sum, readAt)
	}
}

// putStat is PutStat for stat data already read, of the file whose path
// has key h.
func (c *cache) putStat(h pathKey, st filestat.Stat, sum [32]byte, readAt time.Time) {
	if st.Racy(readAt, c.limits.StatMargin) {
		return
	}
	if old, ok := c.file.findStat(h, st); ok && old.sum == sum {
		return
	}
	c.mu.Lock()
	if old, ok := c.stats[h]; !ok || old.stat != st || old.sum != sum {
		c.stats[h] = statEntry{stat: st, sum: sum}
		c.added++
		c.putStats.Add(1)
	}
	c.mu.Unlock()
}

// Save writes the cache when this run added to it: the verdicts this run
// used or added first, then the others up to the bound of entries; the stat
// records this run added first, then the others up to the same bound.
func (c *cache) Save() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.added == 0 {
		return nil
	}
	data := c.encodeTo([]byte(cacheMagic))
	data = append(data, c.mac(data)...)
	if err := os.MkdirAll(filepath.Dir(c.path), 0o700); err != nil {
		return err
	}
	return atomicfile.WriteFile(c.path, data, 0o600)
}

// encode merges what the file held with what this run added.
func (c *cache) encode() []byte { return c.encodeTo(nil) }

// encodeTo appends what encode returns to dst, growing it once to the
// whole size (and the MAC that Save adds): the tables of a large tree are
// megabytes, which growing by doubling copied several times over. Equal
// details are written once and shared by their entries.
func (c *cache) encodeTo(dst []byte) []byte {
	type verdict struct {
		key [32]byte
		rec []byte // the encoded cached value
	}
	n := c.file.entryCount()
	vs := make([]verdict, 0, min(len(c.entries)+n, c.limits.MaxEntries+len(c.entries)))
	for k, e := range c.entries {
		vs = append(vs, verdict{k, encodeCached(e)})
	}
	for _, used := range []bool{true, false} {
		for i := 0; i < n && len(vs) < c.limits.MaxEntries; i++ {
			if c.usedFile[i].Load() != used {
				continue
			}
			k := c.file.entryKey(i)
			if _, dup := c.entries[k]; !dup {
				if _, rec := c.file.entryRecord(i); rec != nil {
					vs = append(vs, verdict{k, rec})
				}
			}
		}
	}
	type stat struct {
		h pathKey
		e statEntry
	}
	ss := make([]stat, 0, min(len(c.stats)+c.file.statCount(), c.limits.MaxEntries+len(c.stats)))
	for h, e := range c.stats {
		ss = append(ss, stat{h, e})
	}
	for i := 0; i < c.file.statCount() && len(ss) < c.limits.MaxEntries; i++ {
		h, e := c.file.stat(i)
		if _, dup := c.stats[h]; !dup {
			ss = append(ss, stat{h, e})
		}
	}
	vs = vs[:min(len(vs), c.limits.MaxEntries)]
	slices.SortFunc(vs, func(a, b verdict) int { return bytes.Compare(a.key[:], b.key[:]) })
	slices.SortFunc(ss, func(a, b stat) int { return bytes.Compare(a.h[:], b.h[:]) })
	// The details, each distinct one once.
	offsets := map[string]uint32{}
	var blob []byte
	for _, v := range vs {
		if _, ok := offsets[string(v.rec)]; !ok {
			offsets[string(v.rec)] = uint32(len(blob))
			blob = append(blob, v.rec...)
		}
	}
	b := slices.Grow(dst, 8+len(vs)*verdictSize+len(ss)*statSize+len(blob)+sha256.Size)
	b = binary.BigEndian.AppendUint32(b, uint32(len(vs)))
	b = binary.BigEndian.AppendUint32(b, uint32(len(ss)))
	for _, v := range vs {
		b = append(b, v.key[:]...)
		b = binary.BigEndian.AppendUint32(b, offsets[string(v.rec)])
		b = binary.BigEndian.AppendUint32(b, uint32(len(v.rec)))
	}
	for _, s := range ss {
		b = append(b, s.h[:]...)
		for _, v := range []uint64{uint64(s.e.stat.Size), uint64(s.e.stat.Mtime), uint64(s.e.stat.Ctime), s.e.stat.Ino, s.e.stat.Dev} {
			b = binary.BigEndian.AppendUint64(b, v)
		}
		b = append(b, s.e.sum[:]...)
	}
	return append(b, blob...)
}

// encodeCached writes a verdict's details: lengths as uvarints.
func encodeCached(e cached) []byte {
	var b []byte
	str := func(s string) { b = binary.AppendUvarint(b, uint64(len(s))); b = append(b, s...) }
	str(e.Format)
	str(e.Fingerprint)
	str(e.Owner)
	str(e.Reason)
	b = binary.AppendUvarint(b, uint64(e.Line))
	b = binary.AppendUvarint(b, uint64(len(e.Warnings)))
	for _, w := range e.Warnings {
		str(w)
	}
	str(e.CopyKey)
	return b
}

var errDamaged = errors.New("damaged verdict cache")

// decodeCached reads what encodeCached wrote; any inconsistency is an
// error (the entry is then a miss).
func decodeCached(b []byte) (cached, error) {
	pos := 0
	num := func() (uint64, bool) {
		v, n := binary.Uvarint(b[pos:])
		if n <= 0 {
			return 0, false
		}
		pos += n
		return v, true
	}
	text := func() (string, bool) {
		n, ok := num()
		if !ok || n > uint64(len(b)-pos) {
			return "", false
		}
		s := string(b[pos : pos+int(n)])
		pos += int(n)
		return s, true
	}
	var e cached
	for _, f := range []*string{&e.Format, &e.Fingerprint, &e.Owner, &e.Reason} {
		var ok bool
		if *f, ok = text(); !ok {
			return cached{}, errDamaged
		}
	}
	line, ok := num()
	if !ok || line > 1<<20 {
		return cached{}, errDamaged
	}
	e.Line = int(line)
	nw, ok := num()
	if !ok || nw > 64 {
		return cached{}, errDamaged
	}
	for range nw {
		w, ok := text()
		if !ok {
			return cached{}, errDamaged
		}
		e.Warnings = append(e.Warnings, w)
	}
	nk, ok := num()
	if !ok || nk > 16 || nk > uint64(len(b)-pos) {
		return cached{}, errDamaged
	}
	e.CopyKey = string(b[pos : pos+int(nk)])
	pos += int(nk)
	if pos != len(b) {
		return cached{}, errDamaged
	}
	return e, nil
}

// tables is the body of a cache file, searched in place: two counts, the
// verdict table (key, offset and length of its details, sorted by key),
// the stat table (pathKey of the file's path, five 64-bit stat fields, the
// hash of its bytes; sorted by path key), then the details.
//
// Both tables are sorted by keys that are hashes, so their first 8 bytes
// are spread evenly: a directory of buckets by those bytes' leading bits
// (built when the file is read, about one entry per bucket) takes a
// lookup to its entry with one or two 64-bit comparisons, where a binary
// search compared 32-byte strings seventeen times at a hundred thousand
// entries. The whole key (and for a stat record, the stat data) is
// compared only where the leading 8 bytes are equal.
type tables struct {
	verdicts, stats, blob []byte
	vdir, sdir            bucketDir
}

const (
	verdictSize = 32 + 4 + 4
	statSize    = 16 + 5*8 + 32 // pathKey, stat data, hash
)

// parseTables checks that the sizes add up and builds the bucket
// directories; the file's HMAC has already shown that rye wrote it.
func parseTables(b []byte, maxEntries int) (tables, error) {
	if len(b) < 8 {
		return tables{}, errDamaged
	}
	nv, ns := uint64(binary.BigEndian.Uint32(b)), uint64(binary.BigEndian.Uint32(b[4:]))
	if nv > uint64(maxEntries) || ns > uint64(maxEntries) || uint64(len(b)-8) < nv*verdictSize+ns*uint64(statSize) {
		return tables{}, errDamaged
	}
	b = b[8:]
	t := tables{verdicts: b[:nv*verdictSize], stats: b[nv*verdictSize : nv*verdictSize+ns*uint64(statSize)], blob: b[nv*verdictSize+ns*uint64(statSize):]}
	t.vdir = newBucketDir(t.verdicts, verdictSize)
	t.sdir = newBucketDir(t.stats, statSize)
	return t, nil
}

// bucketDir maps the leading bits of a key to the rows whose keys start
// with them: rows first[b] to first[b+1] (exclusive) of a table sorted by
// key. In a table that is not sorted (never written by rye) a lookup may
// miss; it never reads out of bounds.
type bucketDir struct {
	first []uint32
	shift uint
}

func newBucketDir(table []byte, size int) bucketDir {
	n := len(table) / size
	bits := 0
	for 1<<bits < n {
		bits++
	}
	d := bucketDir{first: make([]uint32, 1<<bits+1), shift: uint(64 - bits)}
	j := 0
	for b := range 1 << bits {
		for j < n && d.bucket(lead(table[j*size:])) < b {
			j++
		}
		d.first[b] = uint32(j)
	}
	d.first[1<<bits] = uint32(n)
	return d
}

// lead is the first 8 bytes of a row's key.
func lead(row []byte) uint64 { return binary.BigEndian.Uint64(row) }

func (d bucketDir) bucket(k uint64) int {
	if d.shift == 64 {
		return 0
	}
	return int(k >> d.shift)
}

// find returns the first row from the key's bucket on for which match is
// true, looking only at rows whose leading 8 bytes are key's.
func (d bucketDir) find(table []byte, size int, key []byte, match func(row []byte) bool) (int, bool) {
	if len(d.first) == 0 {
		return 0, false
	}
	k := lead(key)
	b := d.bucket(k)
	for i := int(d.first[b]); i < int(d.first[b+1]); i++ {
		row := table[i*size : (i+1)*size]
		switch l := lead(row); {
		case l == k:
			if match(row) {
				return i, true
			}
		case l > k:
			return 0, false
		}
	}
	return 0, false
}

func (t tables) entryCount() int { return len(t.verdicts) / verdictSize }
func (t tables) statCount() int  { return len(t.stats) / statSize }

func (t tables) entryKey(i int) (k [32]byte) {
	copy(k[:], t.verdicts[i*verdictSize:])
	return k
}

// entryRecord is the offset and encoded details of verdict i (nil when
// they are out of bounds: a miss).
func (t tables) entryRecord(i int) (uint32, []byte) {
	r := t.verdicts[i*verdictSize+32:]
	off, n := uint64(binary.BigEndian.Uint32(r)), uint64(binary.BigEndian.Uint32(r[4:]))
	if off+n > uint64(len(t.blob)) {
		return 0, nil
	}
	return uint32(off), t.blob[off : off+n]
}

func (t tables) entry(i int) (cached, bool) {
	_, rec := t.entryRecord(i)
	e, err := decodeCached(rec)
	return e, err == nil
}

func (t tables) findEntry(key [32]byte) (int, bool) {
	return t.vdir.find(t.verdicts, verdictSize, key[:], func(row []byte) bool { return [32]byte(row[:32]) == key })
}

func (t tables) stat(i int) (h pathKey, e statEntry) {
	r := t.stats[i*statSize:]
	copy(h[:], r)
	e.stat = statAt(r)
	copy(e.sum[:], r[len(h)+5*8:])
	return h, e
}

func statAt(r []byte) filestat.Stat {
	u := func(j int) uint64 { return binary.BigEndian.Uint64(r[len(pathKey{})+8*j:]) }
	return filestat.Stat{Size: int64(u(0)), Mtime: int64(u(1)), Ctime: int64(u(2)), Ino: u(3), Dev: u(4)}
}

// findStat returns the record of path key h whose stat data are st.
func (t tables) findStat(h pathKey, st filestat.Stat) (statEntry, bool) {
	i, ok := t.sdir.find(t.stats, statSize, h[:], func(row []byte) bool { return pathKey(row[:len(h)]) == h && statAt(row) == st })
	if !ok {
		return statEntry{}, false
	}
	_, e := t.stat(i)
	return e, true
}
