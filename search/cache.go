package search

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"math"

	"github.com/ryekit/rye/item"
)

// The cache file holds the term dictionary and every document with its
// postings, in a compact binary form that loads in a few milliseconds for
// ten thousand items (gob or JSON of the same data take ten times longer).
//
//	"RYESRCH" version
//	uvarint #terms, then each term as uvarint length + bytes
//	uvarint #docs, then each doc:
//	  strings: kind id space rel name title description category
//	  varint size, mtime, ctime; uvarint ino, dev; 32 bytes: SHA-256 of the bytes indexed
//	  per field: uvarint length, uvarint #postings, (uvarint term, uvarint tf)...
//	32 bytes: HMAC-SHA256 of all the above under the user's cache secret
//
// The path shown to users is not stored: it depends on the working
// directory (the project's is shown relative to it), so Open derives it
// from the space and rel. A file this user's rye did not write (its HMAC
// does not check: a restored CI cache, one edited or planted by someone
// else), a damaged or a foreign one, is rebuilt: the cache only ever saves
// work. What it holds is never shown as an item's words next to a verdict
// either: Run reads the words of a result from the bytes it verifies.
var cacheMagic = []byte("RYESRCH\x04")

// seal appends the HMAC of body under secret.
func seal(body, secret []byte) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write(body)
	return m.Sum(body)
}

// unseal returns the body of a sealed file, or an error when its HMAC
// under secret does not check.
func unseal(data, secret []byte) ([]byte, error) {
	if len(data) < sha256.Size {
		return nil, errCorrupt
	}
	body := data[:len(data)-sha256.Size]
	m := hmac.New(sha256.New, secret)
	m.Write(body)
	if !hmac.Equal(m.Sum(nil), data[len(body):]) {
		return nil, errCorrupt
	}
	return body, nil
}

func (ix *index) encode() []byte {
	buf := append([]byte(nil), cacheMagic...)
	buf = binary.AppendUvarint(buf, uint64(len(ix.terms)))
	for _, t := range ix.terms {
		buf = appendString(buf, t)
	}
	buf = binary.AppendUvarint(buf, uint64(len(ix.Docs)))
	for _, d := range ix.Docs {
		for _, s := range []string{string(d.Kind), string(d.ID), d.Space, d.rel, d.Name, d.Title, d.Description, d.Category} {
			buf = appendString(buf, s)
		}
		buf = binary.AppendVarint(buf, d.stat.Size)
		buf = binary.AppendVarint(buf, d.stat.Mtime)
		buf = binary.AppendVarint(buf, d.stat.Ctime)
		buf = binary.AppendUvarint(buf, d.stat.Ino)
		buf = binary.AppendUvarint(buf, d.stat.Dev)
		buf = append(buf, d.sum[:]...)
		for f := 0; f < numFields; f++ {
			buf = binary.AppendUvarint(buf, uint64(d.lengths[f]))
			buf = binary.AppendUvarint(buf, uint64(len(d.postings[f])))
			for _, p := range d.postings[f] {
				buf = binary.AppendUvarint(buf, uint64(p.term))
				buf = binary.AppendUvarint(buf, uint64(p.tf))
			}
		}
	}
	return buf
}

func appendString(buf []byte, s string) []byte {
	buf = binary.AppendUvarint(buf, uint64(len(s)))
	return append(buf, s...)
}

var errCorrupt = errors.New("search cache is damaged")

// decoder reads the cache. Strings are slices of one copy of the file
// (text), and postings slices of one array, so that decoding ten thousand
// documents costs a handful of allocations rather than a hundred thousand.
type decoder struct {
	buf  []byte
	text string
	off  int
	err  error
}

func (d *decoder) uvarint(max uint64) uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.buf[d.off:])
	if n <= 0 || v > max {
		d.err = errCorrupt
		return 0
	}
	d.off += n
	return v
}

func (d *decoder) varint() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.buf[d.off:])
	if n <= 0 {
		d.err = errCorrupt
		return 0
	}
	d.off += n
	return v
}

func (d *decoder) left() int { return len(d.buf) - d.off }

// bytes fills dst with the next len(dst) bytes.
func (d *decoder) bytes(dst []byte) {
	if d.err == nil && d.left() < len(dst) {
		d.err = errCorrupt
	}
	if d.err != nil {
		return
	}
	d.off += copy(dst, d.buf[d.off:])
}

func (d *decoder) string() string {
	n := d.uvarint(math.MaxInt32)
	if d.err == nil && n > uint64(d.left()) {
		d.err = errCorrupt
	}
	if d.err != nil {
		return ""
	}
	s := d.text[d.off : d.off+int(n)]
	d.off += int(n)
	return s
}

// decodeIndex reads a cache file. Every count is checked against the bytes
// left, so a hostile file cannot make it allocate more than its own size.
func decodeIndex(data []byte) (*index, error) {
	if len(data) < len(cacheMagic) || string(data[:len(cacheMagic)]) != string(cacheMagic) {
		return nil, errCorrupt
	}
	d := &decoder{buf: data, text: string(data), off: len(cacheMagic)}
	ix := newIndex()
	nterms := d.uvarint(uint64(d.left()))
	ix.terms = make([]string, 0, nterms)
	for i := uint64(0); i < nterms && d.err == nil; i++ {
		t := d.string()
		ix.termIDs[t] = uint32(len(ix.terms))
		ix.terms = append(ix.terms, t)
	}
	ndocs := d.uvarint(uint64(d.left()))
	docs := make([]Doc, ndocs)
	var pool []posting // every document's postings, sliced
	for i := range docs {
		if d.err != nil {
			break
		}
		doc := &docs[i]
		doc.Kind = item.Kind(d.string())
		doc.ID = item.ID(d.string())
		doc.Space, doc.rel = d.string(), d.string()
		doc.Name, doc.Title, doc.Description, doc.Category = d.string(), d.string(), d.string(), d.string()
		doc.stat.Size, doc.stat.Mtime, doc.stat.Ctime = d.varint(), d.varint(), d.varint()
		doc.stat.Ino, doc.stat.Dev = d.uvarint(math.MaxUint64), d.uvarint(math.MaxUint64)
		d.bytes(doc.sum[:])
		for f := 0; f < numFields && d.err == nil; f++ {
			doc.lengths[f] = uint32(d.uvarint(math.MaxUint32))
			np := d.uvarint(uint64(d.left()))
			start := len(pool)
			for j := uint64(0); j < np && d.err == nil; j++ {
				t := d.uvarint(math.MaxUint32)
				tf := d.uvarint(math.MaxUint32)
				if t >= nterms {
					d.err = errCorrupt
				}
				pool = append(pool, posting{uint32(t), uint32(tf)})
			}
			doc.postings[f] = pool[start:len(pool):len(pool)]
		}
		if !doc.Kind.Valid() {
			d.err = errCorrupt
		}
		ix.Docs = append(ix.Docs, doc)
	}
	if d.err == nil && d.left() != 0 {
		d.err = errCorrupt
	}
	if d.err != nil {
		return nil, d.err
	}
	return ix, nil
}
