package paramschema

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/ryekit/rye/internal/jsonschema"

	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/item/syntax"
)

// node reads a schema written as JSON (which YAML reads too) the way the
// metadata readers do: keys in order, 5 an integer and 5.5 a float.
func node(t testing.TB, src string) *syntax.Node {
	t.Helper()
	md, err := item.ReadMetadata(item.Tool, "t.yaml", []byte("config_schema: "+src+"\n"))
	if err != nil {
		t.Fatalf("bad test schema %s: %v", src, err)
	}
	return md.Schema()
}

func TestDoc(t *testing.T) {
	n := node(t, `{"a": 5, "b": 5.5, "c": [true, null, "x"]}`)
	n.Fields = append(n.Fields, &syntax.Field{Key: "a", Value: syntax.NewInt(6, syntax.Pos{})}) // the later duplicate wins
	v, probs := Doc(n)
	want := map[string]any{"a": json.Number("6"), "b": json.Number("5.5"), "c": []any{true, nil, "x"}}
	if len(probs) != 0 || !reflect.DeepEqual(v, want) {
		t.Errorf("got %#v, %v", v, probs)
	}
	if v, probs := Doc(nil); v != nil || probs != nil {
		t.Errorf("nil: %v %v", v, probs)
	}

	inf := node(t, `{"properties": {"a": {"maximum": 1, "minimum": 1}}}`)
	a := inf.Get("properties").Get("a")
	a.Fields[0].Value = syntax.NewFloat(math.Inf(1), syntax.Pos{})
	a.Fields[1].Value = syntax.NewFloat(math.NaN(), syntax.Pos{})
	_, probs = Doc(inf)
	if len(probs) != 2 || probs[0].Node != a.Fields[0].Value || !reflect.DeepEqual(probs[0].Ptr, []string{"properties", "a", "maximum"}) ||
		probs[0].Text() != "found +Inf, expected a finite number (JSON has no infinity or NaN)" || probs[1].Found != "NaN" {
		t.Errorf("infinities: %+v", probs)
	}

	deep := node(t, strings.Repeat(`{"not": `, maxDepth+5)+"{}"+strings.Repeat("}", maxDepth+5))
	_, probs = Doc(deep)
	if len(probs) != 1 || len(probs[0].Ptr) != maxDepth+1 || probs[0].Found != fmt.Sprintf("a value nested more than %d levels deep", maxDepth) {
		t.Errorf("deep: %d problems, %+v", len(probs), probs)
	}

	var many strings.Builder
	many.WriteString(`{"enum": [0`)
	for i := range maxValues {
		fmt.Fprintf(&many, ",%d", i)
	}
	many.WriteString("]}")
	big := node(t, many.String())
	_, probs = Doc(big)
	if len(probs) != 1 || probs[0].Node != big || probs[0].Ptr != nil ||
		probs[0].Text() != fmt.Sprintf("found a parameter schema of more than %d values, expected a smaller one", maxValues) {
		t.Errorf("large: %+v", probs)
	}
}

func TestResolve(t *testing.T) {
	root := node(t, `{"$defs": {"a b": {"type": "string"}, "x/y": {"type": "integer"}}, "items": [{"type": "null"}, {"type": "boolean"}]}`)
	for ref, want := range map[string]*syntax.Node{
		"#":                   root,
		"#/$defs/a b":         root.Get("$defs").Get("a b"),
		"#/%24defs/a%20b":     root.Get("$defs").Get("a b"),
		"#/$defs/x~1y":        root.Get("$defs").Get("x/y"),
		"#/items/1":           root.Get("items").Items[1],
		"#/items/01":          nil, // RFC 6901: no leading zeros
		"#/items/2":           nil,
		"#/items/-1":          nil,
		"#/$defs/nope":        nil,
		"#/$defs/a b/type/x":  nil,
		"#anchor":             nil,
		"other.json#/$defs/a": nil,
		"":                    nil,
	} {
		if got := resolve(root, ref); got != want {
			t.Errorf("Resolve(%q) = %v, want %v", ref, got, want)
		}
	}

	// a large map is indexed; the last of duplicate keys wins, as in Get
	big := syntax.NewMap(syntax.Pos{})
	for i := range 40 {
		big.Fields = append(big.Fields, &syntax.Field{Key: fmt.Sprint("k", i%30), Value: syntax.NewInt(int64(i), syntax.Pos{})})
	}
	r := NewResolver(big)
	for range 2 {
		if got := r.Resolve("#/k3"); got == nil || got.Int != 33 {
			t.Errorf("large map: %v", got)
		}
	}
}

