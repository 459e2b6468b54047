// Package lockfile reads, checks and writes tool lockfiles (spec 3.7):
// .ai/lockfiles/<id>@<version>.lock.json pins a tool's resolved chain,
// element by element, by the hash each element's signature covers. The
// executor refuses a tool whose chain no longer matches its lockfile and
// writes one after a first run (rye lock tool ID refreshes it); lint's
// lockfile analyzer reports the same mismatch offline, so that rye check
// says what rye execute would refuse. Both need the same reading and the
// same check, which is why they live here, below both.
package lockfile

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"time"

	"github.com/ryekit/rye/chain"
	"github.com/ryekit/rye/internal/atomicfile"
	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/sign"
	"github.com/ryekit/rye/space"
)

// formatVersion is the lockfile format rye reads and writes (the
// reference's version 1).
const formatVersion = 1

// file pins the chain of one tool version (spec 3.7), in the
// reference's format. Integrity is each element's content hash: the hash
// its signature covers (for a v1 signature the reference's own content
// hash, so that lockfiles written by the reference keep matching), or for
// an element of the embedded bundle the SHA-256 of its bytes from the
// generated manifest.
type file struct {
	LockfileVersion int     `json:"lockfile_version"`
	GeneratedAt     string  `json:"generated_at"`
	Root            root    `json:"root"`
	ResolvedChain   []entry `json:"resolved_chain"`
}

// root is the locked tool.
type root struct {
	ToolID    string `json:"tool_id"`
	Version   string `json:"version"`
	Integrity string `json:"integrity"`
}

// entry is one pinned chain element. ExecutorID is null for the
// primitive, as in the item itself.
type entry struct {
	ItemID     string  `json:"item_id"`
	Space      string  `json:"space"`
	ToolType   string  `json:"tool_type"`
	ExecutorID *string `json:"executor_id"`
	Integrity  string  `json:"integrity"`
}

// Rel is where a tool version's lockfile lives, relative to .ai/.
// The id's folders become folders, so `my/tool` 1.0.0 is
// lockfiles/my/tool@1.0.0.lock.json.
func Rel(id item.ID, version string) string {
	return "lockfiles/" + string(id) + "@" + version + ".lock.json"
}

// Found is a lockfile and where it was read.
type Found struct {
	Lock  *file
	Space *space.Space
	Path  string // as shown to users
}

// Find reads the lockfile of a tool version from the first space
// that has one (project → user → system). None anywhere is (nil, nil). A
// lockfile that is unreadable, a symbolic link, or does not parse is an
// error: a broken pin must never silently stop pinning.
func Find(ss *space.Spaces, id item.ID, version string) (*Found, error) {
	if _, err := item.ParseSemver(version); err != nil {
		return nil, nil // only semantic versions are locked (and name files)
	}
	rel := Rel(id, version)
	for _, sp := range ss.All() {
		data, err := sp.ReadFile(rel)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		shown := sp.DisplayPath(rel)
		if err != nil {
			return nil, fmt.Errorf("lockfile %s: %v", shown, err)
		}
		lock, err := parse(data)
		if err != nil {
			return nil, fmt.Errorf("lockfile %s: %v; refresh it: rye lock tool %s", shown, err, id)
		}
		if lock.Root.ToolID != string(id) || lock.Root.Version != version {
			return nil, fmt.Errorf("lockfile %s pins %s@%s, not %s@%s; refresh it: rye lock tool %s", shown, lock.Root.ToolID, lock.Root.Version, id, version, id)
		}
		return &Found{Lock: lock, Space: sp, Path: shown}, nil
	}
	return nil, nil
}

// parse decodes a lockfile and checks that it is complete: the
// version rye knows, a root, and a non-empty chain whose every element has
// an id and an integrity. Unknown fields are allowed (a newer reference
// may add some); missing ones are not.
func parse(data []byte) (*file, error) {
	var l file
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&l); err != nil {
		return nil, fmt.Errorf("not valid lockfile JSON: %v", err)
	}
	if dec.More() {
		return nil, errors.New("text after the JSON object")
	}
	switch {
	case l.LockfileVersion != formatVersion:
		return nil, fmt.Errorf("lockfile_version %d, rye reads version %d", l.LockfileVersion, formatVersion)
	case l.Root.ToolID == "" || l.Root.Integrity == "":
		return nil, errors.New("root needs tool_id and integrity")
	case len(l.ResolvedChain) == 0:
		return nil, errors.New("resolved_chain is empty")
	}
	for i, e := range l.ResolvedChain {
		if e.ItemID == "" || e.Integrity == "" {
			return nil, fmt.Errorf("resolved_chain[%d] needs item_id and integrity", i)
		}
	}
	return &l, nil
}

