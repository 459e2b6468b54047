package paramschema

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	santhosh "github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/ryekit/rye/internal/jsonschema"
)

// The differential test: random schemas and values, each compiled and
// validated by internal/jsonschema and by the validator rye used before
// (github.com/santhosh-tekuri/jsonschema/v6, which tests may keep
// using), configured as rye configured it. They must agree on whether
// the schema compiles (and, when it does not, on what kind of problem it
// has), on whether each value is valid, and on the messages rye builds
// (Explain) from the two error trees. Messages are not compared where
// the former validator put a failure at a wrong place in the value, which
// this one corrects: under "propertyNames", and the items after
// "prefixItems" or under "additionalItems".

// gen draws choices from fuzz input; past its end every choice is 0.
type gen struct {
	b     []byte
	r     *rand.Rand // when set, instead of b
	clean bool       // no deliberately invalid keywords
}

func (g *gen) n(k int) int {
	if k <= 1 {
		return 0
	}
	if g.r != nil {
		return g.r.IntN(k)
	}
	if len(g.b) == 0 {
		return 0
	}
	v := int(g.b[0])
	g.b = g.b[1:]
	return v % k
}

func (g *gen) pick(s ...string) string { return s[g.n(len(s))] }

func (g *gen) chance(in int) bool { return g.n(in) == 0 }

var (
	genNames    = []string{"a", "b", "p0", "x-y", "a b", "~/"}
	genPatterns = []string{"^a", "b$", "^x-", "\\d", ".", "^$", "(?=x)", "[", "a{2}", "^\\p{L}+$"}
	genFormats  = []string{"date", "time", "date-time", "email", "hostname", "ipv4", "ipv6", "uri", "uri-reference", "iri", "json-pointer", "relative-json-pointer", "uuid", "duration", "period", "regex", "semver", "uri-template", "idn-email", "unknown"}
	genStrings  = []string{"", "a", "ab", "x-y", "1", "é", "2024-02-29", "2023-02-29", "23:59:60Z", "12:00:00+01:00", "2024-01-01T00:00:00Z", "a@b.c", "a..b@c", "[::1]", "::1", "1.2.3.4", "01.2.3.4", "1.2.3.+4", "http://x/y", "x/y", "\\", "/a~0b", "/a~2", "0#", "01/a", "123e4567-e89b-12d3-a456-426614174000", "P1Y2M", "PT", "P4W", "2024-01-01T00:00:00Z/P1D", "(", "^a+$", "1.2.3-alpha.01", "1.0.0+b", "http://[::1]:8/", "{a}/{b}", "%zz", "#a", "abc"}
	genNumbers  = []string{"0", "1", "-1", "2", "3", "0.5", "1.5", "0.1", "0.3", "1e2", "-0", "2.0", "10", "100", "1e-2", "9007199254740993"}
)

// schema draws a schema of a draft (7, 2019, 2020) at depth d.
func (g *gen) schema(draft, d int) any {
	if d > 3 || g.chance(6) {
		switch g.n(4) {
		case 0:
			return true
		case 1:
			return false
		case 2:
			return map[string]any{}
		}
		return map[string]any{"type": g.pick("string", "integer", "number", "object", "array", "boolean", "null")}
	}
	s := map[string]any{}
	for range 1 + g.n(4) {
		g.keyword(s, draft, d)
	}
	return s
}

func (g *gen) num() json.Number { return json.Number(genNumbers[g.n(len(genNumbers))]) }

func (g *gen) nonNeg() any {
	if !g.clean && g.chance(12) {
		return g.pick("-1", "1.5", "x")
	}
	return json.Number(strconv.Itoa(g.n(4)))
}

