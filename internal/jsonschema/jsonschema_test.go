package jsonschema

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"sync"
	"testing"
)

const testURL = "mem://rye/param-schema.json"

func parse(t testing.TB, src string) any {
	t.Helper()
	v, err := unmarshalJSON(strings.NewReader(src))
	if err != nil {
		t.Fatalf("bad test JSON %s: %v", src, err)
	}
	return v
}

func compile(t testing.TB, src string) *Schema {
	t.Helper()
	d, err := Compile(testURL, parse(t, src), Draft2020)
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	return d.Schema()
}

// leaves are the failures of an error tree below its containers, as
// "instance location: keyword".
func leaves(e *ValidationError) []string {
	var out []string
	var walk func(*ValidationError)
	walk = func(e *ValidationError) {
		switch e.Kind.(type) {
		case *Root, *Group, *AllOf, *Reference:
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		out = append(out, pointer(e.InstanceLocation)+": "+e.Kind.Keyword())
	}
	walk(e)
	return out
}

// TestKeywords checks each keyword: a value it takes, and one it refuses
// with the failure it gives (location and keyword).
func TestKeywords(t *testing.T) {
	const d7, d19 = `"$schema": "http://json-schema.org/draft-07/schema#", `, `"$schema": "https://json-schema.org/draft/2019-09/schema", `
	for _, tc := range []struct {
		schema, good, bad string
		want              string // the leaves of bad, joined by "; "
	}{
		{`{"type": "integer"}`, `1.0`, `1.5`, ": type"},
		{`{"type": ["string", "null"]}`, `null`, `1`, ": type"},
		{`{"type": "number"}`, `1`, `"1"`, ": type"},
		{`{"enum": [1, "a", {"b": [1]}]}`, `{"b": [1.0]}`, `{"b": [2]}`, ": enum"},
		{`{"const": 0.5}`, `0.50`, `0.51`, ": const"},
		{`{"minimum": 1, "maximum": 3}`, `3`, `3.5`, ": maximum"},
		{`{"exclusiveMinimum": 1, "exclusiveMaximum": 3}`, `2`, `1`, ": exclusiveMinimum"},
		{`{"multipleOf": 0.1}`, `0.3`, `0.35`, ": multipleOf"},
		{`{"multipleOf": 2}`, `9007199254740994`, `9007199254740993`, ": multipleOf"},
		{`{"minLength": 2, "maxLength": 2}`, `"éé"`, `"é"`, ": minLength"},
		{`{"maxLength": 1}`, `"é"`, `"ab"`, ": maxLength"},
		{`{"pattern": "b"}`, `"abc"`, `"ac"`, ": pattern"},
		{`{"items": {"type": "string"}}`, `["a"]`, `["a", 1]`, "/1: type"},
		{`{"prefixItems": [{"type": "string"}], "items": {"type": "integer"}}`, `["a", 1]`, `["a", 1, "x"]`, "/2: type"},
		{`{"prefixItems": [{}], "items": false}`, `[1]`, `[1, 2]`, "/1: "},
		{`{"minItems": 1, "maxItems": 1}`, `[1]`, `[1, 2]`, ": maxItems"},
		{`{"uniqueItems": true}`, `[1, "1", {"a": 1}, {"a": 2}]`, `[{"a": 1, "b": 2}, {"b": 2, "a": 1.0}]`, ": uniqueItems"},
		{`{"contains": {"type": "string"}}`, `[1, "a"]`, `[1, 2]`, ": contains"},
		{`{"contains": {"type": "string"}, "minContains": 2, "maxContains": 2}`, `["a", "b", 1]`, `["a", "b", "c"]`, ": maxContains"},
		{`{"contains": {"type": "string"}, "minContains": 0}`, `[1]`, `null`, ""},
		{`{"properties": {"a": {"type": "string"}}}`, `{"a": "x", "b": 1}`, `{"a": 1}`, "/a: type"},
		{`{"patternProperties": {"^x-": {"type": "string"}}}`, `{"x-a": "x", "y": 1}`, `{"x-a": 1}`, "/x-a: type"},
		{`{"properties": {"a": {}}, "additionalProperties": false}`, `{"a": 1}`, `{"a": 1, "b": 2}`, ": additionalProperties"},
		{`{"additionalProperties": {"type": "integer"}}`, `{"a": 1}`, `{"a": "x"}`, "/a: type"},
		{`{"required": ["a", "b"]}`, `{"a": 1, "b": 2}`, `{"a": 1}`, ": required"},
		{`{"minProperties": 1, "maxProperties": 1}`, `{"a": 1}`, `{}`, ": minProperties"},
		{`{"dependentRequired": {"a": ["b"]}}`, `{"a": 1, "b": 2}`, `{"a": 1}`, ": dependentRequired"},
		{`{"dependentSchemas": {"a": {"required": ["b"]}}}`, `{"c": 1}`, `{"a": 1}`, ": required"},
		{`{"propertyNames": {"maxLength": 1}}`, `{"a": 1}`, `{"ab": 1}`, ": propertyNames"},
		{`{"properties": {"o": {"propertyNames": {"maxLength": 1}}}}`, `{"o": {"a": 1}}`, `{"o": {"ab": 1}}`, "/o: propertyNames"},
		{`{"allOf": [{"type": "integer"}, {"minimum": 1}]}`, `1`, `0`, ": minimum"},
		{`{"anyOf": [{"type": "integer"}, {"minLength": 1}]}`, `"a"`, `""`, ": anyOf"},
		{`{"oneOf": [{"type": "integer"}, {"minimum": 1}]}`, `0`, `2`, ": oneOf"},
		{`{"not": {"type": "integer"}}`, `"a"`, `1`, ": not"},
		{`{"if": {"type": "integer"}, "then": {"minimum": 1}, "else": {"type": "string"}}`, `"a"`, `null`, ": type"},
		{`{"if": {"type": "integer"}, "then": {"minimum": 1}}`, `1`, `0`, ": minimum"},
		{`{"properties": {"a": {"type": "integer"}}, "unevaluatedProperties": false}`, `{"a": 1}`, `{"a": 1, "b": 2}`, "/b: "},
		{`{"allOf": [{"properties": {"a": {}}}], "unevaluatedProperties": false}`, `{"a": 1}`, `{"b": 1}`, "/b: "},
		{`{"anyOf": [{"properties": {"a": {}}, "required": ["a"]}, {"properties": {"b": {}}, "required": ["b"]}], "unevaluatedProperties": false}`, `{"a": 1, "b": 2}`, `{"a": 1, "c": 3}`, "/c: "},
		{`{"prefixItems": [{}], "unevaluatedItems": false}`, `[1]`, `[1, 2]`, "/1: "},
		{`{"contains": {"type": "string"}, "unevaluatedItems": {"type": "integer"}}`, `["a", 1]`, `["a", null]`, "/1: type"},
		{`true`, `{"any": "thing"}`, `null`, ""},
		{`{"properties": {"a": false}}`, `{}`, `{"a": 1}`, "/a: "},
		{`{"$ref": "#/$defs/n", "$defs": {"n": {"type": "integer"}}}`, `1`, `"1"`, ": type"},
		{`{"$ref": "#/$defs/n", "maximum": 5, "$defs": {"n": {"type": "integer"}}}`, `5`, `6`, ": maximum"},
		{`{"$ref": "#n", "$defs": {"x": {"$anchor": "n", "type": "integer"}}}`, `1`, `"1"`, ": type"},
		{`{"$ref": "http://example.com/n.json", "$defs": {"x": {"$id": "http://example.com/n.json", "type": "integer"}}}`, `1`, `"1"`, ": type"},
		{`{"properties": {"a": {"$ref": "#"}}, "type": "object"}`, `{"a": {"a": {}}}`, `{"a": {"a": 1}}`, "/a/a: type"},
		{`{"$ref": "https://json-schema.org/draft/2020-12/schema"}`, `{"type": "string"}`, `{"type": 5}`, "/type: anyOf"},
		{`{"$id": "http://x/root", "$ref": "list", "$defs": {"s": {"$dynamicAnchor": "items", "type": "string"}, "list": {"$id": "list", "type": "array", "items": {"$dynamicRef": "#items"}, "$defs": {"any": {"$dynamicAnchor": "items"}}}}}`, `["a"]`, `["a", 1]`, "/1: type"},
		{`{"format": "date"}`, `"2023-02-30"`, `null`, ""},
		{`{"format": "unknown-format"}`, `"x"`, `null`, ""},
		{`{` + d7 + `"format": "date"}`, `"2024-02-29"`, `"2023-02-29"`, ": format"},
		{`{` + d7 + `"format": "ipv4"}`, `5`, `"256.1.1.1"`, ": format"},
		{`{` + d7 + `"items": [{"type": "string"}], "additionalItems": {"type": "integer"}}`, `["a", 1]`, `["a", 1, "x"]`, "/2: type"},
		{`{` + d7 + `"items": [{}], "additionalItems": false}`, `[1]`, `[1, 2]`, ": additionalItems"},
		{`{` + d7 + `"dependencies": {"a": ["b"], "c": {"required": ["d"]}}}`, `{"a": 1, "b": 2}`, `{"a": 1, "c": 2}`, ": dependencies; : required"},
		{`{` + d7 + `"$ref": "#/definitions/n", "maximum": 5, "definitions": {"n": {"type": "integer"}}}`, `6`, `"6"`, ": type"},
		{`{` + d7 + `"$ref": "#/definitions/n", "const": 6, "definitions": {"n": {"type": "integer"}}}`, `6`, `5`, ": const"},
		{`{` + d7 + `"properties": {"a": {"type": "integer"}}, "unevaluatedProperties": false}`, `{"a": 1, "b": 2}`, `{"a": "x"}`, "/a: type"},
		{`{` + d19 + `"items": [{"type": "string"}], "unevaluatedItems": false}`, `["a"]`, `["a", 1]`, "/1: "},
		{`{` + d19 + `"$recursiveAnchor": true, "properties": {"c": {"$recursiveRef": "#"}}, "type": "object"}`, `{"c": {}}`, `{"c": 1}`, "/c: type"},
	} {
		s := compile(t, tc.schema)
		if err := s.Validate(parse(t, tc.good)); err != nil {
			t.Errorf("%s: %s: %v", tc.schema, tc.good, err)
		}
		err := s.Validate(parse(t, tc.bad))
		var verr *ValidationError
		if tc.want == "" {
			if tc.bad != "null" && err == nil {
				t.Errorf("%s: %s passed", tc.schema, tc.bad)
			}
			if tc.bad == "null" && err != nil && !strings.Contains(tc.schema, `"else"`) {
				t.Errorf("%s: null: %v", tc.schema, err)
			}
			continue
		}
		if !errors.As(err, &verr) {
			t.Errorf("%s: %s: %v", tc.schema, tc.bad, err)
			continue
		}
		if _, ok := verr.Kind.(*Root); !ok {
			t.Errorf("%s: the top is %T", tc.schema, verr.Kind)
		}
		if got := strings.Join(leaves(verr), "; "); got != tc.want {
			t.Errorf("%s: %s: got %q, want %q", tc.schema, tc.bad, got, tc.want)
		}
	}
}

// The values a kind holds, which rye's messages quote.
func TestKindValues(t *testing.T) {
	for _, tc := range []struct {
		schema, value string
		want          ErrorKind
	}{
		{`{"type": ["string", "integer"]}`, `null`, &Type{Got: "null", Want: []string{"integer", "string"}}},
		{`{"minLength": 3}`, `"ab"`, &MinLength{Got: 2, Want: 3}},
		{`{"required": ["a", "c", "b"]}`, `{"c": 1}`, &Required{Missing: []string{"a", "b"}}},
		{`{"additionalProperties": false}`, `{"b": 1, "a": 2}`, &AdditionalProperties{Properties: []string{"a", "b"}}},
		{`{"uniqueItems": true}`, `[1, 2, 1, 2]`, &UniqueItems{Duplicates: [2]int{0, 2}}},
		{`{"oneOf": [{}, {"type": "integer"}]}`, `1`, &OneOf{Matched: []int{0, 1}}},
		{`{"contains": {"type": "string"}, "minContains": 2}`, `["a", 1]`, &MinContains{Got: []int{0}, Want: 2}},
		{`{"dependentRequired": {"a": ["b", "c"]}}`, `{"a": 1, "c": 1}`, &DependentRequired{Prop: "a", Missing: []string{"b"}}},
		{`{"pattern": "^a"}`, `"b"`, &Pattern{Got: "b", Want: "^a"}},
	} {
		err := compile(t, tc.schema).Validate(parse(t, tc.value))
		var verr *ValidationError
		if !errors.As(err, &verr) || len(verr.Causes) != 1 {
			t.Errorf("%s: %v", tc.schema, err)
			continue
		}
		if got := verr.Causes[0].Kind; !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %#v, want %#v", tc.schema, got, tc.want)
		}
	}
	err := compile(t, `{"minimum": 0.5}`).Validate(0.25)
	var verr *ValidationError
	if !errors.As(err, &verr) {
		t.Fatal(err)
	}
	if k, ok := verr.Causes[0].Kind.(*Minimum); !ok || k.Got.RatString() != "1/4" || k.Want.RatString() != "1/2" {
		t.Errorf("minimum: %#v", verr.Causes[0].Kind)
	}
	// A reference that loops on one value is reported, not followed.
	err = compile(t, `{"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}`).Validate(1)
	if !errors.As(err, &verr) || !strings.Contains(verr.Error(), "references loop") {
		t.Errorf("cycle: %v", err)
	}
}

