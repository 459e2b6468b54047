package paramschema

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ryekit/rye/internal/jsonschema"
)

// A Leaf is one explained validation failure.
type Leaf struct {
	Loc      []string             // where in the value, as JSON pointer tokens
	Kind     jsonschema.ErrorKind // what failed, for callers that word some kinds their own way (*jsonschema.Required, *jsonschema.AdditionalProperties)
	Found    string               // what is there, without "found "
	Expected string               // what the schema wants, without "expected "
	Other    string               // the whole message when found/expected do not fit ("missing required property "a"")
	TypeMiss bool                 // the value is of a type the failing schema does not take
}

// Text is the leaf's message without its location: "found …, expected …"
// or Other.
func (l Leaf) Text() string {
	if l.Other != "" {
		return l.Other
	}
	return "found " + l.Found + ", expected " + l.Expected
}

// Style is how Explain shows what it finds.
type Style struct {
	// Typed follows a scalar that has the wrong type by its type (`"5" (a
	// string)`) and shows arrays and objects as Describe does; else values
	// are shown as Display does.
	Typed bool
	// Keywords: the value is a schema being meta-validated, whose enum
	// values are keywords and shown unquoted.
	Keywords bool
}

func (st Style) show(v any) string {
	if st.Typed {
		return Describe(v)
	}
	return Display(v)
}

func (st Style) note(v any) string {
	if st.Typed {
		return TypeNote(v)
	}
	return ""
}

// Explain is lint's former explainer, the more complete of the two copies
// (reference cycles, regular expression reasons, an enum or const of
// another type set aside in anyOf like a type mismatch); the executor's
// wording is Style{}.
//
// Explain flattens a validation error tree into plain-word failures, in
// the validator's order, each once. The containers (groups, allOf,
// references) are looked through; for anyOf and oneOf the alternative the
// value came closest to is kept: alternatives that rejected the value only
// for its type are set aside, and if none is left the leaf lists the types
// they take. doc is the value that was validated.
func Explain(e *jsonschema.ValidationError, doc any, st Style) []Leaf {
	var out []Leaf
	seen := map[string]bool{}
	for _, l := range st.explain(e, doc, 0) {
		k := JSONPointer(l.Loc) + "\x00" + l.Text()
		if !seen[k] {
			seen[k] = true
			out = append(out, l)
		}
	}
	return out
}