func (g *gen) keyword(s map[string]any, draft, d int) {
	sub := func() any { return g.schema(draft, d+1) }
	list := func() []any {
		l := make([]any, 1+g.n(3))
		for i := range l {
			l[i] = sub()
		}
		return l
	}
	props := func() map[string]any {
		m := map[string]any{}
		for range 1 + g.n(3) {
			m[g.pick(genNames...)] = sub()
		}
		return m
	}
	switch g.n(40) {
	case 0:
		if !g.clean && g.chance(8) {
			s["type"] = g.pick("strnig", "5")
		} else if g.chance(3) {
			s["type"] = []any{g.pick("string", "null", "integer"), g.pick("number", "object", "array")}
		} else {
			s["type"] = g.pick("string", "integer", "number", "object", "array", "boolean", "null")
		}
	case 1:
		l := make([]any, 1+g.n(3))
		for i := range l {
			l[i] = g.value(2)
		}
		s["enum"] = l
	case 2:
		s["const"] = g.value(2)
	case 3:
		s[g.pick("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")] = g.num()
	case 4:
		if !g.clean && g.chance(10) {
			s["multipleOf"] = json.Number(g.pick("0", "-1"))
		} else {
			s["multipleOf"] = json.Number(g.pick("2", "0.5", "0.1", "3", "1.5"))
		}
	case 5:
		s[g.pick("minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties")] = g.nonNeg()
	case 6:
		s["pattern"] = g.pick(genPatterns...)
		if g.clean && (s["pattern"] == "(?=x)" || s["pattern"] == "[") {
			s["pattern"] = "^a"
		}
	case 7:
		s["format"] = g.pick(genFormats...)
	case 8:
		if draft < 2020 && g.chance(2) {
			s["items"] = list()
			if g.chance(2) {
				s["additionalItems"] = sub()
			}
		} else {
			s["items"] = sub()
		}
	case 9:
		if draft >= 2020 {
			s["prefixItems"] = list()
		} else {
			s["additionalItems"] = sub()
		}
	case 10:
		s["contains"] = sub()
		if draft >= 2019 && g.chance(2) {
			s[g.pick("minContains", "maxContains")] = g.nonNeg()
		}
	case 11:
		s["uniqueItems"] = g.chance(3) || true
	case 12, 13:
		s["properties"] = props()
	case 14:
		m := map[string]any{}
		m[g.pick(genPatterns[:6]...)] = sub()
		s["patternProperties"] = m
	case 15:
		s["additionalProperties"] = sub()
	case 16:
		l := []any{g.pick(genNames...)}
		if g.chance(3) {
			l = append(l, g.pick(genNames...))
		}
		if !g.clean && g.chance(10) {
			l = append(l, json.Number("7"))
		}
		if g.clean && len(l) == 2 && l[0] == l[1] {
			l = l[:1]
		}
		s["required"] = l
	case 17:
		if draft >= 2019 {
			s["dependentRequired"] = map[string]any{g.pick(genNames...): []any{g.pick(genNames...)}}
		} else {
			s["dependencies"] = map[string]any{g.pick(genNames...): []any{g.pick(genNames...)}}
		}
	case 18:
		if draft >= 2019 {
			s["dependentSchemas"] = props()
		} else {
			s["dependencies"] = props()
		}
	case 19:
		s["propertyNames"] = sub()
	case 20:
		s["allOf"] = list()
	case 21:
		s["anyOf"] = list()
	case 22:
		s["oneOf"] = list()
	case 23:
		s["not"] = sub()
	case 24:
		s["if"] = sub()
		if g.chance(2) {
			s["then"] = sub()
		}
		if g.chance(2) {
			s["else"] = sub()
		}
	case 25, 26:
		defs := "$defs"
		if draft < 2019 || g.chance(4) {
			defs = "definitions"
		}
		m, _ := s[defs].(map[string]any)
		if m == nil {
			m = map[string]any{}
			s[defs] = m
		}
		m[g.pick("a", "b")] = sub()
	case 27, 28:
		if g.clean { // doc gives the root these $defs
			s["$ref"] = g.pick("#", "#/$defs/a", "#/$defs/b", "https://json-schema.org/draft/2020-12/schema")
			break
		}
		s["$ref"] = g.pick("#", "#/$defs/a", "#/$defs/b", "#/definitions/a", "#/properties/a", "#/nowhere", "#/$defs/a~2", "#anc", "other.json", "#/$defs/a/type",
			"https://json-schema.org/draft/2020-12/schema", "http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft/2019-09/meta/validation#/$defs/nonNegativeInteger", "%zz",
			"https://json-schema.org/draft/2020-12/schema#/properties/definitions/type", "http://json-schema.org/draft-07/schema#/definitions", "http://json-schema.org/draft-04/schema#")
	case 29:
		if g.clean {
			break
		}
		if draft >= 2019 {
			s["$anchor"] = g.pick("anc", "1bad")
		} else {
			s["$id"] = "#anc"
		}
	case 30:
		if g.clean {
			break
		}
		s["$id"] = g.pick("http://example.com/s.json", "sub.json", "#frag", "urn:x:y")
	case 31:
		if draft >= 2020 {
			s["unevaluatedProperties"] = sub()
		} else if draft == 2019 {
			s["unevaluatedItems"] = sub()
		}
	case 32:
		if draft >= 2019 {
			s["unevaluatedItems"] = sub()
		}
	case 33:
		switch draft {
		case 2020:
			if g.chance(2) {
				s["$dynamicAnchor"] = g.pick("meta", "anc")
			} else {
				s["$dynamicRef"] = g.pick("#anc", "#meta", "#/$defs/a")
			}
		case 2019:
			if g.chance(2) {
				s["$recursiveAnchor"] = true
			} else {
				s["$recursiveRef"] = "#"
			}
		}
	case 34:
		if g.clean {
			s[g.pick("title", "description", "$comment")] = g.pick(genStrings...)
			break
		}
		s[g.pick("title", "description", "$comment", "default", "examples", "deprecated", "readOnly", "contentEncoding", "contentMediaType")] = g.value(1)
	case 35:
		// a keyword of another draft, or of none
		if g.clean {
			s["x-custom"] = sub()
			break
		}
		s[g.pick("x-custom", "prefixItems", "dependentRequired", "dependencies", "$recursiveRef", "$dynamicRef", "unevaluatedProperties")] = sub()
	case 36:
		// values of the wrong kind, for the meta-schema to reject
		if g.clean {
			break
		}
		s[g.pick("properties", "items", "allOf", "not", "required", "enum", "$ref", "$defs", "additionalProperties", "uniqueItems", "$id")] = g.value(1)
	case 37:
		if g.clean {
			break
		}
		s["$schema"] = g.pick("https://json-schema.org/draft/2020-12/schema", "http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft/2019-09/schema", "https://example.com/s")
		if g.chance(2) {
			s["$id"] = "http://example.com/sub.json"
		}
	case 38:
		s["minContains"] = g.nonNeg()
	case 39:
		if g.clean {
			break
		}
		s["$vocabulary"] = map[string]any{g.pick("https://json-schema.org/draft/2020-12/vocab/core", "not a uri"): g.chance(2)}
	}
}

