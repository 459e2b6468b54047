package lint

import (
	"errors"
	"go/token"
	"reflect"
	"sync"

	"golang.org/x/tools/go/analysis"

	"github.com/ryekit/rye/chain"
	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/item/syntax"
	"github.com/ryekit/rye/space"
	"github.com/ryekit/rye/verify"
)

// file is one file under .ai/ that lint looks at: an item, a file in an
// item folder that is not an item (an oddity), or another file (config,
// trusted keys) that only the secrets analyzer reads.
type file struct {
	Name  string // as shown to the user; also its name in the FileSet
	Space *space.Space
	Rel   string // relative to .ai/
	// Kind and ID are set for item files.
	Kind item.Kind
	ID   item.ID
	// Oddity is set for files in item folders that are not items.
	Oddity *space.Oddity
	Src    []byte
	// ReadErr is why Src could not be read (then Src is nil).
	ReadErr error
	// ryeos is set by the parse analyzer for an item read with ryeOS
	// 0.2+'s rules (readsAsRyeOS): the ryeos analyzer's, not rye's own.
	ryeos bool
	tok   *token.File
	// read, when set, reads the bytes: a run holds them only while it
	// analyses the file's chunk (see Lint), and reads a file of another
	// chunk again when a cross-file analyzer needs it.
	read func() ([]byte, error)
}

// bytes are the file's bytes: those held, or read again (not kept).
func (f *file) bytes() ([]byte, error) {
	if f.Src != nil || f.ReadErr != nil || f.read == nil {
		return f.Src, f.ReadErr
	}
	return f.read()
}

// open holds the file's bytes for a pass over its chunk.
func (f *file) open() {
	if f.read != nil && f.Src == nil && f.ReadErr == nil {
		f.Src, f.ReadErr = f.bytes()
	}
}

// close drops what a pass over the file's chunk held: its bytes, when they
// can be read again, and its place in the chunk's FileSet.
func (f *file) close() {
	if f.read != nil {
		f.Src, f.ReadErr = nil, nil
	}
	f.tok = nil
}

// IsItem reports whether the file is an item (not an oddity or another
// file).
func (f *file) IsItem() bool { return f.Kind != "" && f.ID != "" && f.Oddity == nil }

// Pos converts an item position to a token.Pos in the run's FileSet.
func (f *file) Pos(p syntax.Pos) token.Pos {
	if f.tok == nil || !p.IsValid() || p.Offset > f.tok.Size() {
		return f.start()
	}
	return f.tok.Pos(p.Offset)
}

// LinePos is the start of a 1-based line.
func (f *file) LinePos(line int) token.Pos {
	if f.tok == nil || line < 1 || line > f.tok.LineCount() {
		return f.start()
	}
	return f.tok.LineStart(line)
}

func (f *file) start() token.Pos {
	if f.tok == nil {
		return token.NoPos
	}
	return token.Pos(f.tok.Base())
}

// Env is everything the analyzers work on. The driver hands it to the
// Input analyzer's consumers as that analyzer's result.
type Env struct {
	Files  []*file // items and oddities, in walk order
	Others []*file // other files under .ai/ (secrets only)
	// All is every file of the run when Files are one chunk of it (nil:
	// Files are all): the cross-file analyzers (ids, chain) look at all,
	// and report on Files.
	All        []*file
	Spaces     *space.Spaces
	Extractors map[item.Kind]*item.Extractor
	// selection is what Load selected (its skipped paths: NotItems).
	selection *space.Selection
	// Verify gives an item's verdict, given its metadata when it parsed
	// (nil otherwise). rye lint verifies against the working tree's trust
	// store; rye check leaves it nil, since it reports its own verification
	// run.
	Verify func(*file, *item.Metadata) verify.Result
	Fset   *token.FileSet
	// byTok finds a file by its place in Fset (Prepare fills it).
	byTok map[*token.File]*file
	// shared is what the chunks of one run share (nil: made when needed).
	shared *shared
}

// shared is computed once per run for all its chunks: the chain elements
// read, and the id collisions among all the files.
type shared struct {
	chains    chain.ElementCache
	lockOnce  sync.Once
	locks     map[string]bool // lockfile paths present (Env.lockfiles)
	idsOnce   sync.Once
	ids       map[*file][]collision
	itemsOnce sync.Once
	items     map[string]*file
	// forms are the item files of each space, kind and id (shadowedBy).
	formsOnce sync.Once
	forms     map[string][]*file
	confOnce  sync.Once
	conf      map[*file][]*file
}

// sharedState is what the chunks of the run share, made when first needed.
func (e *Env) sharedState() *shared {
	if e.shared == nil {
		e.shared = &shared{}
	}
	return e.shared
}

// chainCache is the run's cache of chain elements.
func (s *shared) chainCache() *chain.ElementCache { return &s.chains }

// itemFiles indexes the run's item files by space and path, once per run
// (a chain's elements are looked up there).
func (e *Env) itemFiles() map[string]*file {
	e.sharedState().itemsOnce.Do(func() {
		e.shared.items = map[string]*file{}
		for _, f := range e.all() {
			if f.IsItem() {
				e.shared.items[f.Space.Label+"\x00"+f.Rel] = f
			}
		}
	})
	return e.shared.items
}

// all is every file of the run (see All).
func (e *Env) all() []*file {
	if e.All != nil {
		return e.All
	}
	return e.Files
}

// input provides the Env. It is never run: the driver supplies its result,
// which is how the analyzers receive the items without global state.
var input = &analysis.Analyzer{
	Name:       "input",
	Doc:        "the items to lint, provided by the driver",
	ResultType: reflect.TypeOf((*Env)(nil)),
	Run: func(*analysis.Pass) (any, error) {
		return nil, errors.New("the input analyzer is provided by the driver")
	},
}

// env returns the Env of a pass.
func env(pass *analysis.Pass) *Env { return pass.ResultOf[input].(*Env) }