// Go values of every number type validate as their JSON numbers.
func TestNumberTypes(t *testing.T) {
	s := compile(t, `{"type": "integer", "minimum": 2, "multipleOf": 2}`)
	for _, v := range []any{int(2), int8(2), int16(4), int32(2), int64(2), uint(2), uint8(2), uint16(2), uint32(2), uint64(2), float32(2), float64(4), 2.0} {
		if err := s.Validate(v); err != nil {
			t.Errorf("%T %v: %v", v, v, err)
		}
	}
	for _, v := range []any{2.5, float32(2.5), int64(1), int64(3)} {
		if s.Validate(v) == nil {
			t.Errorf("%T %v passed", v, v)
		}
	}
	var verr *ValidationError
	if err := compile(t, `{"type": "object"}`).Validate(map[string]int{}); !errors.As(err, &verr) {
		t.Errorf("a Go map of ints: %v", err)
	}
}

func TestFormats(t *testing.T) {
	for name, cases := range map[string][2][]string{
		"date":                  {{"2024-02-29"}, {"2023-02-29", "2024-2-1", "x"}},
		"time":                  {{"23:59:60Z", "12:00:00.5+01:00", "00:00:00z"}, {"12:00:60Z", "24:00:00Z", "12:00:00", "12:00:00+1:00"}},
		"date-time":             {{"2024-01-01T00:00:00Z", "2024-01-01t23:59:60z"}, {"2024-01-01 00:00:00Z", "2024-01-01T00:00Z"}},
		"email":                 {{"a@b.c", "a.b+c@[1.2.3.4]", `"a b"@c.d`, "x@[IPv6:::1]"}, {"a..b@c", ".a@b", "ab", "a@-b", "a@b_c"}},
		"hostname":              {{"a.b-c", "x.", "a1"}, {"-a", "a..b", "a_b", strings.Repeat("a", 64)}},
		"ipv4":                  {{"1.2.3.4", "0.0.0.0"}, {"01.2.3.4", "1.2.3", "256.0.0.0", "a.b.c.d"}},
		"ipv6":                  {{"::1", "::ffff:1.2.3.4"}, {"1.2.3.4", "::1%eth0", ":::"}},
		"uri":                   {{"http://x/y", "urn:a:b"}, {"x/y", "%zz", "http://[::1/"}},
		"uri-reference":         {{"x/y", "#a", ""}, {`a\b`, "%zz"}},
		"iri":                   {{"http://x/é"}, {"é"}},
		"json-pointer":          {{"", "/a~0b/~1"}, {"a", "/a~2", "/a~"}},
		"relative-json-pointer": {{"0", "1/a", "2#"}, {"", "01", "-1", "1a"}},
		"uuid":                  {{"123e4567-e89b-12d3-a456-426614174000"}, {"123e4567e89b12d3a456426614174000", "123e4567-e89b-12d3-a456-42661417400g"}},
		"duration":              {{"P1Y2M3DT4H5M6S", "P4W", "PT1S"}, {"P", "PT", "P1S", "P1D2Y", "P1W2D", "1D"}},
		"period":                {{"2024-01-01T00:00:00Z/P1D", "P1D/2024-01-01T00:00:00Z", "2024-01-01T00:00:00Z/2024-01-02T00:00:00Z"}, {"P1D", "P1D/P2D"}},
		"regex":                 {{"^a+$", "\\d"}, {"(", "(?=x)"}},
		"semver":                {{"1.2.3", "1.0.0-alpha.1+b.2"}, {"1.2", "01.2.3", "1.2.3-01", "1.2.3+"}},
		"uri-template":          {{"http://x/{a}", "{a}"}, {"%zz"}},
	} {
		s := compile(t, fmt.Sprintf(`{"$schema": "http://json-schema.org/draft-07/schema#", "format": %q}`, name))
		for _, v := range cases[0] {
			if err := s.Validate(v); err != nil {
				t.Errorf("%s %q: %v", name, v, err)
			}
		}
		for _, v := range cases[1] {
			if s.Validate(v) == nil {
				t.Errorf("%s %q passed", name, v)
			}
		}
		if err := compile(t, fmt.Sprintf(`{"format": %q}`, name)).Validate(cases[1][0]); err != nil {
			t.Errorf("2020-12 asserts %s: %v", name, err)
		}
	}
}