// value draws a JSON value of depth at most d.
func (g *gen) value(d int) any {
	k := g.n(8)
	if d <= 0 && k >= 5 {
		k = g.n(5)
	}
	switch k {
	case 0:
		return nil
	case 1:
		return g.chance(2)
	case 2:
		if g.chance(3) {
			return int64(g.n(5)) - 1
		}
		return g.num()
	case 3, 4:
		return g.pick(genStrings...)
	case 5:
		l := make([]any, g.n(4))
		for i := range l {
			l[i] = g.value(d - 1)
		}
		return l
	default:
		m := map[string]any{}
		for range g.n(4) {
			m[g.pick(genNames...)] = g.value(d - 1)
		}
		return m
	}
}

// valueFor draws a value shaped after a schema (often one it accepts,
// often one it nearly does).
func (g *gen) valueFor(schema any, d int) any {
	s, ok := schema.(map[string]any)
	if !ok || d <= 0 || g.chance(5) {
		return g.value(d)
	}
	if e, ok := s["enum"].([]any); ok && len(e) > 0 && g.chance(2) {
		return e[g.n(len(e))]
	}
	if c, ok := s["const"]; ok && g.chance(2) {
		return c
	}
	for _, kw := range []string{"allOf", "anyOf", "oneOf"} {
		if l, ok := s[kw].([]any); ok && len(l) > 0 && g.chance(3) {
			return g.valueFor(l[g.n(len(l))], d)
		}
	}
	if r, ok := s["$ref"].(string); ok && strings.HasPrefix(r, "#/$defs/") && g.chance(2) {
		if defs, ok := s["$defs"].(map[string]any); ok {
			return g.valueFor(defs[strings.TrimPrefix(r, "#/$defs/")], d)
		}
	}
	if props, ok := s["properties"].(map[string]any); ok {
		m := map[string]any{}
		for k, ps := range props {
			if !g.chance(4) {
				m[k] = g.valueFor(ps, d-1)
			}
		}
		if g.chance(3) {
			m[g.pick(genNames...)] = g.value(d - 1)
		}
		return m
	}
	var items []any
	for _, kw := range []string{"prefixItems", "items"} {
		if l, ok := s[kw].([]any); ok {
			items = l
		}
	}
	if it, ok := s["items"]; ok || items != nil {
		l := make([]any, g.n(4))
		for i := range l {
			if i < len(items) {
				l[i] = g.valueFor(items[i], d-1)
			} else if ok {
				l[i] = g.valueFor(it, d-1)
			} else {
				l[i] = g.value(d - 1)
			}
		}
		return l
	}
	switch t, _ := s["type"].(string); t {
	case "string":
		return g.pick(genStrings...)
	case "integer":
		return int64(g.n(5)) - 1
	case "number":
		return g.num()
	case "boolean":
		return g.chance(2)
	case "null":
		return nil
	case "object":
		return map[string]any{g.pick(genNames...): g.value(d - 1)}
	case "array":
		return []any{g.value(d - 1), g.value(d - 1)}
	}
	return g.value(d)
}

