package sign

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ryekit/rye/content"
	"github.com/ryekit/rye/internal/atomicfile"
	"github.com/ryekit/rye/internal/par"
	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/space"
)

// Target is one item file to sign: the file rel (relative to .ai/) of a
// space on disk. It is read through the space, which refuses a symbolic
// link on any component of the path, a file that is not regular and one
// over bundle.MaxItemSize.
type Target struct {
	Kind    item.Kind
	ID      item.ID
	Space   *space.Space
	Rel     string
	File    string // path on disk, derived from Space and Rel
	Display string // path as shown to the user
	// replace lets the signer replace the valid line of another trusted
	// signer (Request.ReplaceOthers), in any format.
	replace bool
}

// resolve fills in the target's file on disk from its space.
func (t *Target) resolve() error {
	switch {
	case t.Space == nil:
		return errors.New("no space: a target names its space and its path in it")
	case t.Space.Embedded():
		return errors.New("is part of the bundle compiled into rye, which cannot be signed")
	}
	t.File = filepath.Join(t.Space.AI(), filepath.FromSlash(t.Rel))
	return nil
}

// outcome is what happened to one target.
type outcome int

const (
	OutcomeSigned    outcome = iota // rewritten with a new signature line
	OutcomeUnchanged                // already validly signed by this key in this format
	OutcomeWouldSign                // --dry-run: would be rewritten
	OutcomeFailed                   // refused or not written; Err says why
	OutcomeKept                     // validly signed by another trusted key: left as it is
)

func (o outcome) String() string {
	return [...]string{"signed", "unchanged", "would sign", "failed", "kept"}[o]
}

// Result is the outcome for one target.
type Result struct {
	Target
	Outcome outcome
	Err     error
	// Signer is the other signer whose valid signature was kept
	// (OutcomeKept).
	Signer *Signature
	// Note says what signing changed besides the line, for the reader:
	// another format's line of the signer's own replaced (a migration),
	// signature-looking lines removed from the body as RyeOS's signer
	// removes them.
	Note string
	// Content are the error-level findings of the per-file content rules
	// (package content) in the item: why it was refused (Err is
	// ErrContent), or, with Batch.AllowContent, what the signature was
	// made over knowingly.
	Content []content.Finding
}

// ErrContent refuses an item with error-level content findings: a
// signature must not vouch for bytes the signer was never shown.
var ErrContent = errors.New("error-level content findings")

// contentError is the refusal of an item for its content findings: each
// one, with what is hidden made visible.
type contentError struct{ findings []content.Finding }

func (e *contentError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "not signed: %d error-level content finding(s), which a signature would vouch for unseen:", len(e.findings))
	for _, f := range e.findings {
		fmt.Fprintf(&b, " line %d:%d: %s [%s]; the line reads: %s;", f.Line, f.Col, f.Message, f.Rule, f.Shown)
	}
	b.WriteString(" fix them; only a person running rye sign --allow-content-findings can sign over them")
	return b.String()
}

func (e *contentError) Is(target error) bool { return target == ErrContent }

// Batch signs many items: in parallel, idempotently, and atomically per
// file. A failure on one item never stops or corrupts another.
type Batch struct {
	Key    *Key
	Format Format
	Time   time.Time
	Force  bool // re-sign items that are already validly signed
	DryRun bool // compute, write nothing
	// Validate checks an item's metadata before it is signed (spec 1.7);
	// an error refuses the item. nil signs without checking.
	Validate func(t Target, src []byte) error
	// AllowContent signs items that have error-level findings of the
	// per-file content rules (hidden text, bidi controls, downloaded code
	// run, credentials); Result.Content records them. Without it such an
	// item is refused (ErrContent) with the findings, decoded.
	AllowContent bool
	// Progress, when set, is called as items finish (from one goroutine at a
	// time).
	Progress func(done, total int)
	// ChunkSize is how many rewritten files share one durability barrier
	// (default 2000); it bounds memory and temporary files.
	ChunkSize int
}

// fewTargets is the most targets a Batch cleans up after by name
// (atomicfile.CleanStaleOf) rather than by listing their folders.
const fewTargets = 8