func declaredNames(d *Declared) []string {
	var out []string
	for _, p := range d.Props {
		name := p.Name
		if !p.Always {
			name += "?"
		}
		out = append(out, name)
	}
	return out
}

func TestDeclare(t *testing.T) {
	tests := []struct {
		schema   string
		names    []string // "?": declared only where the schema may not apply
		required []string
		open     bool
		has      []string
	}{
		{schema: `{"properties": {"a": {}, "b": {}}, "required": ["b", "c"]}`, names: []string{"a", "b"}, required: []string{"b", "c"}},
		{schema: `{"type": "object", "allOf": [{"properties": {"a": {"type": "string"}}, "required": ["a"]}]}`, names: []string{"a"}, required: []string{"a"}},
		{schema: `{"anyOf": [{"properties": {"a": {}}, "required": ["a"]}, {"properties": {"b": {}}}]}`, names: []string{"a?", "b?"}},
		{schema: `{"if": {"properties": {"k": {"const": 1}}}, "then": {"properties": {"t": {}}}, "else": {"properties": {"e": {}}}}`, names: []string{"k?", "t?", "e?"}},
		{schema: `{"$ref": "#/$defs/base", "$defs": {"base": {"properties": {"a": {}}, "required": ["a"], "$ref": "#/$defs/base"}}}`, names: []string{"a"}, required: []string{"a"}},
		{schema: `{"oneOf": [{"$ref": "#/$defs/d"}], "allOf": [{"$ref": "#/$defs/d"}], "$defs": {"d": {"properties": {"x": {}}, "required": ["x"]}}}`, names: []string{"x"}, required: []string{"x"}},
		{schema: `{"not": {"properties": {"n": {}}}, "dependentSchemas": {"n": {"properties": {"m": {}}}}}`, names: []string{"n?", "m?"}},
		{schema: `{"patternProperties": {"^x-": {}}}`, has: []string{"x-a"}},
		{schema: `{"properties": {"a": {"$ref": "other.json"}}, "$ref": "other.json"}`, names: []string{"a"}, open: true},
		{schema: `{"properties": ["a"]}`, open: true},
		{schema: `{"patternProperties": {"[": {}}}`, open: true},
		{schema: `{"$dynamicRef": "#meta", "properties": {"a": {}}}`, names: []string{"a"}, open: true},
	}
	for _, tc := range tests {
		root := node(t, tc.schema)
		d := NewResolver(root).Declare(root)
		if got := declaredNames(d); !reflect.DeepEqual(got, tc.names) {
			t.Errorf("%s: names %q, want %q", tc.schema, got, tc.names)
		}
		if !reflect.DeepEqual(d.Required, tc.required) {
			t.Errorf("%s: required %q, want %q", tc.schema, d.Required, tc.required)
		}
		if d.Open != tc.open {
			t.Errorf("%s: open %v", tc.schema, d.Open)
		}
		for _, n := range append(tc.has, tc.names...) {
			if n = strings.TrimSuffix(n, "?"); !d.Has(n) {
				t.Errorf("%s: does not have %q", tc.schema, n)
			}
		}
		if d.Has("zzz") {
			t.Errorf("%s: has zzz", tc.schema)
		}
	}

	// The schema of a property is that of its first declaration where the
	// schema always applies.
	root := node(t, `{"anyOf": [{"properties": {"a": {"type": "string"}}}], "allOf": [{"properties": {"a": {"type": "integer"}}}]}`)
	d := NewResolver(root).Declare(root)
	if p := d.Lookup("a"); p == nil || !p.Always || p.Schema.Get("type").Str != "integer" {
		t.Errorf("a: %+v", p)
	}
}

