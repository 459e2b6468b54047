package sign

import (
	"crypto/ed25519"
	"errors"
	"strings"
	"time"

	"github.com/ryekit/rye/internal/par"
	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/space"
)

// Request is one call of sign: rye sign and the MCP server's sign tool
// build one, and Run is the pipeline both run.
type Request struct {
	// Space is where the items are selected and rewritten: the project or
	// the user space.
	Space    *space.Space
	Kinds    []item.Kind // nil: every kind
	Patterns []string    // ids, globs or file paths (space.Select)
	WorkDir  string      // path patterns are relative to it
	// Key returns the signing key. It is called only when there is
	// something to sign, and never for a dry run, so that a commit that
	// touches no item never asks for a passphrase.
	Key func() (*Key, error)
	// PublicKey returns the signing key's public half without asking for
	// a passphrase (public_key.pem beside the key, an OpenSSH key's clear
	// half, a .pub file: SigningPublicKey). It tells the items already
	// signed by the key without loading it. An error that is an
	// Unavailable *KeyError (no key, or none readable without its
	// passphrase) leaves the key to decide, loaded if something needs
	// signing; any other error stops the run.
	PublicKey func() (ed25519.PublicKey, error)
	// Signed, when set, says whose valid signature an item carries: the
	// trusted key whose signature over it verifies, in any format, or nil.
	// Another signer's item is kept as it is and reported, unless
	// ReplaceOthers.
	Signed        func(t Target, src []byte) *Signature
	ReplaceOthers bool
	Format        Format // 0 is V2
	Time          time.Time
	Force         bool // re-sign items that are already validly signed
	DryRun        bool // compute, write nothing
	// AllowContent signs items with error-level content findings
	// (Batch.AllowContent); the MCP server never sets it.
	AllowContent bool
	// Rules gives the rules that check an item's metadata before it is
	// signed (spec 1.7), for its kind (Spaces.Extractor); an item that
	// breaks one is refused with the reason. Run asks only for the kinds
	// of the items it is about to sign, once each, so that signing one
	// tool reads and parses the tools' rules alone; an error (rules that
	// do not resolve or parse) stops the run before anything is written.
	// nil signs without checking.
	Rules func(item.Kind) (*item.Extractor, error)
	// Changed, when set, narrows the selection to the items to sign (rye
	// sign --changed-since keeps those whose bytes differ from a commit).
	Changed func([]space.Found) ([]space.Found, error)
	// Progress, when set, is called as items finish (Batch.Progress).
	Progress func(done, total int)
	// FromChange says the patterns are a change's file list (the rye-sign
	// pre-commit hook's): a path that is not an item is skipped, as with
	// Changed; otherwise it is an error (space.Selection.NotItems).
	FromChange bool
}

// Outcomes are what a finished Request did.
type Outcomes struct {
	// Key is the key that signed, nil when there was nothing to sign.
	Key *Key
	// Fingerprint is the signer's key, when known: the key's, else its
	// public half's (PublicKey).
	Fingerprint string
	// Selected counts the items the patterns selected, before Changed.
	Selected int
	// Skipped are the paths given that name files which are not items.
	Skipped []string
	// Results has one entry per item signed, left alone or refused.
	Results []Result
}

// Run selects the items (space.Select; symbolic links named like items
// are kept, for the signer to refuse with the reason), narrows them with
// Changed, and judges each without the private key: already signed by the
// signer's key (PublicKey) in the format asked for, unchanged; validly
// signed by another trusted key (Signed), kept unless ReplaceOthers. Only
// when something is left to sign is the key loaded (never for a dry run),
// and those items are signed as one Batch. Errors are the request's: a
// pattern that matches nothing, Changed's, the key's; what happens to each
// item is in its Result.
func Run(req Request) (*Outcomes, error) {
	// nil: every kind of the space's layout (space.Walk).
	sel, err := space.Select(req.Space, req.Kinds, req.Patterns, req.WorkDir)
	if err != nil {
		return nil, err
	}
	if !req.FromChange && req.Changed == nil {
		if err := sel.NotItems(); err != nil {
			return nil, err
		}
	}
	items := append([]space.Found(nil), sel.Items...)
	for _, l := range sel.Links {
		items = append(items, space.Found{Space: l.Space, Kind: l.Kind, ID: l.ID, Rel: l.Rel})
	}
	out := &Outcomes{Selected: len(items), Skipped: sel.Skipped}
	if len(items) > 0 && req.Changed != nil {
		if items, err = req.Changed(items); err != nil {
			return nil, err
		}
	}
	if len(items) == 0 {
		return out, nil
	}
	format := req.Format
	if format == 0 {
		format = V2
	}
	targets := make([]Target, len(items))
	for i, f := range items {
		targets[i] = Target{Kind: f.Kind, ID: f.ID, Space: f.Space, Rel: f.Rel, Display: f.Path()}
	}

	// What each item needs, judged without the private key.
	var pub ed25519.PublicKey
	var pubErr error
	if req.PublicKey != nil {
		var ke *KeyError
		if pub, pubErr = req.PublicKey(); pubErr != nil && !(errors.As(pubErr, &ke) && ke.Unavailable) {
			return nil, pubErr // a key file that cannot sign: say so now
		}
	}
	results := make([]Result, len(targets))
	sigs := make([]*Signature, len(targets))
	states := make([]state, len(targets))
	par.For(len(targets), par.IO(), par.Counted(len(targets), func(i int) {
		results[i], sigs[i], states[i] = req.judge(targets[i], pub, format)
	}, req.Progress))
	need, open := false, false
	for _, st := range states {
		need = need || st != settled
		open = open || st == undecided
	}
	if pub != nil {
		out.Fingerprint = Fingerprint(pub)
	}
	if !need {
		return out.with(results, targets), nil
	}

	// The key, only now, and never for a dry run.
	var key *Key
	switch {
	case req.DryRun && pub == nil:
		if pubErr == nil {
			pubErr = errors.New("no public key to compare with")
		}
		return nil, pubErr
	case req.DryRun:
		key = publicOnly(pub)
	default:
		if key, err = req.Key(); err != nil {
			return nil, err
		}
		out.Key, out.Fingerprint = key, key.Fingerprint
	}
	if open {
		for i, st := range states {
			if st == undecided {
				results[i], _, states[i] = req.decide(results[i], sigs[i], key.Public, format)
			}
		}
	}

	// Sign what needs it, as one Batch.
	var idx []int
	var todo []Target
	for i, st := range states {
		if st == needsSigning {
			idx, todo = append(idx, i), append(todo, results[i].Target)
		}
	}
	b := &Batch{Key: key, Format: format, Time: req.Time, Force: req.Force, DryRun: req.DryRun, Progress: req.Progress, AllowContent: req.AllowContent}
	ryeos := req.Space.Layout().RyeOS
	switch {
	case format == R1:
		// The r1 engine's signer checked nothing (spec 7.6.2).
	case format == RyeOS:
		b.Validate = ryeosValidator
	case req.Rules != nil:
		rules := map[item.Kind]*item.Extractor{}
		for _, t := range todo {
			if _, done := rules[t.Kind]; done || ryeos || !t.Kind.Valid() {
				continue
			}
			x, err := req.Rules(t.Kind)
			if err != nil {
				return nil, err
			}
			rules[t.Kind] = x
		}
		feb := validator(rules)
		b.Validate = func(t Target, src []byte) error {
			// An item of a RyeOS 0.2+ tree is checked by RyeOS's rules,
			// whatever the format it is signed in.
			if ryeos || !t.Kind.Valid() {
				return ryeosValidator(t, src)
			}
			return feb(t, src)
		}
	}
	for j, r := range b.Run(todo) {
		results[idx[j]] = r
	}
	return out.with(results, targets), nil
}

