package jsonschema

import (
	"fmt"
	"math/big"
	"strings"
)

// A ValidationError is a value a schema rejects, as a tree: the
// containers (Root, Group, AllOf, AnyOf, OneOf, Reference, PropertyNames,
// Contains, MinContains) hold the failures below them in Causes, the
// other kinds are leaves. The shape is the one rye's messages are built
// from (internal/paramschema's Explain walks it), so it is part of the
// contract: which kind a keyword gives, which causes a container keeps.
type ValidationError struct {
	// SchemaLocation is the absolute location of the schema that failed
	// (its document's URL, "#", the JSON pointer in it).
	SchemaLocation string
	// InstanceLocation is where in the value, as JSON pointer tokens.
	InstanceLocation []string
	Kind             ErrorKind
	Causes           []*ValidationError
}

// Error lists the failures, one per line: "at /a: type: found string,
// want integer".
func (e *ValidationError) Error() string {
	var b strings.Builder
	e.write(&b, 0)
	return b.String()
}

func (e *ValidationError) write(b *strings.Builder, depth int) {
	if depth > 64 {
		return
	}
	if len(e.Causes) > 0 && e.Kind.Keyword() == "" {
		for _, c := range e.Causes {
			c.write(b, depth+1)
		}
		return
	}
	if b.Len() > 0 {
		b.WriteByte('\n')
	}
	fmt.Fprintf(b, "at %q: %s", pointer(e.InstanceLocation), e.Kind)
	for _, c := range e.Causes {
		c.write(b, depth+1)
	}
}

// An ErrorKind says what failed. Keyword is the keyword whose check
// failed ("" for the containers that only group failures).
type ErrorKind interface {
	Keyword() string
	String() string
}

// Root is the top of every ValidationError Validate returns.
type Root struct{ Location string }

// Group holds the failures of several keywords of one schema.
type Group struct{}

// Reference is a failed $ref, $recursiveRef or $dynamicRef; Causes say
// why the schema it names failed.
type Reference struct {
	Ref    string // the keyword
	Target string // the location of the schema it resolved to
}

// AllOf, AnyOf: the failed alternatives are the Causes.
type (
	AllOf struct{}
	AnyOf struct{}
)

// OneOf: with two Matched indexes, the value matched both; with none, it
// matched no alternative (each one's failure is a cause).
type OneOf struct{ Matched []int }

// Not: the value matched the "not" schema.
type Not struct{}

// FalseSchema: the schema is false.
type FalseSchema struct{}

// RefCycle: references lead back to a schema already applied to the same
// value (Location1 and Location2 are the keyword paths that met).
type RefCycle struct {
	Target               string
	Location1, Location2 string
}

// InvalidValue: the value is not one a JSON document can hold.
type InvalidValue struct{ Value any }

// Type: the value's type is not among Want.
type Type struct {
	Got  string
	Want []string
}

// Enum: the value is none of Want.
type Enum struct {
	Got  any
	Want []any
}

// Const: the value is not Want.
type Const struct{ Got, Want any }

// Format: the value is not a Want (Err says why).
type Format struct {
	Got  any
	Want string
	Err  error
}

// The numeric bounds. Got and Want are exact (a schema's 0.1 is 1/10).
type (
	Minimum          struct{ Got, Want *big.Rat }
	Maximum          struct{ Got, Want *big.Rat }
	ExclusiveMinimum struct{ Got, Want *big.Rat }
	ExclusiveMaximum struct{ Got, Want *big.Rat }
	MultipleOf       struct{ Got, Want *big.Rat }
)

// The size bounds: Got is the length (characters for a string).
type (
	MinLength     struct{ Got, Want int }
	MaxLength     struct{ Got, Want int }
	MinItems      struct{ Got, Want int }
	MaxItems      struct{ Got, Want int }
	MinProperties struct{ Got, Want int }
	MaxProperties struct{ Got, Want int }
)

