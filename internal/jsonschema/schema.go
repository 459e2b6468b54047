package jsonschema

import (
	"math/big"
	"regexp"
)

// A Schema is a compiled schema, ready to validate values. It is
// immutable once compiled and safe for concurrent use.
type Schema struct {
	url, ptr string // where it is: document and JSON pointer
	loc      string // location(url, ptr)
	version  int    // of its draft

	resource       *Schema            // the schema of its resource (itself for a resource)
	dynamicAnchors map[string]*Schema // of a resource (2020-12): $dynamicAnchor name -> schema

	// what "unevaluatedProperties" and "unevaluatedItems" may take as
	// evaluated by this schema alone
	allPropsEvaluated bool
	allItemsEvaluated bool
	numItemsEvaluated int

	boolean *bool // a true or false schema

	ref             *Schema
	recursiveRef    *Schema
	recursiveAnchor bool
	dynamicRef      *Schema
	dynamicRefName  string // the anchor $dynamicRef names, "" for a pointer
	dynamicAnchor   string

	types     typeSet
	hasConst  bool
	constant  any
	hasEnum   bool
	enum      []any
	enumTypes typeSet
	format    *formatDef

	not              *Schema
	allOf            []*Schema
	anyOf            []*Schema
	oneOf            []*Schema
	ifSchema         *Schema
	thenSchema       *Schema
	elseSchema       *Schema
	dependentSchemas []namedSchema

	// objects
	minProperties, maxProperties int // -1: absent
	required                     []string
	properties                   map[string]*Schema
	patternProperties            []patternSchema
	hasAdditional                bool    // "additionalProperties" is present
	additionalFalse              bool    // it is false
	additionalSchema             *Schema // it is a schema object
	dependencies                 []dependency
	dependentRequired            []dependency
	propertyNames                *Schema
	unevaluatedProperties        *Schema

	// arrays
	minItems, maxItems       int // -1: absent
	uniqueItems              bool
	items                    *Schema   // "items": {...} (before 2020-12)
	itemsList                []*Schema // "items": [...] (before 2020-12)
	hasItemsList             bool
	hasAdditionalItems       bool
	additionalItemsFalse     bool
	additionalItemsSchema    *Schema
	prefixItems              []*Schema
	items2020                *Schema
	contains                 *Schema
	minContains, maxContains int // -1: absent
	unevaluatedItems         *Schema

	// strings
	minLength, maxLength int // -1: absent
	pattern              *regexp.Regexp

	// numbers
	minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf *number
}

type namedSchema struct {
	name string
	sch  *Schema
}

type patternSchema struct {
	re  *regexp.Regexp
	sch *Schema
}

// A dependency is a "dependencies" or "dependentRequired" entry: when
// name is present, the properties required must be, or (draft-07's
// schema form) the value must match sch.
type dependency struct {
	name     string
	required []string
	sch      *Schema
}

// A number is a schema's numeric bound: exact, with its int64 value when
// it has one (for the common comparisons without big.Rat arithmetic).
type number struct {
	rat   *big.Rat
	i     int64
	isInt bool // rat is an integer that fits in i
}

func newNumber(r *big.Rat) *number {
	n := &number{rat: r}
	if r.IsInt() && r.Num().IsInt64() {
		n.i, n.isInt = r.Num().Int64(), true
	}
	return n
}

// Location is the schema's absolute location: its document's URL, "#"
// and its JSON pointer.
func (s *Schema) Location() string { return s.loc }

// A typeSet is a set of JSON types.
type typeSet uint8

const (
	nullType typeSet = 1 << iota
	booleanType
	numberType
	integerType
	stringType
	arrayType
	objectType
)

var typeNames = [...]struct {
	t    typeSet
	name string
}{
	{nullType, "null"}, {booleanType, "boolean"}, {numberType, "number"}, {integerType, "integer"},
	{stringType, "string"}, {arrayType, "array"}, {objectType, "object"},
}

func typeNamed(s string) typeSet {
	for _, tn := range typeNames {
		if tn.name == s {
			return tn.t
		}
	}
	return 0
}

// names lists the types in the order null, boolean, number, integer,
// string, array, object.
func (ts typeSet) names() []string {
	var out []string
	for _, tn := range typeNames {
		if ts&tn.t != 0 {
			out = append(out, tn.name)
		}
	}
	return out
}

func (ts typeSet) String() string {
	for _, tn := range typeNames {
		if ts == tn.t {
			return tn.name
		}
	}
	return "value"
}
