package item

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ryekit/rye/item/syntax"
)

// Extractor is one extractor rule file of spec 1.7: which file forms a kind
// has, how its fields are found, how search weighs them, and the rules its
// metadata must follow. The rules are data (YAML in the system bundle at
// .ai/tools/rye/core/extractors/<kind>/<kind>_extractor.yaml), so a project
// can override them by shipping an item with the same id.
type Extractor struct {
	Extensions      []string
	Parser          string
	Parsers         map[string]string
	SignatureFormat *syntax.Node
	SearchFields    []searchField
	Extraction      map[string]extractionRule
	Rules           []*fieldRule
}

// searchField is a field that search indexes, with its weight.
type searchField struct {
	Name   string
	Weight float64
}

// extractionRule says where a field comes from: "filename" (the item's file
// name) or "path" (the value of Key in the parsed metadata, falling back to
// the field's own name, so that the reference's `key: __version__` also
// works for forms that spell it `version`).
type extractionRule struct {
	Type string
	Key  string
}

// fieldRule is the validation rule for one field.
type fieldRule struct {
	Field         string
	Required      bool
	Nullable      bool
	Type          string // string integer number boolean semver enum object array
	Format        string // snake_case
	Values        []string
	Minimum       *float64
	Maximum       *float64
	Nested        []*fieldRule
	ItemType      string
	ItemRequired  []string
	MatchFilename bool
	MatchPath     bool
}

var ruleTypes = map[string]bool{"string": true, "integer": true, "number": true, "boolean": true, "semver": true, "enum": true, "object": true, "array": true}

// extractorKeys are the top-level keys an extractor file may have. Unknown
// keys are an error: a misspelt `validation_schema` must not silently turn
// every check off.
var extractorKeys = map[string]bool{
	"version": true, "tool_type": true, "executor_id": true, "category": true, "description": true,
	"extensions": true, "parser": true, "parsers": true, "signature_format": true, "signature_formats": true,
	"extraction_rules": true, "search_fields": true, "validation_schema": true,
}

// ParseExtractor reads an extractor rule file (YAML).
func ParseExtractor(src []byte) (*Extractor, error) {
	md, err := readTool(src, ".yaml")
	if err != nil {
		return nil, err
	}
	f := md.Fields
	for _, fl := range f.Fields {
		if !extractorKeys[fl.Key] {
			return nil, &syntax.Error{Pos: fl.KeyPos, Field: fl.Key, Msg: "unknown key in extractor file"}
		}
	}
	x := &Extractor{Parsers: map[string]string{}, Extraction: map[string]extractionRule{}, SignatureFormat: f.Get("signature_format")}
	for _, e := range f.Get("extensions").ListItems() {
		x.Extensions = append(x.Extensions, e.String())
	}
	x.Parser = f.Get("parser").String()
	for _, p := range f.Get("parsers").MapFields() {
		x.Parsers[p.Key] = p.Value.String()
	}
	for _, sf := range f.Get("search_fields").MapFields() {
		w, ok := numberOf(sf.Value)
		if !ok {
			return nil, &syntax.Error{Pos: sf.Value.Pos, Field: "search_fields." + sf.Key, Msg: "a search weight must be a number, found " + describeKind(sf.Value)}
		}
		x.SearchFields = append(x.SearchFields, searchField{Name: sf.Key, Weight: w})
	}
	for _, er := range f.Get("extraction_rules").MapFields() {
		x.Extraction[er.Key] = extractionRule{Type: er.Value.Get("type").String(), Key: er.Value.Get("key").String()}
	}
	vs := f.Get("validation_schema")
	if vs == nil {
		return nil, &syntax.Error{Pos: f.Pos, Msg: "extractor file has no validation_schema"}
	}
	x.Rules, err = parseFieldRules(vs.Get("fields"), "")
	if err != nil {
		return nil, err
	}
	return x, nil
}

var ruleKeys = map[string]bool{"required": true, "nullable": true, "type": true, "format": true, "values": true,
	"minimum": true, "maximum": true, "nested": true, "item_type": true, "item_required": true,
	"match_filename": true, "match_path": true, "description": true}

