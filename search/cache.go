package search

import (
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
//	  varint size, varint modTime
//	  per field: uvarint length, uvarint #postings, (uvarint term, uvarint tf)...
//
// The path shown to users is not stored: it depends on the working
// directory (the project's is shown relative to it), so Open derives it
// from the space and rel. A damaged or foreign file decodes to an error and
// is rebuilt: the cache only ever saves work, it never decides anything.
var cacheMagic = []byte("RYESRCH\x03")

func (ix *Index) encode() []byte {
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
		buf = binary.AppendVarint(buf, d.size)
		buf = binary.AppendVarint(buf, d.modTime)
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
func decodeIndex(data []byte) (*Index, error) {
	if len(data) < len(cacheMagic) || string(data[:len(cacheMagic)]) != string(cacheMagic) {
		return nil, errCorrupt
	}
	d := &decoder{buf: data, text: string(data), off: len(cacheMagic)}
	ix := NewIndex()
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
		doc.size, doc.modTime = d.varint(), d.varint()
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