// doc draws a root schema and values to validate against it.
func (g *gen) doc() (schema any, values []any) {
	g.clean = g.chance(2)
	draft := []int{2020, 2020, 7, 2019}[g.n(4)]
	s, ok := g.schema(draft, 0).(map[string]any)
	if !ok || g.chance(8) {
		s = map[string]any{"properties": map[string]any{"a": g.schema(draft, 1)}}
	}
	if g.clean {
		s["$defs"] = map[string]any{"a": g.schema(draft, 2), "b": g.schema(draft, 2)}
	}
	switch draft {
	case 7:
		s["$schema"] = "http://json-schema.org/draft-07/schema#"
	case 2019:
		s["$schema"] = "https://json-schema.org/draft/2019-09/schema"
	default:
		if g.chance(4) {
			s["$schema"] = "https://json-schema.org/draft/2020-12/schema"
		}
	}
	for range 1 + g.n(4) {
		values = append(values, g.valueFor(s, 4))
	}
	return s, values
}

// oldCompile compiles as internal/paramschema did before.
func oldCompile(doc any, ptr []string) (*santhosh.Schema, error) {
	c := santhosh.NewCompiler()
	c.UseLoader(nil)
	c.DefaultDraft(santhosh.Draft2020)
	if err := c.AddResource(BaseURL, doc); err != nil {
		return nil, err
	}
	s, err := c.Compile(BaseURL)
	if err != nil || ptr == nil {
		return s, err
	}
	var frag strings.Builder
	for _, t := range ptr {
		frag.WriteByte('/')
		frag.WriteString(url.PathEscape(escapeToken(t)))
	}
	return c.Compile(BaseURL + "#" + frag.String())
}

// errorClass names what kind of compile error each validator gave.
func oldClass(err error) string {
	var (
		sve   *santhosh.SchemaValidationError
		load  *santhosh.LoadURLError
		noPtr *santhosh.JSONPointerNotFoundError
		badP  *santhosh.InvalidJsonPointerError
		noAnc *santhosh.AnchorNotFoundError
		dupID *santhosh.DuplicateIDError
		dupA  *santhosh.DuplicateAnchorError
		badRe *santhosh.InvalidRegexError
		badU  *santhosh.ParseURLError
		badID *santhosh.ParseIDError
		badA  *santhosh.ParseAnchorError
	)
	switch {
	case errors.As(err, &sve):
		return "meta"
	case errors.As(err, &load):
		return "not loaded"
	case errors.As(err, &noPtr):
		return "no pointer"
	case errors.As(err, &badP):
		return "bad pointer"
	case errors.As(err, &noAnc):
		return "no anchor"
	case errors.As(err, &dupID):
		return "duplicate id"
	case errors.As(err, &dupA):
		return "duplicate anchor"
	case errors.As(err, &badRe):
		return "regex"
	case errors.As(err, &badU), errors.As(err, &badID), errors.As(err, &badA):
		return "url"
	}
	return "other: " + err.Error()
}

