package sign

import (
	"errors"
	"strings"
	"time"

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
	// something to sign, so that a commit that touches no item never asks
	// for a passphrase.
	Key    func() (*Key, error)
	Format Format // 0 is V2
	Time   time.Time
	Force  bool // re-sign items that are already validly signed
	DryRun bool // compute, write nothing
	// AllowContent signs items with error-level content findings
	// (Batch.AllowContent); the MCP server never sets it.
	AllowContent bool
	// Rules check each item's metadata before it is signed (spec 1.7), by
	// kind (Spaces.Extractors); an item that breaks one is refused with
	// the reason. nil signs without checking.
	Rules map[item.Kind]*item.Extractor
	// Changed, when set, narrows the selection to the items to sign (rye
	// sign --changed-since keeps those whose bytes differ from a commit).
	Changed func([]space.Found) ([]space.Found, error)
	// Progress, when set, is called as items finish (Batch.Progress).
	Progress func(done, total int)
}

// Outcomes are what a finished Request did.
type Outcomes struct {
	// Key is the key that signed, nil when there was nothing to sign.
	Key *Key
	// Selected counts the items the patterns selected, before Changed.
	Selected int
	// Skipped are the paths given that name files which are not items.
	Skipped []string
	// Results has one entry per item signed, left alone or refused.
	Results []Result
}

// Run selects the items (space.Select; symbolic links named like items
// are kept, for the signer to refuse with the reason), narrows them with
// Changed, loads the key and signs them as one Batch. Errors are the
// request's: a pattern that matches nothing, Changed's, the key's; what
// happens to each item is in its Result.
func Run(req Request) (*Outcomes, error) {
	kinds := req.Kinds
	if kinds == nil {
		kinds = item.Kinds
	}
	sel, err := space.Select(req.Space, kinds, req.Patterns, req.WorkDir)
	if err != nil {
		return nil, err
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
	if out.Key, err = req.Key(); err != nil {
		return nil, err
	}
	format := req.Format
	if format == 0 {
		format = V2
	}
	b := &Batch{Key: out.Key, Format: format, Time: req.Time, Force: req.Force, DryRun: req.DryRun, Progress: req.Progress, AllowContent: req.AllowContent}
	if req.Rules != nil {
		b.Validate = validator(req.Rules)
	}
	targets := make([]Target, len(items))
	for i, f := range items {
		targets[i] = Target{Kind: f.Kind, ID: f.ID, Space: f.Space, Rel: f.Rel, Display: f.Path()}
	}
	out.Results = b.Run(targets)
	return out, nil
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
