package lint

import (
	"errors"
	"path"
	"reflect"

	"github.com/ryekit/rye/item/syntax"

	"golang.org/x/tools/go/analysis"

	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/space"
)

// parsed is the parse analyzer's result: each item's metadata (nil when it
// does not parse).
type parsed map[*file]*item.Metadata

// parse reads every item's metadata and reports what does not parse.
var parse = &analysis.Analyzer{
	Name: "parse",
	Doc: `report files that do not parse

Every item file under .ai/ must parse in its form: the XML block of a
directive, the YAML of knowledge and of YAML tools, TOML, the Python
tokenizer, the commented YAML header of scripts. An item of RyeOS 0.2+ is
read with RyeOS's own parsers, by the ryeos analyzer. A file in an item folder
whose extension is not a form of that kind is not an item (a warning), and
a .json file cannot be one: JSON has no comments, so it cannot carry a
signature line. A .json, .mjs or .cjs file of a tool folder that starts
with a signature line is a file of a RYE OS package, which verify_deps
verifies: it is not reported.`,
	URL:        docURL("parse"),
	Requires:   []*analysis.Analyzer{input},
	ResultType: reflect.TypeOf(parsed(nil)),
	Run:        runParse,
}

func runParse(pass *analysis.Pass) (any, error) {
	e, r := env(pass), reporter{pass}
	mds := make([]*item.Metadata, len(e.Files))
	each(e.Files, func(i int, f *file) {
		switch {
		case f.Oddity != nil && (f.Oddity.Symlink || isIDProblem(f)):
			// symbolic links and invalid ids are the ids analyzer's
		case f.Oddity != nil && f.Oddity.Support:
			// a file ryeOS passes over too (tools/**/lib/, another
			// extension): not a problem; the secrets analyzer reads it
		case f.Oddity != nil && packageFile(f):
			// a signed file of a RYE OS tool package: not an item, verified
			// by verify_deps when a tool of the package runs
		case f.Oddity != nil && path.Ext(f.Rel) == ".json":
			r.at(sevError, "json", f.start(), 0, f.Oddity.Reason)
		case f.Oddity != nil:
			r.at(sevWarning, "not-an-item", f.start(), 0, f.Oddity.Reason)
		case f.ReadErr != nil:
			msg := f.ReadErr.Error()
			var pe *space.PathError
			if errors.As(f.ReadErr, &pe) {
				msg = pe.Err.Error() // the position names the file already
			}
			r.at(sevError, "unreadable", f.start(), 0, "cannot read it: "+msg)
		case f.IsItem() && readsAsRyeOS(f, nil):
			// read with ryeOS's own rules: the ryeos analyzer's
			f.ryeos = true
		default:
			md, err := item.ReadMetadata(f.Kind, f.Name, f.Src)
			if err == nil && f.IsItem() && readsAsRyeOS(f, md) {
				f.ryeos = true // its metadata is of a form only ryeOS 0.2+ writes
				return
			}
			if err != nil {
				pos := f.start()
				if ie, ok := err.(*syntax.Error); ok {
					pos = f.Pos(ie.Pos)
					err = &syntax.Error{Msg: ie.Msg, Fix: ie.Fix, Field: ie.Field}
				}
				r.at(sevError, "syntax", pos, 0, err.Error())
				return
			}
			mds[i] = md
		}
	})
	parsed := parsed{}
	for i, md := range mds {
		if md != nil {
			parsed[e.Files[i]] = md
		}
	}
	return parsed, nil
}

// isIDProblem reports whether an oddity is a file with an item extension
// whose path is not a valid id (the ids analyzer reports those).
func isIDProblem(f *file) bool {
	return f.Oddity != nil && !f.Oddity.Support && f.Oddity.Kind.HasExtension(path.Ext(f.Rel))
}

// packageFile reports a file of a tool folder that is not an item form but
// carries a signature line at its top: a .json, .mjs or .cjs file of a RYE
// OS package, which verify_deps verifies (spec 6.6).
func packageFile(f *file) bool {
	ext := path.Ext(f.Rel)
	_, _, ok := item.Envelope(ext)
	return ok && f.Kind == item.Tool && !item.Tool.HasExtension(ext) && f.ReadErr == nil && item.HasSignatureLine(f.Src, ext)
}