// Schemas the meta-schema refuses, and references that do not resolve,
// are errors of compiling, each of its type.
func TestCompileErrors(t *testing.T) {
	for _, tc := range []struct {
		schema string
		want   any // a pointer to the error type
		text   string
	}{
		{`{"type": "strnig"}`, new(*SchemaValidationError), `at "/type"`},
		{`{"properties": {"a": {"minLength": -1}}}`, new(*SchemaValidationError), `at "/properties/a/minLength": minimum`},
		{`{"pattern": "(?=x)"}`, new(*SchemaValidationError), `at "/pattern": format`},
		{`{"$schema": "http://json-schema.org/draft-07/schema#", "items": [{"type": 1}]}`, new(*SchemaValidationError), `at "/items/0/type"`},
		{`{"$ref": "#/$defs/missing"}`, new(*PointerNotFoundError), `#/$defs/missing`},
		{`{"$ref": "#/$defs/a~2", "$defs": {"a": {}}}`, new(*InvalidPointerError), `a~2`},
		{`{"$ref": "#nowhere"}`, new(*AnchorNotFoundError), `#nowhere`},
		{`{"$ref": "common.json"}`, new(*NotLoadedError), `"mem://rye/common.json"`},
		{`{"$ref": "file:///etc/passwd"}`, new(*NotLoadedError), `file:///etc/passwd`},
		{`{"$ref": "https://example.com/s.json#/a"}`, new(*NotLoadedError), `https://example.com/s.json`},
		{`{"$schema": "https://example.com/s"}`, new(*NotLoadedError), `https://example.com/s`},
		{`{"$ref": "https://json-schema.org/draft/2020-12/schema#/properties/definitions/type"}`, new(*SchemaValidationError), `"https://json-schema.org/draft/2020-12/schema#/properties/definitions/type"`},
		{`{"properties": {"a": {"$schema": "https://example.com/s"}}}`, new(*NotLoadedError), `https://example.com/s`},
		{`{"$schema": "http://json-schema.org/draft-04/schema#"}`, new(*UnsupportedDraftError), `draft-04`},
		{`{"$schema": "https://json-schema.org/draft/2020-12/meta/core"}`, new(*UnsupportedDraftError), `meta/core`},
		{`{"$defs": {"a": {"$id": "x.json"}, "b": {"$id": "x.json"}}}`, new(*DuplicateIDError), `"mem://rye/x.json"`},
		{`{"$defs": {"a": {"$anchor": "x"}, "b": {"$anchor": "x"}}}`, new(*DuplicateAnchorError), `"x"`},
	} {
		_, err := Compile(testURL, parse(t, tc.schema), Draft2020)
		if err == nil || !errors.As(err, tc.want) || !strings.Contains(err.Error(), tc.text) {
			t.Errorf("%s: %v (want %T containing %q)", tc.schema, err, tc.want, tc.text)
		}
	}
	// A draft-04 "$schema" where no resource starts is ignored, as an
	// unknown keyword would be.
	if _, err := Compile(testURL, parse(t, `{"properties": {"a": {"$schema": "http://json-schema.org/draft-04/schema#"}}}`), Draft2020); err != nil {
		t.Error(err)
	}
}

