package project

import (
	"crypto/ed25519"
	"path"
	"path/filepath"
	"time"

	"github.com/ryekit/rye/gitrepo"
	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/sign"
	"github.com/ryekit/rye/space"
	"github.com/ryekit/rye/verify"
)

// Fields of a signing setup, as a verify.RequestError names them.
const (
	FieldFormat      = "format"
	fieldSpace       = "space"
	FieldDestination = "destination"
)

// Signing says how a caller signs in a project: the space the items are
// in and the format it asks for ("" for both: the project, and the
// settings' sign.format, else the project's default: ryeos in a RyeOS
// 0.2+ project, v2 anywhere else).
type Signing struct {
	Space  string
	Format string
}

// SignRequest fills in what signing in this project depends on, for
// sign.Run: the space items are selected in (project or user), the
// working directory path patterns are relative to, the format, the time
// (SOURCE_DATE_EPOCH when set, else now) and where the extractor rules items
// are checked by before they are signed come from (read only for the kinds
// about to be signed). rye sign and the MCP server's sign
// tool both start from it; the caller adds what to sign and the key.
func (p *Project) SignRequest(s Signing) (sign.Request, error) {
	sp, err := p.Writable(s.Space)
	if err != nil {
		return sign.Request{}, verify.RequestErrorOf(fieldSpace, err)
	}
	name := s.Format
	if name == "" && p.Settings != nil {
		name = p.Settings.SignFormat()
	}
	// The default is what the project's readers read: RyeOS 0.2+ reads
	// only its own formats (spec 7.6); everything else, v2.
	format := sign.V2
	if sp.Layout().RyeOS {
		format = sign.RyeOS
	}
	if name != "" {
		if format, err = sign.ParseFormat(name); err != nil {
			return sign.Request{}, verify.RequestErrorOf(FieldFormat, err)
		}
	}
	when, err := sign.SigningTime(p.Getenv)
	if err != nil {
		return sign.Request{}, err
	}
	return sign.Request{Space: sp, WorkDir: p.WorkDir, Format: format, Time: when, Rules: p.Spaces.Extractor, Signed: p.signedBy()}, nil
}

// signedBy says whose valid signature an item carries, for sign.Request's
// Signed: the key of the project's trust store whose signature over the
// item verifies (verify.Check, the verdict rye verify gives, in any
// format: a v1 line counts whatever min_signature_version asks of
// verification), with its owner. Nothing when the project has no trust
// store.
func (p *Project) signedBy() func(sign.Target, []byte) *sign.Signature {
	ts := p.Trust
	if ts == nil {
		return nil
	}
	policy := verify.Policy{Now: p.Policy.Now}
	return func(t sign.Target, src []byte) *sign.Signature {
		in := verify.Input{Kind: t.Kind, ID: t.ID, Path: t.Display, Data: src}
		if t.Space != nil {
			in.Space = t.Space.Label
		}
		r := verify.Check(in, ts, policy)
		found := sign.Find(src, path.Ext(t.Display))
		k := ts.Lookup(r.Fingerprint)
		if r.Verdict != verify.Verified || k == nil || found.Line == nil {
			return nil
		}
		return &sign.Signature{Format: found.Line.Format, Fingerprint: r.Fingerprint, Owner: k.Owner, Public: k.Public}
	}
}

// changedSince narrows a signing run in space sp to the items whose bytes
// differ from git commit ref (rye sign --changed-since), for
// sign.Request.Changed.
func changedSince(sp *space.Space, ref string) func([]space.Found) ([]space.Found, error) {
	return func(items []space.Found) ([]space.Found, error) {
		repo, prefix, err := gitrepo.OpenAt(sp.Root)
		if err != nil {
			return nil, verify.RequestErrorOf(verify.FieldChangedSince, err)
		}
		cands := gitrepo.Candidates{
			Rels: make([]string, len(items)),
			Read: func(i int) ([]byte, error) { return items[i].Space.ReadFile(items[i].Rel) },
			File: func(i int) string { return filepath.Join(items[i].Space.AI(), filepath.FromSlash(items[i].Rel)) },
		}
		for i, f := range items {
			cands.Rels[i] = f.Rel
		}
		changed, _, err := repo.ChangedSince(ref, path.Join(prefix, space.AIDir), cands, true)
		if err != nil {
			return nil, verify.RequestErrorOf(verify.FieldChangedSince, err)
		}
		out := make([]space.Found, len(changed))
		for i, c := range changed {
			out[i] = items[c.Index]
		}
		return out, nil
	}
}

// SignRun is a signing run over the projects of a run (OpenRun), as rye
// sign makes one.
type SignRun struct {
	Signing
	Kinds         []item.Kind // nil: every kind
	Force, DryRun bool
	// changedSince signs only the selected items whose bytes differ from
	// this git commit's.
	ChangedSince string
	// FromChange says the patterns are a change's file list (sign.Request).
	FromChange bool
	// Key returns the signing key; it is asked for once, and only when
	// something needs signing (never for a dry run).
	Key func() (*sign.Key, error)
	// PublicKey returns the key's public half without a passphrase, when
	// it can (sign.Request.PublicKey).
	PublicKey func() (ed25519.PublicKey, error)
	// ReplaceOthers replaces the valid signatures of other trusted
	// signers; without it their items are kept (sign.Request).
	ReplaceOthers bool
	Progress      func(done, total int)
	// AllowContent signs items with error-level content findings
	// (sign.Request.AllowContent).
	AllowContent bool
}

// signed is a finished signing run.
type signed struct {
	Key         *sign.Key   // nil when nothing needed the key
	Fingerprint string      // the signer's key, when known (from the key or its public half)
	Format      sign.Format // the first project's
	Selected    int         // items the patterns selected, before changedSince
	Skipped     []string    // paths given that name no item
	Results     []sign.Result
}

// Sign signs in each part in turn (file paths in several projects, as
// pre-commit passes them from a repository's root, sign each in its own
// project), each in its project's format and checked by its extractor
// rules, all at one time.
func Sign(parts []Part, o SignRun) (*signed, error) {
	out := &signed{}
	var pub ed25519.PublicKey
	public := func() (ed25519.PublicKey, error) {
		if pub == nil && o.PublicKey != nil {
			k, err := o.PublicKey()
			if err != nil {
				return nil, err
			}
			pub = k
		}
		return pub, nil
	}
	key := func() (*sign.Key, error) {
		if out.Key == nil {
			k, err := o.Key()
			if err != nil {
				return nil, err
			}
			out.Key = k
		}
		return out.Key, nil
	}
	var when time.Time
	for i, p := range parts {
		req, err := p.SignRequest(o.Signing)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			out.Format, when = req.Format, req.Time
		}
		req.Kinds, req.Patterns, req.Time, req.Key, req.PublicKey, req.ReplaceOthers = o.Kinds, p.Patterns, when, key, public, o.ReplaceOthers
		req.Force, req.DryRun, req.Progress, req.FromChange, req.AllowContent = o.Force, o.DryRun, o.Progress, o.FromChange, o.AllowContent
		if o.ChangedSince != "" {
			req.Changed = changedSince(req.Space, o.ChangedSince)
		}
		res, err := sign.Run(req)
		if err != nil {
			return nil, err
		}
		out.Selected += res.Selected
		out.Skipped = append(out.Skipped, res.Skipped...)
		out.Results = append(out.Results, res.Results...)
	}
	switch {
	case out.Key != nil:
		out.Fingerprint = out.Key.Fingerprint
	case pub != nil:
		out.Fingerprint = sign.Fingerprint(pub)
	}
	return out, nil
}