// Pattern: the string does not match Want.
type Pattern struct{ Got, Want string }

// UniqueItems: the items at Duplicates are equal.
type UniqueItems struct{ Duplicates [2]int }

// Required: the properties Missing are absent (in the order listed).
type Required struct{ Missing []string }

// AdditionalProperties: the Properties no "properties" or
// "patternProperties" declares, where "additionalProperties" is false.
type AdditionalProperties struct{ Properties []string }

// Dependency (draft-07 "dependencies") and DependentRequired: Prop is
// present without Missing.
type (
	Dependency struct {
		Prop    string
		Missing []string
	}
	DependentRequired struct {
		Prop    string
		Missing []string
	}
)

// PropertyNames: the name Property fails "propertyNames" (Causes say
// why, at the name's own location, which is empty).
type PropertyNames struct{ Property string }

// AdditionalItems: Count items beyond those "items" lists, where
// "additionalItems" is false.
type AdditionalItems struct{ Count int }

// Contains: no item matches (each item's failure is a cause).
type Contains struct{}

// MinContains, MaxContains: Got are the indexes of the items that match.
type (
	MinContains struct {
		Got  []int
		Want int
	}
	MaxContains struct {
		Got  []int
		Want int
	}
)

func (*Root) Keyword() string                 { return "" }
func (*Group) Keyword() string                { return "" }
func (k *Reference) Keyword() string          { return k.Ref }
func (*AllOf) Keyword() string                { return "allOf" }
func (*AnyOf) Keyword() string                { return "anyOf" }
func (*OneOf) Keyword() string                { return "oneOf" }
func (*Not) Keyword() string                  { return "not" }
func (*FalseSchema) Keyword() string          { return "" }
func (*RefCycle) Keyword() string             { return "" }
func (*InvalidValue) Keyword() string         { return "" }
func (*Type) Keyword() string                 { return "type" }
func (*Enum) Keyword() string                 { return "enum" }
func (*Const) Keyword() string                { return "const" }
func (*Format) Keyword() string               { return "format" }
func (*Minimum) Keyword() string              { return "minimum" }
func (*Maximum) Keyword() string              { return "maximum" }
func (*ExclusiveMinimum) Keyword() string     { return "exclusiveMinimum" }
func (*ExclusiveMaximum) Keyword() string     { return "exclusiveMaximum" }
func (*MultipleOf) Keyword() string           { return "multipleOf" }
func (*MinLength) Keyword() string            { return "minLength" }
func (*MaxLength) Keyword() string            { return "maxLength" }
func (*MinItems) Keyword() string             { return "minItems" }
func (*MaxItems) Keyword() string             { return "maxItems" }
func (*MinProperties) Keyword() string        { return "minProperties" }
func (*MaxProperties) Keyword() string        { return "maxProperties" }
func (*Pattern) Keyword() string              { return "pattern" }
func (*UniqueItems) Keyword() string          { return "uniqueItems" }
func (*Required) Keyword() string             { return "required" }
func (*AdditionalProperties) Keyword() string { return "additionalProperties" }
func (*Dependency) Keyword() string           { return "dependencies" }
func (*DependentRequired) Keyword() string    { return "dependentRequired" }
func (*PropertyNames) Keyword() string        { return "propertyNames" }
func (*AdditionalItems) Keyword() string      { return "additionalItems" }
func (*Contains) Keyword() string             { return "contains" }
func (*MinContains) Keyword() string          { return "minContains" }
func (*MaxContains) Keyword() string          { return "maxContains" }