// with sets the results, each carrying its target as selected.
func (o *Outcomes) with(results []Result, targets []Target) *Outcomes {
	for i := range results {
		results[i].Target = targets[i]
	}
	o.Results = results
	return o
}

// validator is the metadata check that runs before signing: the item's
// rules (item.Validate), every problem with its line and column.
func validator(rules map[item.Kind]*item.Extractor) func(Target, []byte) error {
	return func(t Target, src []byte) error {
		errs := item.Validate(rules[t.Kind], t.Kind, t.ID, t.Display, src)
		if len(errs) == 0 {
			return nil
		}
		msgs := make([]string, len(errs))
		for i, e := range errs {
			msgs[i] = strings.TrimPrefix(e.Error(), t.Display+":")
			if e.Pos.IsValid() {
				msgs[i] = "line " + msgs[i] // "line 10:15: category: ..."
			}
		}
		return errors.New("invalid metadata, not signed: " + strings.Join(msgs, "; "))
	}
}

// summary is what a signing run did, as rye sign --json and the MCP sign
// tool write it: the key, the format, and each item's outcome.
type summary struct {
	Fingerprint string `json:"fingerprint"`
	Format      string `json:"format"`
	// AllowContent: items with error-level content findings were signed
	// (rye sign --allow-content-findings).
	AllowContent bool    `json:"allow_content_findings"`
	Results      []entry `json:"results"`
}

// entry is one item of a Summary.
type entry struct {
	Kind   item.Kind `json:"kind"`
	ID     item.ID   `json:"id"`
	Path   string    `json:"path"`
	Result string    `json:"result"`
	Error  string    `json:"error,omitempty"`
	Note   string    `json:"note,omitempty"`
	// Content are the item's error-level content findings: why it was
	// refused, or what it was signed over.
	Content []contentEntry `json:"content_findings,omitempty"`
	// SignedBy is the other signer whose valid signature was kept.
	SignedBy *signer `json:"signed_by,omitempty"`
}

// signer names the key of a kept signature.
type signer struct {
	Fingerprint string `json:"fingerprint"`
	Owner       string `json:"owner,omitempty"`
	Format      string `json:"format"`
}

// contentEntry is one content finding of an Entry, what is hidden made
// visible in Shown.
type contentEntry struct {
	Rule    string `json:"rule"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Message string `json:"message"`
	Shown   string `json:"shown"`
}

// Summarize is the summary of results signed in format with the key of
// fingerprint fp ("" when it is not known: nothing needed it),
// allowContent as the request said.
func Summarize(fp string, format Format, results []Result, allowContent bool) *summary {
	s := &summary{Fingerprint: fp, Format: format.String(), AllowContent: allowContent, Results: make([]entry, 0, len(results))}
	for _, r := range results {
		e := entry{Kind: r.Kind, ID: r.ID, Path: r.Display, Result: r.Outcome.String(), Note: r.Note}
		if r.Err != nil {
			e.Error = r.Err.Error()
		}
		for _, f := range r.Content {
			e.Content = append(e.Content, contentEntry{Rule: f.Rule, Line: f.Line, Column: f.Col, Message: f.Message, Shown: f.Shown})
		}
		if r.Signer != nil {
			e.SignedBy = &signer{Fingerprint: r.Signer.Fingerprint, Owner: r.Signer.Owner, Format: r.Signer.Format.String()}
		}
		s.Results = append(s.Results, e)
	}
	return s
}
