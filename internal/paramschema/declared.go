package paramschema

import (
	"regexp"

	"github.com/ryekit/rye/item/syntax"
)

// maxWalkDepth bounds the recursion of Declare over hostile input.
const maxWalkDepth = 256

// A Prop is a property a schema declares.
type Prop struct {
	Name   string
	Schema *syntax.Node // of its first declaration where it always applies, else of its first
	// Always: a schema that always applies (the schema itself, a $ref
	// target, an allOf branch) declares it; a default of a property
	// declared only in a branch that may not apply (anyOf, if, ...) is not
	// for filling in.
	Always bool
}

// Declared are the properties a schema declares for its value.
type Declared struct {
	Props    []Prop           // in the order met: the schema's own "properties" first
	Patterns []*regexp.Regexp // of the "patternProperties"
	Required []string         // named in "required" by the schema, its $ref targets and allOf branches (those apply always), in order, once each
	Any      bool             // some "properties" or non-empty "patternProperties" was found
	Open     bool             // the names cannot all be known: a reference leaves the document or is dynamic, a "properties" is not an object, a pattern does not compile

	r        *Resolver
	seen     map[*syntax.Node]bool // visited; true once visited as always applying
	names    map[string]int        // index in Props
	patterns map[string]bool
	required map[string]bool
}

// Declare gathers the properties the schema n (a node of r's tree)
// declares for its value: its own "properties" and "patternProperties",
// and those of the schemas that apply to the same value: local "$ref"
// targets, allOf/anyOf/oneOf branches, if/then/else, not and
// dependentSchemas (or draft-07 "dependencies"). Lint takes these as the
// names a "required" may list, and the executor as the parameters a tool
// takes: the two agree.
func (r *Resolver) Declare(n *syntax.Node) *Declared {
	d := &Declared{r: r, seen: map[*syntax.Node]bool{}, names: map[string]int{}, patterns: map[string]bool{}, required: map[string]bool{}}
	d.collect(n, 0, true)
	return d
}

// Lookup is the declared property named name, or nil.
func (d *Declared) Lookup(name string) *Prop {
	if i, ok := d.names[name]; ok {
		return &d.Props[i]
	}
	return nil
}

// Has says whether name is declared, by "properties" or by a pattern.
func (d *Declared) Has(name string) bool {
	if d.Lookup(name) != nil {
		return true
	}
	for _, re := range d.Patterns {
		if re.MatchString(name) {
			return true
		}
	}
	return false
}

// collect visits n; always says that n applies whenever the schema does
// (the schema itself, a $ref target, an allOf branch), which is where a
// "required" binds. A schema met first in a branch that may not apply and
// then again where it always does is visited twice (for its "required").
func (d *Declared) collect(n *syntax.Node, depth int, always bool) {
	if n == nil || n.Kind != syntax.MapNode || depth > maxWalkDepth {
		return
	}
	if wasAlways, ok := d.seen[n]; ok && (wasAlways || !always) {
		return
	}
	d.seen[n] = always
	if always {
		for _, it := range n.Get("required").ListItems() {
			if it.Kind == syntax.StringNode && !d.required[it.Str] {
				d.required[it.Str] = true
				d.Required = append(d.Required, it.Str)
			}
		}
	}
	if p := n.Get("properties"); p != nil {
		if p.Kind != syntax.MapNode {
			d.Open = true
			return
		}
		d.Any = true
		for _, f := range p.EffectiveFields() {
			i, ok := d.names[f.Key]
			switch {
			case !ok:
				d.names[f.Key] = len(d.Props)
				d.Props = append(d.Props, Prop{Name: f.Key, Schema: f.Value, Always: always})
			case always && !d.Props[i].Always:
				d.Props[i].Schema, d.Props[i].Always = f.Value, true
			}
		}
	}
	if p := n.Get("patternProperties"); p != nil {
		if p.Kind != syntax.MapNode {
			d.Open = true
			return
		}
		d.Any = d.Any || len(p.Fields) > 0
		for _, f := range p.EffectiveFields() {
			re, err := regexp.Compile(f.Key)
			if err != nil {
				d.Open = true
				return
			}
			if !d.patterns[f.Key] {
				d.patterns[f.Key] = true
				d.Patterns = append(d.Patterns, re)
			}
		}
	}
	for _, kw := range []string{"$dynamicRef", "$recursiveRef"} {
		if n.Get(kw) != nil {
			d.Open = true
		}
	}
	if ref := n.Get("$ref"); ref != nil {
		var target *syntax.Node
		if ref.Kind == syntax.StringNode {
			target = d.r.Resolve(ref.Str)
		}
		if target == nil {
			d.Open = true
		}
		d.collect(target, depth+1, always)
	}
	for _, kw := range []string{"allOf", "anyOf", "oneOf"} {
		for _, it := range n.Get(kw).ListItems() {
			d.collect(it, depth+1, always && kw == "allOf")
		}
	}
	for _, kw := range []string{"if", "then", "else", "not"} {
		d.collect(n.Get(kw), depth+1, false)
	}
	for _, kw := range []string{"dependentSchemas", "dependencies"} {
		for _, f := range n.Get(kw).EffectiveFields() {
			d.collect(f.Value, depth+1, false)
		}
	}
}