func (k *Root) String() string      { return "the value does not match " + k.Location }
func (*Group) String() string       { return "several keywords failed" }
func (k *Reference) String() string { return k.Ref + " " + k.Target + " failed" }
func (*AllOf) String() string       { return "allOf: an alternative failed" }
func (*AnyOf) String() string       { return "anyOf: no alternative matched" }
func (k *OneOf) String() string {
	if len(k.Matched) >= 2 {
		return fmt.Sprintf("oneOf: alternatives %d and %d both matched", k.Matched[0], k.Matched[1])
	}
	return "oneOf: no alternative matched"
}
func (*Not) String() string         { return `not: the value matches the "not" schema` }
func (*FalseSchema) String() string { return "the schema is false" }
func (k *RefCycle) String() string {
	return fmt.Sprintf("%s and %s both lead to %s: the references loop", k.Location1, k.Location2, k.Target)
}
func (k *InvalidValue) String() string { return fmt.Sprintf("%T is not a JSON value", k.Value) }
func (k *Type) String() string {
	return "type: found " + k.Got + ", want " + strings.Join(k.Want, " or ")
}
func (k *Enum) String() string  { return fmt.Sprintf("enum: found %v, want one of %v", k.Got, k.Want) }
func (k *Const) String() string { return fmt.Sprintf("const: found %v, want %v", k.Got, k.Want) }
func (k *Format) String() string {
	return fmt.Sprintf("format: %v is not a valid %s: %v", k.Got, k.Want, k.Err)
}
func (k *Minimum) String() string {
	return "minimum: found " + ratText(k.Got) + ", want " + ratText(k.Want)
}
func (k *Maximum) String() string {
	return "maximum: found " + ratText(k.Got) + ", want " + ratText(k.Want)
}
func (k *ExclusiveMinimum) String() string {
	return "exclusiveMinimum: found " + ratText(k.Got) + ", want " + ratText(k.Want)
}
func (k *ExclusiveMaximum) String() string {
	return "exclusiveMaximum: found " + ratText(k.Got) + ", want " + ratText(k.Want)
}
func (k *MultipleOf) String() string {
	return "multipleOf: found " + ratText(k.Got) + ", want " + ratText(k.Want)
}
func (k *MinLength) String() string {
	return fmt.Sprintf("minLength: found %d, want %d", k.Got, k.Want)
}
func (k *MaxLength) String() string {
	return fmt.Sprintf("maxLength: found %d, want %d", k.Got, k.Want)
}
func (k *MinItems) String() string { return fmt.Sprintf("minItems: found %d, want %d", k.Got, k.Want) }
func (k *MaxItems) String() string { return fmt.Sprintf("maxItems: found %d, want %d", k.Got, k.Want) }
func (k *MinProperties) String() string {
	return fmt.Sprintf("minProperties: found %d, want %d", k.Got, k.Want)
}
func (k *MaxProperties) String() string {
	return fmt.Sprintf("maxProperties: found %d, want %d", k.Got, k.Want)
}
func (k *Pattern) String() string { return fmt.Sprintf("pattern: %q does not match %q", k.Got, k.Want) }
func (k *UniqueItems) String() string {
	return fmt.Sprintf("uniqueItems: items %d and %d are equal", k.Duplicates[0], k.Duplicates[1])
}
func (k *Required) String() string { return fmt.Sprintf("required: missing %q", k.Missing) }
func (k *AdditionalProperties) String() string {
	return fmt.Sprintf("additionalProperties: %q not allowed", k.Properties)
}
func (k *Dependency) String() string {
	return fmt.Sprintf("dependencies: %q without %q", k.Prop, k.Missing)
}
func (k *DependentRequired) String() string {
	return fmt.Sprintf("dependentRequired: %q without %q", k.Prop, k.Missing)
}
func (k *PropertyNames) String() string { return fmt.Sprintf("propertyNames: %q fails", k.Property) }
func (k *AdditionalItems) String() string {
	return fmt.Sprintf("additionalItems: %d items not allowed", k.Count)
}
func (*Contains) String() string { return "contains: no item matches" }
func (k *MinContains) String() string {
	return fmt.Sprintf("minContains: %d items match, want at least %d", len(k.Got), k.Want)
}
func (k *MaxContains) String() string {
	return fmt.Sprintf("maxContains: %d items match, want at most %d", len(k.Got), k.Want)
}