func newClass(err error) string {
	var (
		sve   *jsonschema.SchemaValidationError
		load  *jsonschema.NotLoadedError
		noPtr *jsonschema.PointerNotFoundError
		badP  *jsonschema.InvalidPointerError
		noAnc *jsonschema.AnchorNotFoundError
		dupID *jsonschema.DuplicateIDError
		dupA  *jsonschema.DuplicateAnchorError
		badRe *jsonschema.InvalidRegexError
		badU  *jsonschema.ParseURLError
	)
	switch {
	case errors.As(err, &sve):
		return "meta"
	case errors.As(err, &load):
		return "not loaded"
	case errors.As(err, &noPtr):
		return "no pointer"
	case errors.As(err, &badP):
		return "bad pointer"
	case errors.As(err, &noAnc):
		return "no anchor"
	case errors.As(err, &dupID):
		return "duplicate id"
	case errors.As(err, &dupA):
		return "duplicate anchor"
	case errors.As(err, &badRe):
		return "regex"
	case errors.As(err, &badU):
		return "url"
	}
	return "other: " + err.Error()
}

// convert gives a former validator's error tree the types of the new
// one, so that Explain words both.
func convert(e *santhosh.ValidationError) *jsonschema.ValidationError {
	if e == nil {
		return nil
	}
	out := &jsonschema.ValidationError{SchemaLocation: e.SchemaURL, InstanceLocation: e.InstanceLocation}
	for _, c := range e.Causes {
		out.Causes = append(out.Causes, convert(c))
	}
	switch k := e.ErrorKind.(type) {
	case *kind.Schema:
		out.Kind = &jsonschema.Root{Location: k.Location}
	case *kind.Group:
		out.Kind = &jsonschema.Group{}
	case *kind.Reference:
		out.Kind = &jsonschema.Reference{Ref: k.Keyword, Target: k.URL}
	case *kind.AllOf:
		out.Kind = &jsonschema.AllOf{}
	case *kind.AnyOf:
		out.Kind = &jsonschema.AnyOf{}
	case *kind.OneOf:
		out.Kind = &jsonschema.OneOf{Matched: k.Subschemas}
	case *kind.Not:
		out.Kind = &jsonschema.Not{}
	case *kind.FalseSchema:
		out.Kind = &jsonschema.FalseSchema{}
	case *kind.RefCycle:
		out.Kind = &jsonschema.RefCycle{Target: k.URL, Location1: k.KeywordLocation1, Location2: k.KeywordLocation2}
	case *kind.InvalidJsonValue:
		out.Kind = &jsonschema.InvalidValue{Value: k.Value}
	case *kind.Type:
		out.Kind = &jsonschema.Type{Got: k.Got, Want: k.Want}
	case *kind.Enum:
		out.Kind = &jsonschema.Enum{Got: k.Got, Want: k.Want}
	case *kind.Const:
		out.Kind = &jsonschema.Const{Got: k.Got, Want: k.Want}
	case *kind.Format:
		out.Kind = &jsonschema.Format{Got: k.Got, Want: k.Want, Err: k.Err}
	case *kind.Minimum:
		out.Kind = &jsonschema.Minimum{Got: k.Got, Want: k.Want}
	case *kind.Maximum:
		out.Kind = &jsonschema.Maximum{Got: k.Got, Want: k.Want}
	case *kind.ExclusiveMinimum:
		out.Kind = &jsonschema.ExclusiveMinimum{Got: k.Got, Want: k.Want}
	case *kind.ExclusiveMaximum:
		out.Kind = &jsonschema.ExclusiveMaximum{Got: k.Got, Want: k.Want}
	case *kind.MultipleOf:
		out.Kind = &jsonschema.MultipleOf{Got: k.Got, Want: k.Want}
	case *kind.MinLength:
		out.Kind = &jsonschema.MinLength{Got: k.Got, Want: k.Want}
	case *kind.MaxLength:
		out.Kind = &jsonschema.MaxLength{Got: k.Got, Want: k.Want}
	case *kind.MinItems:
		out.Kind = &jsonschema.MinItems{Got: k.Got, Want: k.Want}
	case *kind.MaxItems:
		out.Kind = &jsonschema.MaxItems{Got: k.Got, Want: k.Want}
	case *kind.MinProperties:
		out.Kind = &jsonschema.MinProperties{Got: k.Got, Want: k.Want}
	case *kind.MaxProperties:
		out.Kind = &jsonschema.MaxProperties{Got: k.Got, Want: k.Want}
	case *kind.Pattern:
		out.Kind = &jsonschema.Pattern{Got: k.Got, Want: k.Want}
	case *kind.UniqueItems:
		out.Kind = &jsonschema.UniqueItems{Duplicates: k.Duplicates}
	case *kind.Required:
		out.Kind = &jsonschema.Required{Missing: k.Missing}
	case *kind.AdditionalProperties:
		out.Kind = &jsonschema.AdditionalProperties{Properties: k.Properties}
	case *kind.Dependency:
		out.Kind = &jsonschema.Dependency{Prop: k.Prop, Missing: k.Missing}
	case *kind.DependentRequired:
		out.Kind = &jsonschema.DependentRequired{Prop: k.Prop, Missing: k.Missing}
	case *kind.PropertyNames:
		out.Kind = &jsonschema.PropertyNames{Property: k.Property}
	case *kind.AdditionalItems:
		out.Kind = &jsonschema.AdditionalItems{Count: k.Count}
	case *kind.Contains:
		out.Kind = &jsonschema.Contains{}
	case *kind.MinContains:
		out.Kind = &jsonschema.MinContains{Got: k.Got, Want: k.Want}
	case *kind.MaxContains:
		out.Kind = &jsonschema.MaxContains{Got: k.Got, Want: k.Want}
	default:
		panic(fmt.Sprintf("the former validator gave an error kind rye never met: %T", k))
	}
	return out
}

