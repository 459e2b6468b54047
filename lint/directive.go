package lint

import (
	"fmt"
	"sort"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/ryekit/rye/item"
)

// directive checks what only a directive has: inputs, placeholders,
// permissions, actions, model and limits.
var directive = &analysis.Analyzer{
	Name: "directive",
	Doc: `check directives' inputs, placeholders, permissions, actions, model and limits

Input types are string, integer, number, boolean, array or object. Every
{input:name} (and {input:name?}, {input:name:default}, {input:name|default})
in the body and in actions must name a declared input. Permissions have the
primaries search, load, execute and sign only. Every action's item_type and
item_id must resolve to an item. Limits and model attributes must be ones
rye knows, so that a misspelt limit does not silently not apply.`,
	URL:      docURL("directive"),
	Requires: []*analysis.Analyzer{input, parse},
	Run:      runDirective,
}

var (
	inputTypes  = map[string]bool{"string": true, "integer": true, "number": true, "boolean": true, "array": true, "object": true}
	knownLimits = map[string]bool{"turns": true, "tokens": true, "spend": true, "spend_currency": true, "spawns": true, "depth": true, "duration_seconds": true}
	knownModel  = map[string]bool{"tier": true, "fallback": true, "id": true, "parallel": true, "provider": true}
)

func runDirective(pass *analysis.Pass) (any, error) {
	e, r := env(pass), reporter{pass}
	parsed := pass.ResultOf[parse].(parsed)
	for _, f := range e.Files {
		md := parsed[f]
		if md == nil || f.Kind != item.Directive {
			continue
		}
		for _, p := range md.Problems {
			if p.Field == "permissions" {
				r.at(sevError, "permissions", f.Pos(p.Pos), 0, p.Msg)
			}
		}
		declared := map[string]bool{}
		for _, in := range md.Get("inputs").ListItems() {
			name := in.Get("name").String()
			declared[name] = true
			if t := in.Get("type"); t != nil && !inputTypes[t.String()] {
				r.at(sevError, "input-type", f.Pos(t.Pos), endPos(f, t), fmt.Sprintf("input %q: type %q is not one of array, boolean, integer, number, object, string", name, t.String()))
			}
		}
		checkPlaceholders(r, f, md, declared)
		checkActions(r, e, f, md)
		for _, l := range md.Get("limits").MapFields() {
			if !knownLimits[l.Key] {
				r.at(sevWarning, "limits", f.Pos(l.KeyPos), 0, fmt.Sprintf("unknown limit %q (known: %s): it would not apply", l.Key, keyList(knownLimits)))
			}
		}
		for _, m := range md.Get("model").MapFields() {
			if !knownModel[m.Key] {
				r.at(sevWarning, "model", f.Pos(m.KeyPos), 0, fmt.Sprintf("unknown model attribute %q (known: %s)", m.Key, keyList(knownModel)))
			}
		}
	}
	return nil, nil
}

// checkPlaceholders reports {input:x} placeholders in the body and in the
// XML (actions, steps) that name no declared input.
func checkPlaceholders(r reporter, f *file, md *item.Metadata, declared map[string]bool) {
	for p := range item.InputPlaceholders(f.Src) {
		if declared[p.Name] {
			continue
		}
		r.at(sevError, "input-placeholder", f.tok.Pos(p.Start), f.tok.Pos(p.End), fmt.Sprintf("{input:%s} names no declared input (declared: %s)", p.Name, keyList(declared)))
	}
}

// checkActions reports actions whose item does not resolve.
func checkActions(r reporter, e *Env, f *file, md *item.Metadata) {
	if e.Spaces == nil {
		return
	}
	for _, a := range md.Get("actions").ListItems() {
		id, kindNode := a.Get("item_id"), a.Get("item_type")
		if id == nil || kindNode == nil || strings.Contains(id.String(), "{") || strings.ContainsAny(id.String(), "*?") {
			continue // no target, or one filled in at run time
		}
		k, err := item.ParseKind(kindNode.String())
		if err != nil {
			r.at(sevError, "action", f.Pos(kindNode.Pos), endPos(f, kindNode), fmt.Sprintf("%s action: %v", a.Get("primary").String(), err))
			continue
		}
		iid, err := item.ParseID(id.String())
		if err != nil {
			r.at(sevError, "action", f.Pos(id.Pos), endPos(f, id), err.Error())
			continue
		}
		if _, err := e.Spaces.Resolve(k, iid, nil); err != nil {
			r.at(sevError, "action", f.Pos(id.Pos), endPos(f, id), fmt.Sprintf("%s action: %v", a.Get("primary").String(), err))
		}
	}
}

func keyList(m map[string]bool) string {
	if len(m) == 0 {
		return "none"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return strings.Join(keys, ", ")
}
