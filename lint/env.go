package lint

import (
	"errors"
	"go/token"
	"reflect"

	"golang.org/x/tools/go/analysis"

	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/item/syntax"
	"github.com/ryekit/rye/space"
	"github.com/ryekit/rye/verify"
)

// File is one file under .ai/ that lint looks at: an item, a file in an
// item folder that is not an item (an oddity), or another file (config,
// trusted keys) that only the secrets analyzer reads.
type File struct {
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
	tok     *token.File
}

// IsItem reports whether the file is an item (not an oddity or another
// file).
func (f *File) IsItem() bool { return f.Kind != "" && f.ID != "" && f.Oddity == nil }

// Pos converts an item position to a token.Pos in the run's FileSet.
func (f *File) Pos(p syntax.Pos) token.Pos {
	if f.tok == nil || !p.IsValid() || p.Offset > f.tok.Size() {
		return f.start()
	}
	return f.tok.Pos(p.Offset)
}

// LinePos is the start of a 1-based line.
func (f *File) LinePos(line int) token.Pos {
	if f.tok == nil || line < 1 || line > f.tok.LineCount() {
		return f.start()
	}
	return f.tok.LineStart(line)
}

func (f *File) start() token.Pos {
	if f.tok == nil {
		return token.NoPos
	}
	return token.Pos(f.tok.Base())
}

// Env is everything the analyzers work on. The driver hands it to the
// Input analyzer's consumers as that analyzer's result.
type Env struct {
	Files      []*File // items and oddities, in walk order
	Others     []*File // other files under .ai/ (secrets only)
	Spaces     *space.Spaces
	Extractors map[item.Kind]*item.Extractor
	// Verify gives an item's verdict, given its metadata when it parsed
	// (nil otherwise). rye lint verifies against the working tree's trust
	// store; rye check leaves it nil, since it reports its own verification
	// run.
	Verify func(*File, *item.Metadata) verify.Result
	Fset   *token.FileSet
}

// Input provides the Env. It is never run: the driver supplies its result,
// which is how the analyzers receive the items without global state.
var Input = &analysis.Analyzer{
	Name:       "input",
	Doc:        "the items to lint, provided by the driver",
	ResultType: reflect.TypeOf((*Env)(nil)),
	Run: func(*analysis.Pass) (any, error) {
		return nil, errors.New("the input analyzer is provided by the driver")
	},
}

// env returns the Env of a pass.
func env(pass *analysis.Pass) *Env { return pass.ResultOf[Input].(*Env) }