func TestSubschema(t *testing.T) {
	d, err := Compile(testURL, parse(t, `{"$defs": {"n": {"type": "integer"}, "r": {"$ref": "#/$defs/n"}}, "definitions": {"s": {"type": "string"}}, "x-not-a-keyword": {"p": {"type": "strnig"}, "q": {"minimum": 1}}}`), Draft2020)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		ptr     []string
		good    any
		bad     any
		compErr bool
	}{
		{[]string{"$defs", "r"}, 1, "1", false},
		{[]string{"definitions", "s"}, "a", 1, false},
		{[]string{"x-not-a-keyword", "q"}, 1, 0, false},
		{[]string{"x-not-a-keyword", "p"}, nil, nil, true}, // checked against the meta-schema first
		{[]string{"$defs", "missing"}, nil, nil, true},
	} {
		s, err := d.Subschema(tc.ptr)
		if tc.compErr {
			if err == nil {
				t.Errorf("%q compiled", tc.ptr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.ptr, err)
			continue
		}
		if again, _ := d.Subschema(tc.ptr); again != s {
			t.Errorf("%q compiled twice", tc.ptr)
		}
		if s.Validate(tc.good) != nil || s.Validate(tc.bad) == nil {
			t.Errorf("%q: wrong verdicts", tc.ptr)
		}
	}
}