// words are Explain's leaves, sorted (the former validator's order
// followed Go's map order). A format's reason is left out but for
// "regex": its words are the validator's own, not rye's.
func words(e *jsonschema.ValidationError, doc any, st Style) []string {
	var out []string
	for _, l := range Explain(e, doc, st) {
		if f, ok := l.Kind.(*jsonschema.Format); ok && f.Want != "regex" {
			l.Expected = "a valid " + f.Want
		}
		out = append(out, JSONPointer(l.Loc)+": "+l.Text())
	}
	slices.Sort(out)
	return out
}

// relocated says whether a schema has the keywords under which the
// former validator reported a failure at a wrong place in the value.
func relocated(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		for k, it := range x {
			if k == "propertyNames" || k == "prefixItems" || k == "additionalItems" || k == "patternProperties" || k == "$vocabulary" || relocated(it) {
				return true
			}
		}
	case []any:
		for _, it := range x {
			if relocated(it) {
				return true
			}
		}
	}
	return false
}

// oldDraftRef says whether a schema refers to the meta-schema of
// draft-04 or draft-06.
func oldDraftRef(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		for k, it := range x {
			if s, ok := it.(string); ok && k == "$ref" && (strings.Contains(s, "json-schema.org/draft-04/") || strings.Contains(s, "json-schema.org/draft-06/")) {
				return true
			}
			if oldDraftRef(it) {
				return true
			}
		}
	case []any:
		for _, it := range x {
			if oldDraftRef(it) {
				return true
			}
		}
	}
	return false
}

// subschemaPaths are the JSON pointers of the objects in a schema, for
// compiling a place in it as lint does.
func subschemaPaths(v any, ptr []string, out *[][]string) {
	switch x := v.(type) {
	case map[string]any:
		if len(ptr) > 0 {
			*out = append(*out, slices.Clone(ptr))
		}
		for _, k := range slices.Sorted(func(yield func(string) bool) {
			for k := range x {
				if !yield(k) {
					return
				}
			}
		}) {
			subschemaPaths(x[k], append(ptr, k), out)
		}
	case []any:
		for i, it := range x {
			subschemaPaths(it, append(ptr, strconv.Itoa(i)), out)
		}
	}
}