func parseFieldRules(fields *syntax.Node, prefix string) ([]*fieldRule, error) {
	var rules []*fieldRule
	for _, fl := range fields.MapFields() {
		name := prefix + fl.Key
		r := &fieldRule{Field: fl.Key}
		spec := fl.Value
		if spec.Kind != syntax.MapNode {
			return nil, &syntax.Error{Pos: spec.Pos, Field: name, Msg: "a field rule must be a mapping, found " + describeKind(spec)}
		}
		for _, k := range spec.Fields {
			if !ruleKeys[k.Key] {
				return nil, &syntax.Error{Pos: k.KeyPos, Field: name, Msg: fmt.Sprintf("unknown rule key %q", k.Key)}
			}
		}
		r.Required = spec.Get("required").IsTrue()
		r.Nullable = spec.Get("nullable").IsTrue()
		r.Type = spec.Get("type").String()
		if r.Type != "" && !ruleTypes[r.Type] {
			return nil, &syntax.Error{Pos: spec.Get("type").Pos, Field: name, Msg: fmt.Sprintf("unknown rule type %q (known: %s)", r.Type, strings.Join(slices.Sorted(maps.Keys(ruleTypes)), ", "))}
		}
		r.Format = spec.Get("format").String()
		if r.Format != "" && r.Format != "snake_case" {
			return nil, &syntax.Error{Pos: spec.Get("format").Pos, Field: name, Msg: fmt.Sprintf("unknown format %q (known: snake_case)", r.Format)}
		}
		for _, v := range spec.Get("values").ListItems() {
			r.Values = append(r.Values, scalarText(v))
		}
		if v, ok := numberOf(spec.Get("minimum")); ok {
			r.Minimum = &v
		}
		if v, ok := numberOf(spec.Get("maximum")); ok {
			r.Maximum = &v
		}
		r.ItemType = spec.Get("item_type").String()
		if r.ItemType != "" && !ruleTypes[r.ItemType] {
			return nil, &syntax.Error{Pos: spec.Get("item_type").Pos, Field: name, Msg: fmt.Sprintf("unknown item_type %q", r.ItemType)}
		}
		for _, v := range spec.Get("item_required").ListItems() {
			r.ItemRequired = append(r.ItemRequired, v.String())
		}
		r.MatchFilename = spec.Get("match_filename").IsTrue()
		r.MatchPath = spec.Get("match_path").IsTrue()
		if nested := spec.Get("nested"); nested != nil {
			var err error
			if r.Nested, err = parseFieldRules(nested, name+"."); err != nil {
				return nil, err
			}
		}
		rules = append(rules, r)
	}
	return rules, nil
}

// Fields returns an item's metadata fields as the extractor sees them: the
// reader's fields plus those the extraction rules derive (a tool's name is
// its file name), and a directive's permissions in the shape the rules
// expect (permissionsAs).
func (x *Extractor) Fields(md *Metadata, id ID) *syntax.Node {
	out := syntax.NewMap(md.Fields.Pos)
	out.Fields = append(out.Fields, md.Fields.Fields...)
	if md.Form == FormDirectiveXML && x.rule("permissions").objects() {
		for i, f := range out.Fields {
			if f.Key == "permissions" { // a new field: the reader's stays as it is
				out.Fields[i] = &syntax.Field{Key: f.Key, KeyPos: f.KeyPos, Value: permissionObjects(f.Value)}
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(x.Extraction)) {
		r := x.Extraction[name]
		switch r.Type {
		case "filename":
			out.Set(name, syntax.Pos{}, syntax.NewString(id.Name(), syntax.Pos{}))
		case "path":
			if r.Key != "" && r.Key != name {
				if f := md.Fields.Field(r.Key); f != nil {
					out.Set(name, f.KeyPos, f.Value)
				}
			}
		}
	}
	return out
}

// rule is the top-level rule of a field, or nil.
func (x *Extractor) rule(field string) *fieldRule {
	for _, r := range x.Rules {
		if r.Field == field {
			return r
		}
	}
	return nil
}

// objects reports whether a rule wants a list of mappings.
func (r *fieldRule) objects() bool { return r != nil && r.ItemType == "object" }

// permissionObjects presents capability strings the way the reference's
// directive parser did (_extract_from_xml, spec 6.6): a list of
// {tag: "cap", content: "<capability>"}. A project that ships the
// reference's directive extractor (permissions: item_type object,
// item_required [tag]) checks what the reference checked; rye's own rule
// (item_type string) sees the strings. Each object sits at its string's
// position.
func permissionObjects(caps *syntax.Node) *syntax.Node {
	if caps.Kind != syntax.ListNode {
		return caps
	}
	out := syntax.NewList(caps.Pos)
	out.End = caps.End
	for _, c := range caps.Items {
		if c.Kind != syntax.StringNode {
			out.Append(c)
			continue
		}
		o := syntax.NewMap(c.Pos)
		o.Set("tag", c.Pos, syntax.NewString("cap", c.Pos))
		o.Set("content", c.Pos, c)
		out.Append(o)
	}
	return out
}

// numberOf is the value of an integer or float node.
func numberOf(n *syntax.Node) (float64, bool) {
	switch {
	case n == nil:
		return 0, false
	case n.Kind == syntax.IntNode:
		return float64(n.Int), true
	case n.Kind == syntax.FloatNode:
		return n.Float, true
	}
	return 0, false
}

// SearchWeights returns the search field weights as a map.
func (x *Extractor) SearchWeights() map[string]float64 {
	m := make(map[string]float64, len(x.SearchFields))
	for _, f := range x.SearchFields {
		m[f.Name] = f.Weight
	}
	return m
}