// Run signs the targets and returns one result per target, in order; each
// result carries its target as given.
func (b *Batch) Run(given []Target) []Result {
	results := make([]Result, len(given))
	targets := append([]Target(nil), given...)
	resolved := make([]error, len(targets))
	for i := range targets {
		resolved[i] = targets[i].resolve()
	}
	chunk := b.ChunkSize
	if chunk <= 0 {
		chunk = 2000
	}
	if !b.DryRun {
		// Temporary files of an earlier run that was killed: a few items'
		// own (one unlink each), else every one in their folders (one
		// listing each), so that signing one item never lists its folder.
		cleaned := map[string]bool{}
		for i, t := range targets {
			switch dir := filepath.Dir(t.File); {
			case resolved[i] != nil:
			case len(targets) <= fewTargets:
				atomicfile.CleanStaleOf(t.File)
			case !cleaned[dir]:
				cleaned[dir] = true
				atomicfile.CleanStale(dir)
			}
		}
	}
	// One batch of staged files per chunk; the count runs over all of them.
	var staged *atomicfile.Batch
	work := par.Counted(len(targets), func(i int) {
		if resolved[i] != nil {
			results[i] = Result{Target: targets[i], Outcome: OutcomeFailed, Err: resolved[i]}
		} else {
			results[i] = b.one(targets[i], staged)
		}
		results[i].Target = given[i]
	}, b.Progress)
	for start := 0; start < len(targets); start += chunk {
		end := min(start+chunk, len(targets))
		staged = &atomicfile.Batch{}
		b.parallel(start, end, work)
		if failed := staged.Commit(); len(failed) > 0 {
			for i := start; i < end; i++ {
				if err := failed[targets[i].File]; err != nil {
					results[i].Outcome, results[i].Err = OutcomeFailed, fmt.Errorf("writing failed: %w", err)
				}
			}
		}
	}
	return results
}

// parallel runs fn for indexes [start, end) on a bounded worker pool. The
// work is mostly waiting on the file system (creating the temporary files),
// so the pool is larger than the number of CPUs.
func (b *Batch) parallel(start, end int, fn func(int)) {
	par.For(end-start, par.IO(), func(i int) { fn(start + i) })
}

// one signs a single target, staging its new bytes in staged.
func (b *Batch) one(t Target, staged *atomicfile.Batch) Result {
	r := Result{Target: t, Outcome: OutcomeFailed}
	src, err := readItem(t)
	if err != nil {
		r.Err = err
		return r
	}
	if b.Format == RyeOS || b.Format == R1 {
		return b.oneRust(t, src, staged)
	}
	ext := filepath.Ext(t.File)
	found := Find(src, ext) // once: what Sign and SignedBy would each look for
	if !b.Force && signedBy(b.Key, b.Format, t.Kind, t.ID, src, found) {
		r.Outcome = OutcomeUnchanged
		return r
	}
	// Another format's line is the first thing to say: validating an item
	// rye will not sign anyway would only hide it. A trusted signer's line
	// the caller asked to replace is replaced, whatever its format.
	if err := replaceable(b.Key, t.Kind, t.ID, ext, src, found); err != nil && !t.replace {
		r.Err = err
		return r
	}
	if b.Validate != nil {
		if err := b.Validate(t, src); err != nil {
			r.Err = err
			return r
		}
	}
	if duplicated(found, src, ext) {
		r.Err = errDuplicate
		return r
	}
	if !b.contentAllowed(&r, src) {
		return r
	}
	if b.DryRun { // no private key: what signing would refuse, then stop
		if err := formatFits(b.Format, ext, src); err != nil {
			r.Err = err
			return r
		}
		r.Outcome = OutcomeWouldSign
		return r
	}
	out, err := signFound(b.Key, b.Format, t.Kind, t.ID, ext, src, found, b.Time)
	return b.write(r, out, err, staged)
}

// contentAllowed records the error-level content findings of the bytes
// about to be signed in r, and refuses them (r.Err) unless AllowContent.
func (b *Batch) contentAllowed(r *Result, src []byte) bool {
	r.Content = content.Errors(&content.File{Kind: r.Kind, Name: r.Rel, Src: src})
	if len(r.Content) > 0 && !b.AllowContent {
		r.Err = &contentError{r.Content}
		return false
	}
	return true
}

// write ends the signing of r with its new bytes out (or the error
// making them): nothing written in a dry run, else out staged with the
// old file's permission bits.
func (b *Batch) write(r Result, out []byte, err error, staged *atomicfile.Batch) Result {
	if err != nil {
		r.Err = err
		return r
	}
	if b.DryRun {
		r.Outcome = OutcomeWouldSign
		return r
	}
	info, err := os.Lstat(r.File)
	if err == nil {
		err = staged.Stage(r.File, out, info.Mode().Perm())
	}
	if err != nil {
		r.Err = fmt.Errorf("writing failed: %w", err)
		return r
	}
	r.Outcome = OutcomeSigned
	return r
}

// readItem reads a target through its space.
func readItem(t Target) ([]byte, error) {
	src, err := t.Space.ReadFile(t.Rel)
	if err != nil {
		// The result names the file already: keep only the reason, unless
		// it is about a folder above the file.
		var pe *space.PathError
		if errors.As(err, &pe) && pe.Path == t.Space.DisplayPath(t.Rel) {
			err = pe.Err
		}
	}
	return src, err
}
