package verify

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"github.com/ryekit/rye/internal/atomicfile"
	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/space"
)

// LoadRequest is one call of load: rye load and the MCP server's load
// tool build one, and Load is the pipeline both run.
type LoadRequest struct {
	Spaces *space.Spaces
	Trust  *TrustStore
	Policy Policy
	Kind   item.Kind
	ID     item.ID
	// From are the spaces searched, in order (nil: all of them).
	From []*space.Space
	// To, when set, is the space (project or user) the file is copied
	// into, at the same path under .ai/.
	To *space.Space
	// Overwrite replaces a file already at the destination.
	Overwrite bool
	// CopyUnverified copies a file that does not verify (the command line,
	// whose copy has to be signed in its new space anyway). Without it,
	// such a copy is refused with the verdict.
	CopyUnverified bool
}

// Loaded is an item read once and verified: Result is the verdict of the
// very bytes in Item.
type Loaded struct {
	Loc    *space.Located
	Item   *item.Item
	Result Result
	// CopiedTo is the file written when the request had a destination.
	CopiedTo string
	// Shadows is true when the copy takes precedence over the original
	// (it went into a space searched earlier).
	Shadows bool
}

// CopyError is a copy that Load refused or could not make; the item was
// read and verified, and Load returns it along with the error.
type CopyError struct {
	Path string // the destination file
	// Exists is a destination file that is already there.
	Exists bool
	Err    error
}

func (e *CopyError) Error() string {
	if e.Exists {
		return e.Path + " already exists"
	}
	return e.Err.Error()
}

func (e *CopyError) Unwrap() error { return e.Err }

// Load resolves the item, reads it once and verifies it; with a
// destination it then copies the bytes that were verified. Errors:
// *space.NotFoundError (the item is nowhere), a read error, or a
// *CopyError with the Loaded item.
func Load(req LoadRequest) (*Loaded, error) {
	loc, err := req.Spaces.Resolve(req.Kind, req.ID, req.From)
	if err != nil {
		return nil, err
	}
	if req.To != nil && loc.Space.Name == req.To.Name {
		// Refused before reading: there is nothing to copy.
		return nil, &CopyError{Path: loc.Path(), Err: fmt.Errorf("%s %s is already in the %s space (%s)", loc.Kind, loc.ID, req.To.Name, loc.Path())}
	}
	it, err := loc.Load()
	if err != nil {
		return nil, err
	}
	in := Input{Kind: it.Kind, ID: it.ID, Space: loc.Space.Label, Path: it.Path, Embedded: loc.Space.Embedded(), Data: it.Bytes}
	l := &Loaded{Loc: loc, Item: it, Result: Check(in, req.Trust, req.Policy)}
	if req.To == nil {
		return l, nil
	}
	if l.Result.Verdict.Failed() && !req.CopyUnverified {
		return l, &CopyError{Err: fmt.Errorf("%s %s (%s) is not verified: %s: %s; not copied", it.Kind, it.ID, it.Path, l.Result.Verdict, l.Result.Reason)}
	}
	target, err := copyInto(req.To, loc.Rel, it.Bytes, req.Overwrite)
	if err != nil {
		return l, err
	}
	l.CopiedTo, l.Shadows = target, req.To.Name.Rank() > loc.Space.Name.Rank()
	return l, nil
}

// copyInto writes data at rel below sp's .ai/ folder, atomically, through
// folders that are not symbolic links.
func copyInto(sp *space.Space, rel string, data []byte, overwrite bool) (string, error) {
	target := filepath.Join(sp.AI(), filepath.FromSlash(rel))
	if _, err := os.Lstat(target); err == nil && !overwrite {
		return target, &CopyError{Path: target, Exists: true}
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return target, &CopyError{Path: target, Err: err}
	}
	rel = path.Join(space.AIDir, rel)
	if _, err := space.MkdirNoSymlinks(sp.Root, path.Dir(rel)); err != nil {
		return target, &CopyError{Path: target, Err: err}
	}
	if err := space.CheckNoSymlinks(sp.Root, rel); err != nil {
		return target, &CopyError{Path: target, Err: err}
	}
	if err := atomicfile.WriteFile(target, data, 0o644); err != nil {
		return target, &CopyError{Path: target, Err: err}
	}
	return target, nil
}