func (st Style) explain(e *jsonschema.ValidationError, doc any, depth int) []Leaf {
	if e == nil || depth > 64 {
		return nil
	}
	loc := e.InstanceLocation
	v := ValueAt(doc, loc)
	leaf := func(found, expected string) []Leaf {
		return []Leaf{{Loc: loc, Kind: e.Kind, Found: found, Expected: expected}}
	}
	causes := func() []Leaf {
		var out []Leaf
		for _, c := range e.Causes {
			out = append(out, st.explain(c, doc, depth+1)...)
		}
		return out
	}
	switch k := e.Kind.(type) {
	case *jsonschema.Root, *jsonschema.Group, *jsonschema.AllOf, *jsonschema.Reference, nil:
		if len(e.Causes) > 0 {
			return causes()
		}
		return leaf(st.show(v), "a value the schema accepts")
	case *jsonschema.AnyOf:
		return st.alternatives(e, "anyOf", doc, v, depth)
	case *jsonschema.OneOf:
		if len(k.Matched) >= 2 {
			return leaf(st.show(v)+fmt.Sprintf(` matching more than one "oneOf" alternative (%d and %d)`, k.Matched[0], k.Matched[1]), "exactly one")
		}
		return st.alternatives(e, "oneOf", doc, v, depth)
	case *jsonschema.Type:
		return []Leaf{{Loc: loc, Kind: k, Found: st.show(v) + st.note(v), Expected: wantTypes(k.Want), TypeMiss: true}}
	case *jsonschema.Enum:
		l := Leaf{Loc: loc, Kind: k, Found: st.show(v), Expected: st.oneOf(k.Want), TypeMiss: true}
		for _, w := range k.Want {
			if sameType(w, v) {
				l.TypeMiss = false
			}
		}
		if l.TypeMiss {
			l.Found += st.note(v)
		}
		return []Leaf{l}
	case *jsonschema.Const:
		return []Leaf{{Loc: loc, Kind: k, Found: st.show(v), Expected: st.show(k.Want), TypeMiss: !sameType(k.Want, v)}}
	case *jsonschema.Minimum:
		return leaf(rat(k.Got), "at least "+rat(k.Want))
	case *jsonschema.Maximum:
		return leaf(rat(k.Got), "at most "+rat(k.Want))
	case *jsonschema.ExclusiveMinimum:
		return leaf(rat(k.Got), "more than "+rat(k.Want))
	case *jsonschema.ExclusiveMaximum:
		return leaf(rat(k.Got), "less than "+rat(k.Want))
	case *jsonschema.MultipleOf:
		return leaf(rat(k.Got), "a multiple of "+rat(k.Want))
	case *jsonschema.MinLength:
		return leaf(st.show(v)+" ("+plural(k.Got, "character")+")", "at least "+plural(k.Want, "character"))
	case *jsonschema.MaxLength:
		return leaf(st.show(v)+" ("+plural(k.Got, "character")+")", "at most "+plural(k.Want, "character"))
	case *jsonschema.Pattern:
		return leaf(st.show(v), "a string matching "+Quote(k.Want))
	case *jsonschema.Format:
		exp := "a valid " + k.Want
		if k.Want == "regex" {
			exp = "a regular expression Go can compile"
		}
		if k.Err != nil {
			exp += " (" + RegexpReason(k.Err) + ")"
		}
		return leaf(st.show(v), exp)
	case *jsonschema.MinItems:
		return leaf(plural(k.Got, "item"), "at least "+plural(k.Want, "item"))
	case *jsonschema.MaxItems:
		return leaf(plural(k.Got, "item"), "at most "+plural(k.Want, "item"))
	case *jsonschema.UniqueItems:
		return leaf(fmt.Sprintf("equal items at %d and %d", k.Duplicates[0], k.Duplicates[1]), "unique items")
	case *jsonschema.MinProperties:
		return leaf(plural(k.Got, "property"), "at least "+plural(k.Want, "property"))
	case *jsonschema.MaxProperties:
		return leaf(plural(k.Got, "property"), "at most "+plural(k.Want, "property"))
	case *jsonschema.Required:
		return []Leaf{{Loc: loc, Kind: k, Other: "missing required " + QuoteList("property", k.Missing)}}
	case *jsonschema.AdditionalProperties:
		return leaf(QuoteList("property", k.Properties), "only the properties the schema declares")
	case *jsonschema.Dependency:
		return leaf(QuoteList("property", []string{k.Prop})+" without "+QuoteList("property", k.Missing), "them together")
	case *jsonschema.DependentRequired:
		return leaf(QuoteList("property", []string{k.Prop})+" without "+QuoteList("property", k.Missing), "them together")
	case *jsonschema.PropertyNames:
		l := Leaf{Loc: loc, Kind: k, Found: "the property name " + Quote(k.Property), Expected: `a name "propertyNames" accepts`}
		if c := causes(); len(c) == 1 {
			l.Expected = c[0].Expected + ` (by "propertyNames")`
		}
		return []Leaf{l}
	case *jsonschema.AdditionalItems:
		return leaf(plural(k.Count, "item")+" more than the schema lists", "no additional items")
	case *jsonschema.Contains:
		return leaf(`no item matching "contains"`, "at least one")
	case *jsonschema.MinContains:
		return leaf(plural(len(k.Got), "item")+` matching "contains"`, "at least "+strconv.Itoa(k.Want))
	case *jsonschema.MaxContains:
		return leaf(plural(len(k.Got), "item")+` matching "contains"`, "at most "+strconv.Itoa(k.Want))
	case *jsonschema.FalseSchema:
		return []Leaf{{Loc: loc, Kind: k, Found: st.show(v), Expected: "nothing here (the schema is false)", TypeMiss: true}}
	case *jsonschema.Not:
		return leaf(st.show(v), `a value the "not" schema rejects`)
	case *jsonschema.RefCycle:
		return []Leaf{{Loc: loc, Kind: k, Other: "the references loop (" + k.Location1 + " and " + k.Location2 + ")"}}
	}
	if len(e.Causes) > 0 {
		return causes()
	}
	kw := ""
	if e.Kind != nil {
		kw = e.Kind.Keyword()
	}
	if kw == "" {
		kw = "the schema"
	} else {
		kw = Quote(kw)
	}
	return leaf(st.show(v), "a value "+kw+" accepts")
}

// alternatives explains a failed anyOf/oneOf: the alternatives that
// rejected the value only for its type are set aside; if one alternative
// is left, its failures are given, if none, the types they take.
func (st Style) alternatives(e *jsonschema.ValidationError, kw string, doc, v any, depth int) []Leaf {
	var near [][]Leaf
	var wants []string
	for _, c := range e.Causes {
		ls := st.explain(c, doc, depth+1)
		if len(ls) == 1 && ls[0].TypeMiss && slices.Equal(ls[0].Loc, e.InstanceLocation) {
			wants = append(wants, ls[0].Expected)
			continue
		}
		near = append(near, ls)
	}
	switch {
	case len(near) == 1:
		return near[0]
	case len(near) == 0 && len(wants) > 0:
		return []Leaf{{Loc: e.InstanceLocation, Kind: e.Kind, Found: st.show(v) + st.note(v), Expected: joinOr(wants), TypeMiss: true}}
	}
	return []Leaf{{Loc: e.InstanceLocation, Kind: e.Kind, Found: st.show(v), Expected: fmt.Sprintf("a value matching one of the %q alternatives", kw)}}
}

// oneOf writes the values of an enum.
func (st Style) oneOf(want []any) string {
	if len(want) == 1 {
		return st.show(want[0])
	}
	parts := make([]string, len(want))
	for i, w := range want {
		if s, ok := w.(string); ok && st.Keywords {
			parts[i] = s
		} else {
			parts[i] = st.show(w)
		}
	}
	return "one of " + strings.Join(parts, ", ")
}