func ratText(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() {
		return r.Num().String()
	}
	return r.FloatString(6)
}

// --- compile errors ---

// A SchemaValidationError is a schema that is not valid against its
// draft's meta-schema. Err is the meta-schema's verdict: its instance
// locations are relative to the value at URL.
type SchemaValidationError struct {
	URL string // document URL "#" JSON pointer (percent-encoded)
	Err *ValidationError
}

func (e *SchemaValidationError) Error() string {
	return fmt.Sprintf("%q is not valid against its meta-schema: %v", e.URL, e.Err)
}

func (e *SchemaValidationError) Unwrap() error { return e.Err }

// A NotLoadedError is a reference (or "$schema") to a document that is
// not the schema itself nor one of the draft meta-schemas: nothing is
// ever loaded from files or the network.
type NotLoadedError struct{ URL string }

func (e *NotLoadedError) Error() string {
	return fmt.Sprintf("%q is not loaded: only references inside the schema (and to the draft meta-schemas) resolve", e.URL)
}

// A PointerNotFoundError is a reference to a place the document does not
// have.
type PointerNotFoundError struct{ URL string }

func (e *PointerNotFoundError) Error() string { return fmt.Sprintf("%q points at nothing", e.URL) }

// An InvalidPointerError is a reference whose JSON pointer is not one
// ("~" not followed by 0 or 1).
type InvalidPointerError struct{ URL string }

func (e *InvalidPointerError) Error() string {
	return fmt.Sprintf("%q is not a valid JSON pointer", e.URL)
}

// An AnchorNotFoundError is a reference to an anchor the document does
// not define.
type AnchorNotFoundError struct {
	URL       string // the document
	Reference string // the reference, absolute
}

func (e *AnchorNotFoundError) Error() string {
	return fmt.Sprintf("the anchor of %q is not defined in %q", e.Reference, e.URL)
}

// A DuplicateIDError is an $id given to two schemas of one document.
type DuplicateIDError struct {
	ID         string
	URL        string
	Ptr1, Ptr2 string // JSON pointers of the two schemas
}

func (e *DuplicateIDError) Error() string {
	return fmt.Sprintf("$id %q is used twice in %q, at %q and %q", e.ID, e.URL, e.Ptr1, e.Ptr2)
}

// A DuplicateAnchorError is an anchor defined twice in one resource.
type DuplicateAnchorError struct {
	Anchor     string
	URL        string
	Ptr1, Ptr2 string
}

func (e *DuplicateAnchorError) Error() string {
	return fmt.Sprintf("anchor %q is defined twice in %q, at %q and %q", e.Anchor, e.URL, e.Ptr1, e.Ptr2)
}

// An InvalidRegexError is a "pattern" or "patternProperties" key that Go's
// regexp package does not compile.
type InvalidRegexError struct {
	URL   string // of the keyword
	Regex string
	Err   error
}

func (e *InvalidRegexError) Error() string {
	return fmt.Sprintf("%q at %q is not a regular expression Go can compile: %v", e.Regex, e.URL, e.Err)
}

// A ParseURLError is a reference, $id or $schema that is not a URL.
type ParseURLError struct {
	URL string
	Err error
}

func (e *ParseURLError) Error() string { return fmt.Sprintf("%q is not a URL: %v", e.URL, e.Err) }

func (e *ParseURLError) Unwrap() error { return e.Err }

// An UnsupportedDraftError is a "$schema" that names no supported draft.
type UnsupportedDraftError struct {
	Schema string // as written
	URL    string // where
}

func (e *UnsupportedDraftError) Error() string {
	return fmt.Sprintf(`"$schema" %q at %q names no supported draft (2020-12, 2019-09 or draft-07)`, e.Schema, e.URL)
}
