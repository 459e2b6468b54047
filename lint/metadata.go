package lint

import (
	"go/token"
	"html"
	"strconv"

	"golang.org/x/tools/go/analysis"

	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/item/syntax"
)

// Metadata applies the extractor rules of spec 1.7 to every item.
var Metadata = &analysis.Analyzer{
	Name: "metadata",
	Doc: `check metadata against the rules of the kind's extractor

The rules are data: .ai/tools/rye/core/extractors/<kind>/<kind>_extractor.yaml
in the system bundle (or a project or user copy). They require fields
(a directive's name, version, description, category, author; a tool's
category, tool_type, version, description, executor_id; a knowledge entry's
id, title, version, entry_type), check their types (semver versions,
snake_case names, typed limits) and that names and categories match where
the file is. Python metadata bound to something that is not a literal is
reported here too. Fixes: set category to the folder path, set a name or
id to the file name, quote an unquoted version.`,
	URL:      DocURL("metadata"),
	Requires: []*analysis.Analyzer{Input, Parse},
	Run:      runMetadata,
}

func runMetadata(pass *analysis.Pass) (any, error) {
	e, r := env(pass), reporter{pass}
	parsed := pass.ResultOf[Parse].(Parsed)
	for _, f := range e.Files {
		md := parsed[f]
		if md == nil {
			continue
		}
		for _, p := range md.Problems {
			if p.Field == "permissions" {
				continue // the directive analyzer's
			}
			r.at(sevError, "not-literal", f.Pos(p.Pos), 0, p.Field+": "+p.Msg)
		}
		x := e.Extractors[f.Kind]
		if x == nil {
			continue
		}
		for _, v := range x.Check(md, f.ID) {
			pos, end := f.Pos(v.Pos), endPos(f, v.Value)
			msg := v.Field + ": " + v.Msg
			if v.Fix != "" {
				msg += " (fix: " + v.Fix + ")"
			}
			var fixes []analysis.SuggestedFix
			if fix, ok := metadataFix(f, md.Form, v); ok {
				fixes = append(fixes, fix)
			}
			r.at(sevError, v.Rule, pos, end, msg, fixes...)
		}
	}
	return nil, nil
}

// metadataFix offers the fixes of spec 1.7: a category or name that
// disagrees with the file's place, and an unquoted version.
func metadataFix(f *File, form item.Form, v *syntax.Error) (analysis.SuggestedFix, bool) {
	if v.Value == nil || !v.Value.End.IsValid() || v.Want == "" {
		return analysis.SuggestedFix{}, false
	}
	var text, msg string
	switch v.Rule {
	case "match_path", "match_filename":
		text, msg = literal(form, v.Want), "set "+v.Field+" to "+strconv.Quote(v.Want)
	case "type":
		if v.Value.Kind != syntax.IntNode && v.Value.Kind != syntax.FloatNode {
			return analysis.SuggestedFix{}, false
		}
		text, msg = literal(form, v.Want), "quote the version: "+strconv.Quote(v.Want)
	default:
		return analysis.SuggestedFix{}, false
	}
	return replaceFix(msg, f.Pos(v.Value.Pos), f.Pos(v.Value.End), text), true
}

// literal writes a string in a file form's syntax: in a directive's XML the
// value's span is the text between quotes or tags; elsewhere it is a
// quoted literal (YAML, TOML and Python accept the same double-quoted form
// for these plain strings).
func literal(form item.Form, s string) string {
	if form == item.FormDirectiveXML {
		return html.EscapeString(s)
	}
	return strconv.Quote(s)
}

// endPos is where a value ends, or NoPos when unknown.
func endPos(f *File, n *syntax.Node) token.Pos {
	if n == nil || !n.End.IsValid() {
		return 0
	}
	return f.Pos(n.End)
}