// Many goroutines validate with one schema, and compile subschemas of
// one document, at once (go test -race checks this).
func TestConcurrent(t *testing.T) {
	d, err := Compile(testURL, parse(t, `{"properties": {"a": {"type": "integer"}, "b": {"$ref": "#/$defs/s"}}, "$defs": {"s": {"type": "string"}}}`), draft7)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for range 50 {
				if d.Schema().Validate(map[string]any{"a": int64(i), "b": "x"}) != nil {
					t.Error("valid value refused")
				}
				if s, err := d.Subschema([]string{"$defs", "s"}); err != nil || s.Validate("x") != nil {
					t.Error(err)
				}
				if _, err := Compile(testURL, map[string]any{"$schema": "http://json-schema.org/draft-07/schema#", "maxLength": 3}, Draft2020); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
}

// Nothing happens before the first compilation, and that one compiles
// the meta-schema of its own draft only. The check runs in a process of
// its own, where no other test compiled anything first.
func TestLazyMetaSchemas(t *testing.T) {
	if os.Getenv("RYE_JSONSCHEMA_LAZY") == "1" {
		if metaReg.c != nil || metaReg.schemas != nil {
			fmt.Println("compiled before first use")
			os.Exit(1)
		}
		if _, err := Compile(testURL, map[string]any{"type": "object"}, Draft2020); err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		if len(metaReg.schemas) != 1 || metaReg.schemas[Draft2020] == nil {
			fmt.Println("compiled more than the 2020-12 meta-schema:", len(metaReg.schemas))
			os.Exit(1)
		}
		fmt.Println("lazy")
		os.Exit(0)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestLazyMetaSchemas$")
	cmd.Env = append(os.Environ(), "RYE_JSONSCHEMA_LAZY=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "lazy") {
		t.Fatalf("%v: %s", err, out)
	}
}