// differ compares the two validators on one schema and its values; "" when
// they agree.
func differ(schema any, values []any, at []string) string {
	show := func() string {
		b, _ := json.Marshal(schema)
		vs, _ := json.Marshal(values)
		return fmt.Sprintf("\nschema %s\nat %q\nvalues %s", b, at, vs)
	}
	var (
		newSch *jsonschema.Schema
		newErr error
	)
	doc, err := jsonschema.Compile(BaseURL, schema, jsonschema.Draft2020)
	if err == nil && at != nil {
		newSch, newErr = doc.Subschema(at)
	} else if err == nil {
		newSch = doc.Schema()
	} else {
		newErr = err
	}
	oldSch, oldErr := oldCompile(schema, at)
	if newErr != nil && oldDraftRef(schema) {
		// rye does not read draft-04 and draft-06: a reference to their
		// meta-schemas (which the former validator carried) resolves to
		// nothing, and the schema does not compile.
		var nl *jsonschema.NotLoadedError
		if oldErr == nil && (!errors.As(newErr, &nl) || !strings.Contains(nl.URL, "json-schema.org/draft-0")) {
			return fmt.Sprintf("a reference to an unsupported draft: %v%s", newErr, show())
		}
		return ""
	}
	if (newErr == nil) != (oldErr == nil) {
		return fmt.Sprintf("compiles: new %v, former %v%s", newErr, oldErr, show())
	}
	if newErr != nil {
		nc, oc := newClass(newErr), oldClass(oldErr)
		// The former validator met a document's problems in Go's map
		// order: with two of them, either may come first.
		for range 40 {
			if nc == oc {
				break
			}
			_, again := oldCompile(schema, at)
			oc = oldClass(again)
		}
		if nc != oc {
			return fmt.Sprintf("compile errors: new %s (%v), former %s (%v)%s", nc, newErr, oc, oldErr, show())
		}
		var nsve *jsonschema.SchemaValidationError
		var osve *santhosh.SchemaValidationError
		if errors.As(newErr, &nsve) && errors.As(oldErr, &osve) && !relocated(schema) {
			if nsve.URL != osve.URL {
				return fmt.Sprintf("meta-validation of %s, former of %s%s", nsve.URL, osve.URL, show())
			}
			overr, _ := osve.Err.(*santhosh.ValidationError)
			st := Style{Typed: true, Keywords: true}
			nw, ow := words(nsve.Err, schema, st), words(convert(overr), schema, st)
			if !slices.Equal(nw, ow) {
				return fmt.Sprintf("meta-validation messages:\nnew    %q\nformer %q%s", nw, ow, show())
			}
		}
		return ""
	}
	for _, v := range values {
		nerr, oerr := newSch.Validate(v), oldSch.Validate(v)
		if (nerr == nil) != (oerr == nil) {
			b, _ := json.Marshal(v)
			return fmt.Sprintf("value %s: new %v, former %v%s", b, nerr, oerr, show())
		}
		if nerr == nil || relocated(schema) {
			continue
		}
		var nv *jsonschema.ValidationError
		var ov *santhosh.ValidationError
		if !errors.As(nerr, &nv) || !errors.As(oerr, &ov) {
			return fmt.Sprintf("errors of other types: %T, %T%s", nerr, oerr, show())
		}
		nw, ow := words(nv, v, Style{Typed: true}), words(convert(ov), v, Style{Typed: true})
		if !slices.Equal(nw, ow) {
			b, _ := json.Marshal(v)
			return fmt.Sprintf("value %s messages:\nnew    %q\nformer %q%s", b, nw, ow, show())
		}
	}
	return ""
}

func differential(g *gen) string {
	schema, values := g.doc()
	if d := differ(schema, values, nil); d != "" {
		return d
	}
	var paths [][]string
	subschemaPaths(schema, nil, &paths)
	if len(paths) > 0 {
		return differ(schema, values, paths[g.n(len(paths))])
	}
	return ""
}

// FuzzDifferential: the fuzzer's bytes choose the schema and values.
func FuzzDifferential(f *testing.F) {
	for _, s := range []string{"", "\x01\x02\x03", "\x00\x05\x0c\x1b\x07", "\x02\x10\x22\x07\x03\x01\x04", "\x03\x25\x1c\x02\x1b\x1b\x08"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if d := differential(&gen{b: b}); d != "" {
			t.Fatal(d)
		}
	})
}

// TestDifferential runs the comparison over a fixed series of random
// schemas on every test run (the fuzz target explores further).
func TestDifferential(t *testing.T) {
	n := 4000
	if testing.Short() {
		n = 500
	}
	r := rand.New(rand.NewPCG(22, 2026))
	fails := 0
	for i := range n {
		if d := differential(&gen{r: r}); d != "" {
			t.Errorf("case %d: %s", i, d)
			if fails++; fails == 10 {
				t.Fatal("stopping after 10 differences")
			}
		}
	}
}
