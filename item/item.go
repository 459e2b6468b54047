package item

import (
	"path"
	"sync"

	"github.com/ryekit/rye/item/syntax"
)

// Item is one item file: what it is, where it was found and its bytes. The
// bytes are read once and everything (hashing, verifying, parsing, running)
// works on this copy, so that what was checked is what is used.
type Item struct {
	Kind  Kind
	ID    ID
	Space string // "project", "user" or "system"
	Path  string // the file as shown to the user
	Bytes []byte

	// parse remembers the metadata: every consumer of an item (verification's
	// location check, chain building, lint) reads the same parse of the same
	// bytes, once.
	parse struct {
		once sync.Once
		md   *Metadata
		err  error
	}
}

// Ext is the file's extension, with its dot.
func (it *Item) Ext() string { return path.Ext(it.Path) }

// Parsed records md as the metadata of the item's bytes, for a caller that
// parsed them already (lint's parse analyzer), so that Metadata does not
// parse them again. It has no effect once Metadata was called.
func (it *Item) Parsed(md *Metadata) {
	it.parse.once.Do(func() { it.parse.md = md })
}

// Metadata reads the item's metadata from its bytes, the first time it is
// asked; later calls return the same result. The bytes must not change
// after the first call.
func (it *Item) Metadata() (*Metadata, error) {
	it.parse.once.Do(func() {
		it.parse.md, it.parse.err = ReadMetadata(it.Kind, it.Path, it.Bytes)
		if e, ok := it.parse.err.(*syntax.Error); ok && e.Path == "" {
			e.Path = it.Path
		}
	})
	return it.parse.md, it.parse.err
}