func TestCompile(t *testing.T) {
	ResetCache()
	doc, _ := Doc(node(t, `{"properties": {"n": {"type": "integer", "default": 1}, "o": {"properties": {"s": {"type": "string"}}}}}`))
	same, _ := Doc(node(t, `{"properties": {"o": {"properties": {"s": {"type": "string"}}}, "n": {"default": 1, "type": "integer"}}}`))
	c := Compile(doc)
	if c.Err != nil {
		t.Fatal(c.Err)
	}
	if Compile(same) != c || CacheLen() != 1 {
		t.Errorf("the same schema was compiled twice (%d cached)", CacheLen())
	}
	sub, err := c.At([]string{"properties", "o", "properties", "s"})
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := c.At([]string{"properties", "o", "properties", "s"}); again != sub {
		t.Error("the subschema was compiled twice")
	}
	if err := Validate(sub, "x"); err != nil {
		t.Error(err)
	}
	if err := Validate(c.Schema, map[string]any{"n": "x"}); err == nil {
		t.Error("a string for an integer validated")
	}

	bad, _ := Doc(node(t, `{"properties": {"a": {"type": "strnig"}}}`))
	cb := Compile(bad)
	var sve *jsonschema.SchemaValidationError
	if cb.Schema != nil || !errors.As(cb.Err, &sve) {
		t.Errorf("bad schema: %v", cb.Err)
	}
	if _, err := cb.At(nil); err != cb.Err {
		t.Errorf("At of a bad schema: %v", err)
	}
	ext, _ := Doc(node(t, `{"$ref": "https://example.com/s.json"}`))
	if c := Compile(ext); c.Err == nil || strings.Contains(StripBase(c.Err.Error()), BaseURL) {
		t.Errorf("external reference: %v", c.Err)
	}
	if got := StripBase(`at "` + BaseURL + `#": x at ` + BaseURL + `#/a`); got != "at the schema: x at #/a" {
		t.Errorf("StripBase: %q", got)
	}
	if got := (&PanicError{"boom"}).Error(); got != "the validator failed (boom)" {
		t.Errorf("PanicError: %q", got)
	}

	for i := range MaxCached + 5 {
		d, _ := Doc(node(t, fmt.Sprintf(`{"maxProperties": %d}`, i)))
		Compile(d)
	}
	if n := CacheLen(); n > MaxCached {
		t.Errorf("%d cached, more than %d", n, MaxCached)
	}
}

func TestExplain(t *testing.T) {
	schema := `{"properties": {
		"n": {"type": "integer", "minimum": 1},
		"b": {"type": "boolean"},
		"e": {"enum": ["x", "y"]},
		"v": {"anyOf": [{"type": "string"}, {"enum": [1, 2]}]},
		"o": {"type": "object", "required": ["k"], "additionalProperties": false, "properties": {"k": {}}},
		"s": {"type": "string", "minLength": 3}
	}, "required": ["n", "b"]}`
	doc, _ := Doc(node(t, schema))
	c := Compile(doc)
	if c.Err != nil {
		t.Fatal(c.Err)
	}
	value := map[string]any{"n": "1", "e": int64(3), "v": true, "o": map[string]any{"z": int64(1), "a": int64(2)}, "s": "ab"}
	err := Validate(c.Schema, value)
	var verr *jsonschema.ValidationError
	if !errors.As(err, &verr) {
		t.Fatalf("got %v", err)
	}
	text := func(st Style) []string {
		var out []string
		for _, l := range Explain(verr, value, st) {
			out = append(out, JSONPointer(l.Loc)+" "+l.Text())
		}
		return out
	}
	got := strings.Join(text(Style{}), "\n")
	for _, want := range []string{
		`/n found "1", expected an integer`,
		`/e found 3, expected one of "x", "y"`,
		`/v found true, expected a string or one of 1, 2`,
		` missing required property "b"`,
		`/o missing required property "k"`,
		`/o found properties "a", "z", expected only the properties the schema declares`,
		`/s found "ab" (2 characters), expected at least 3 characters`,
	} {
		if !strings.Contains(got, want+"\n") && !strings.HasSuffix(got, want) {
			t.Errorf("plain style: no %q in\n%s", want, got)
		}
	}
	got = strings.Join(text(Style{Typed: true}), "\n")
	for _, want := range []string{
		`/n found "1" (a string), expected an integer`,
		`/e found 3 (an integer), expected one of "x", "y"`,
		`/v found true (a boolean), expected a string or one of 1, 2`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("typed style: no %q in\n%s", want, got)
		}
	}
}
