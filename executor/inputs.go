package executor

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/item/syntax"
)

// InputError is a directive called with inputs it does not accept.
type InputError struct {
	Msg string
	// Declared are the directive's declared inputs, for the caller to
	// call again with the right ones (nil when unknown).
	Declared []DeclaredInput
}

func (e *InputError) Error() string { return e.Msg }

// directiveInputs validates a directive's inputs (spec 3.8): declared
// defaults apply first; a missing required input is an error listing the
// declared inputs; an input the directive does not declare is an error.
func directiveInputs(md *item.Metadata, given map[string]any) (map[string]any, error) {
	declared := md.Get("inputs").ListItems()
	out := map[string]any{}
	var names, missing []string
	byName := map[string]bool{}
	for _, in := range declared {
		name := in.Get("name").String()
		byName[name] = true
		names = append(names, name)
		if d := in.Get("default"); d != nil {
			out[name] = d.Plain()
		}
	}
	var unknown []string
	for k, v := range given {
		if !byName[k] {
			unknown = append(unknown, k)
			continue
		}
		out[k] = v
	}
	sort.Strings(unknown)
	if len(unknown) > 0 {
		return nil, &InputError{Msg: fmt.Sprintf("unknown input %s: the directive declares %s", strings.Join(unknown, ", "), declaredText(names)), Declared: declaredInputs(md)}
	}
	for _, in := range declared {
		name := in.Get("name").String()
		if _, ok := out[name]; !ok && in.Get("required").IsTrue() {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return nil, &InputError{Msg: fmt.Sprintf("missing required input %s: the directive declares %s", strings.Join(missing, ", "), declaredText(names)), Declared: declaredInputs(md)}
	}
	return out, nil
}

func declaredText(names []string) string {
	if len(names) == 0 {
		return "no inputs"
	}
	return strings.Join(names, ", ")
}

// interpolate replaces input placeholders in s (spec 3.8, read by
// item.InputPlaceholders): {input:key} becomes the value, or stays as it
// is when there is none; {input:key?} becomes "" when missing;
// {input:key:default} and {input:key|default} become the default when
// missing.
func interpolate(s string, inputs map[string]any) string {
	if !strings.Contains(s, "{input:") {
		return s
	}
	var b strings.Builder
	last := 0
	for p := range item.InputPlaceholders(s) {
		b.WriteString(s[last:p.Start])
		last = p.End
		switch v, ok := inputs[p.Name]; {
		case ok && v != nil:
			b.WriteString(text(v))
		case p.Modifier == '?':
		case p.Modifier != 0:
			b.WriteString(p.Default)
		default:
			b.WriteString(s[p.Start:p.End])
		}
	}
	b.WriteString(s[last:])
	return b.String()
}

// interpolateAll applies Interpolate to every string of a plain value
// (a directive's actions, with their attributes and params).
func interpolateAll(v any, inputs map[string]any) any {
	return mapStrings(v, func(s string) string { return interpolate(s, inputs) })
}

// inputTypes maps a directive input's type to JSON Schema.
var inputTypes = map[string]string{
	"string": "string", "integer": "integer", "int": "integer", "number": "number", "float": "number",
	"boolean": "boolean", "bool": "boolean", "array": "array", "list": "array", "object": "object", "dict": "object",
}

// InputSchema describes a directive's declared inputs as a parameter
// schema, so that they are given on the command line like a tool's
// parameters (--name value, typed by the input's type). Required inputs and
// defaults are left to directiveInputs: the schema only types and names.
func InputSchema(md *item.Metadata) *syntax.Node {
	props := syntax.NewMap(syntax.Pos{})
	for _, in := range md.Get("inputs").ListItems() {
		p := syntax.NewMap(syntax.Pos{})
		if t, ok := inputTypes[in.Get("type").String()]; ok {
			p.Set("type", syntax.Pos{}, syntax.NewString(t, syntax.Pos{}))
		}
		if d := in.Get("description").String(); d != "" {
			p.Set("description", syntax.Pos{}, syntax.NewString(d, syntax.Pos{}))
		}
		props.Set(in.Get("name").String(), syntax.Pos{}, p)
	}
	schema := syntax.NewMap(syntax.Pos{})
	schema.Set("type", syntax.Pos{}, syntax.NewString("object", syntax.Pos{}))
	schema.Set("properties", syntax.Pos{}, props)
	return schema
}
