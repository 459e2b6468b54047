package lint

import (
	"fmt"
	"go/token"
	"html"
	"path"
	"strconv"

	"golang.org/x/tools/go/analysis"

	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/item/syntax"
)

// metadata applies the extractor rules of spec 1.7 to every item.
var metadata = &analysis.Analyzer{
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
	URL:      docURL("metadata"),
	Requires: []*analysis.Analyzer{input, parse},
	Run:      runMetadata,
}

func runMetadata(pass *analysis.Pass) (any, error) {
	e, r := env(pass), reporter{pass}
	parsed := pass.ResultOf[parse].(parsed)
	each(e.Files, func(_ int, f *file) {
		md := parsed[f]
		if md == nil {
			return
		}
		for _, p := range md.Problems {
			if p.Field == "permissions" {
				continue // the directive analyzer's
			}
			r.at(sevError, "not-literal", f.Pos(p.Pos), 0, p.Field+": "+p.Msg)
		}
		x := e.Extractors[f.Kind]
		if x == nil {
			return
		}
		violations := x.Check(md, f.ID)
		for _, v := range violations {
			pos, end := f.Pos(v.Pos), endPos(f, v.Value)
			msg := v.Field + ": " + v.Msg
			var fixes []analysis.SuggestedFix
			if fix, ok := metadataFix(f, md.Form, v); ok {
				if broken := fixBreaks(e, f, fix); len(broken) > 0 {
					// The fix would trade this problem for another: say
					// what to do instead, and offer nothing to --fix.
					msg += fmt.Sprintf(" (not fixable in place: %s would break %s; %s)", fix.Message, describe(broken), instead(f, v, violations))
				} else {
					fixes = append(fixes, fix)
					if v.Fix != "" {
						msg += " (fix: " + v.Fix + ")"
					}
				}
			} else if v.Fix != "" {
				msg += " (fix: " + v.Fix + ")"
			}
			r.at(sevError, v.Rule, pos, end, msg, fixes...)
		}
	})
	return nil, nil
}

// metadataFix offers the fixes of spec 1.7: a category or name that
// disagrees with the file's place, and an unquoted version.
func metadataFix(f *file, form item.Form, v *syntax.Error) (analysis.SuggestedFix, bool) {
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

// fixBreaks returns the problems the item would have after fix that it
// does not have now (newProblems).
func fixBreaks(e *Env, f *file, fix analysis.SuggestedFix) []string {
	var es []edit
	for _, te := range fix.TextEdits {
		start := f.tok.Offset(te.Pos)
		end := start
		if te.End.IsValid() {
			end = f.tok.Offset(te.End)
		}
		es = append(es, edit{start: start, end: end, text: string(te.NewText)})
	}
	return newProblems(e, f, f.Src, apply(f.Src, es))
}

// instead says what to do when a value cannot be made to match the file's
// place: rename or move the file. For a name that must equal the file
// name, the value the file declares is the new file name when no other
// rule rejects it.
func instead(f *file, v *syntax.Error, all []*syntax.Error) string {
	if v.Rule != "match_filename" {
		return "move the file, or fix the value by hand"
	}
	for _, o := range all {
		if o != v && o.Field == v.Field {
			return "rename the file to a valid " + v.Field + " and set " + v.Field + " to match"
		}
	}
	if v.Value != nil && v.Value.Kind == syntax.StringNode {
		return "rename the file instead: " + path.Base(f.Rel) + " → " + v.Value.Str + path.Ext(f.Rel)
	}
	return "rename the file instead"
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
func endPos(f *file, n *syntax.Node) token.Pos {
	if n == nil || !n.End.IsValid() {
		return 0
	}
	return f.Pos(n.End)
}
