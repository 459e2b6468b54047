package verify

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
)

// digest hashes a sequence of (label, name, bytes) unambiguously: every
// part is length-prefixed.
type digest struct{ h hash.Hash }

func newDigest() *digest { return &digest{h: sha256.New()} }

func (d *digest) add(parts ...any) {
	for _, p := range parts {
		var b []byte
		switch x := p.(type) {
		case string:
			b = []byte(x)
		case []byte:
			b = x
		}
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(b)))
		d.h.Write(n[:])
		d.h.Write(b)
	}
}

func (d *digest) sum() string { return hex.EncodeToString(d.h.Sum(nil)) }