// MismatchError stops an execution whose chain no longer matches its
// lockfile: the element, the pinned and the current hash, and the command
// that refreshes the lock.
type MismatchError struct {
	Tool    item.ID
	Path    string // the lockfile, as shown
	Element string // item id
	What    string // what differs
	Pinned  string
	Current string
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("lockfile %s: %s %s: pinned %s, now %s; if the change is intended, refresh the lock: rye lock tool %s",
		e.Path, e.Element, e.What, e.Pinned, e.Current, e.Tool)
}

// New pins a chain whose elements have the given integrities (in
// chain order).
func New(c *chain.Chain, integrity []string, now time.Time) *file {
	l := &file{
		LockfileVersion: formatVersion,
		GeneratedAt:     now.UTC().Format(time.RFC3339),
		Root:            root{ToolID: string(c.Tool().ID()), Version: c.Tool().Version(), Integrity: integrity[0]},
	}
	for i, el := range c.Elements {
		e := entry{ItemID: string(el.ID()), Space: string(el.Space()), ToolType: el.ToolType(), Integrity: integrity[i]}
		if x := el.Executor(); x != "" {
			e.ExecutorID = &x
		}
		l.ResolvedChain = append(l.ResolvedChain, e)
	}
	return l
}

// Check compares the lockfile with a chain and its current integrities.
// The resolution must be the same (same elements, in the same spaces, in
// the same order: a project runtime that starts shadowing a system one is
// a change) and every hash must match.
func (f *Found) Check(c *chain.Chain, integrity []string) error {
	l := f.Lock
	mismatch := func(el, what, pinned, current string) error {
		return &MismatchError{Tool: c.Tool().ID(), Path: f.Path, Element: el, What: what, Pinned: pinned, Current: current}
	}
	if l.Root.Integrity != integrity[0] {
		return mismatch(string(c.Tool().ID()), "integrity", l.Root.Integrity, integrity[0])
	}
	for i, el := range c.Elements {
		if i >= len(l.ResolvedChain) {
			return mismatch(string(el.ID()), "is not in the pinned chain", "(nothing)", string(el.ID()))
		}
		e := l.ResolvedChain[i]
		switch {
		case e.ItemID != string(el.ID()):
			return mismatch(e.ItemID, fmt.Sprintf("at position %d of the chain", i+1), e.ItemID, string(el.ID()))
		case e.Space != string(el.Space()):
			return mismatch(e.ItemID, "space", e.Space, string(el.Space()))
		case e.Integrity != integrity[i]:
			return mismatch(e.ItemID, "integrity", e.Integrity, integrity[i])
		}
	}
	if len(l.ResolvedChain) > len(c.Elements) {
		extra := l.ResolvedChain[len(c.Elements)]
		return mismatch(extra.ItemID, "is pinned but no longer in the chain", extra.ItemID, "(nothing)")
	}
	return nil
}

// Marshal writes the lockfile as indented JSON with a final newline.
func (l *file) Marshal() []byte {
	data, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		panic(err) // only strings and ints: cannot fail
	}
	return append(data, '\n')
}

// Write writes the lockfile into the project space atomically and
// returns its path.
func Write(project *space.Space, l *file) (string, error) {
	if project == nil || project.Embedded() {
		return "", errors.New("no project space to write the lockfile into (run rye init, or pass -C DIR)")
	}
	id, err := item.ParseID(l.Root.ToolID)
	if err != nil {
		return "", err
	}
	if _, err := item.ParseSemver(l.Root.Version); err != nil {
		return "", fmt.Errorf("%s has version %q, not a semantic version: a lockfile pins one semantic version of a tool", id, l.Root.Version)
	}
	rel := Rel(id, l.Root.Version)
	target := filepath.Join(project.AI(), filepath.FromSlash(rel))
	if _, err := space.MkdirNoSymlinks(project.AI(), path.Dir(rel)); err != nil {
		return "", err
	}
	if err := atomicfile.WriteFile(target, l.Marshal(), 0o644); err != nil {
		return "", err
	}
	return project.DisplayPath(rel), nil
}

// Integrity is the content hash a lockfile pins for the file at loc whose
// bytes are data. For a signed file it is the hash in its signature line
// (the caller that runs the file has verified it first; lint compares what
// the line claims, since a file that does not match its line fails
// verification on its own). For a file of the embedded bundle it is the
// SHA-256 that the generated manifest records, and the bytes must hash to
// it: a binary built without regenerating the manifest fails closed.
func Integrity(loc *space.Located, data []byte) (string, error) {
	if loc.Space.Embedded() {
		want, ok := space.EmbeddedHash(loc.Rel)
		sum := sha256.Sum256(data)
		got := hex.EncodeToString(sum[:])
		if !ok || want != got {
			return "", fmt.Errorf("the embedded file %s does not match the bundle's manifest (rebuild rye after go generate ./space)", loc.Rel)
		}
		return got, nil
	}
	found := sign.Find(data, path.Ext(loc.Rel))
	if found.Status != sign.Signed {
		return "", fmt.Errorf("%s has no signature line", loc.Path())
	}
	return found.Line.Hash, nil
}
