package item

import "path"

// Item is one item file: what it is, where it was found and its bytes. The
// bytes are read once and everything (hashing, verifying, parsing, running)
// works on this copy, so that what was checked is what is used.
type Item struct {
	Kind  Kind
	ID    ID
	Space string // "project", "user" or "system"
	Path  string // the file as shown to the user
	Bytes []byte
}

// Ext is the file's extension, with its dot.
func (it *Item) Ext() string { return path.Ext(it.Path) }

// Metadata reads the item's metadata from its bytes.
func (it *Item) Metadata() (*Metadata, error) {
	md, err := ReadMetadata(it.Kind, it.Path, it.Bytes)
	if e, ok := err.(*Error); ok && e.Path == "" {
		e.Path = it.Path
	}
	return md, err
}
