package executor

import (
	"fmt"

	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/lockfile"
	"github.com/ryekit/rye/space"
	"github.com/ryekit/rye/verify"
)

// VerifyError is an element (or a dependency, or a library file) that did
// not verify: nothing runs.
type VerifyError struct {
	Role   string // "tool", "executor", "dependency", "library", "directive", "knowledge"
	Result verify.Result
}

func (e *VerifyError) Error() string {
	r := e.Result
	return fmt.Sprintf("%s %s (%s) is not verified: %s: %s; nothing was run", e.Role, r.ID, r.Path, r.Verdict, r.Reason)
}

// verifier reads and verifies item files for one execution. Each file is
// read once; the bytes it returns are the bytes that were verified, and
// they are the only bytes the executor uses afterwards.
type verifier struct {
	trust  *verify.TrustStore
	policy verify.Policy
	// maxDeps and maxDepBytes bound one walk of verify_deps or a library
	// folder (0: the package's bounds).
	maxDeps, maxDepBytes int
}

// depLimits are the bounds of one walk: files and their total bytes.
func (v *verifier) depLimits() (files, bytes int) {
	files, bytes = maxDeps, maxDepBytes
	if v.maxDeps > 0 {
		files = v.maxDeps
	}
	if v.maxDepBytes > 0 {
		bytes = v.maxDepBytes
	}
	return files, bytes
}

// verifiedFile is a file read once and verified, with its integrity: the
// hash its signature covers, or for an embedded file its manifest hash.
type verifiedFile struct {
	Loc       *space.Located
	Item      *item.Item
	Result    verify.Result
	Integrity string
}

// load reads the file at loc and verifies it; anything but a verified
// verdict is a *VerifyError naming role.
func (v *verifier) load(loc *space.Located, role string) (*verifiedFile, error) {
	it, err := loc.Load()
	if err != nil {
		return nil, err
	}
	return v.check(loc, it, role)
}

func (v *verifier) check(loc *space.Located, it *item.Item, role string) (*verifiedFile, error) {
	in := verify.Input{Kind: loc.Kind, ID: loc.ID, Space: loc.Space.Label, Path: loc.Path(), Embedded: loc.Space.Embedded(), Data: it.Bytes}
	if md, err := it.Metadata(); err == nil {
		in.Meta = md // parsed once: chain building reads the same parse
	}
	r := verify.Check(in, v.trust, v.policy)
	if r.Verdict != verify.Verified {
		return nil, &VerifyError{Role: role, Result: r}
	}
	integrity, err := lockfile.Integrity(loc, it.Bytes)
	if err != nil {
		r.Verdict, r.Reason = verify.Modified, err.Error()
		return nil, &VerifyError{Role: role, Result: r}
	}
	return &verifiedFile{Loc: loc, Item: it, Result: r, Integrity: integrity}, nil
}
