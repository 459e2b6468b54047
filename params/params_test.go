package params

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/item/syntax"
)

// paramTestNode reads JSON into a node tree keeping the order of keys (as
// the metadata readers do), which decoding JSON into Go maps would not.
func paramTestNode(t testing.TB, src string) *syntax.Node {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(src))
	dec.UseNumber()
	n, err := paramTestRead(dec)
	if err != nil {
		t.Fatalf("bad test schema: %v", err)
	}
	return n
}

func paramTestRead(dec *json.Decoder) (*syntax.Node, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch x := tok.(type) {
	case json.Delim:
		switch x {
		case '{':
			n := &syntax.Node{Kind: syntax.MapNode}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := paramTestRead(dec)
				if err != nil {
					return nil, err
				}
				n.Fields = append(n.Fields, &syntax.Field{Key: k.(string), Value: v})
			}
			_, err := dec.Token()
			return n, err
		case '[':
			n := &syntax.Node{Kind: syntax.ListNode}
			for dec.More() {
				v, err := paramTestRead(dec)
				if err != nil {
					return nil, err
				}
				n.Items = append(n.Items, v)
			}
			_, err := dec.Token()
			return n, err
		}
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return &syntax.Node{Kind: syntax.IntNode, Int: i}, nil
		}
		f, err := x.Float64()
		return &syntax.Node{Kind: syntax.FloatNode, Float: f}, err
	case string:
		return &syntax.Node{Kind: syntax.StringNode, Str: x}, nil
	case bool:
		return &syntax.Node{Kind: syntax.BoolNode, Bool: x}, nil
	case nil:
		return &syntax.Node{Kind: syntax.NullNode}, nil
	}
	return nil, fmt.Errorf("unexpected token %v", tok)
}

// paramTestSchemaJSON is a realistic tool schema used by most tests.
const paramTestSchemaJSON = `{
  "type": "object",
  "properties": {
    "command": {"type": "string", "description": "The shell command\n   to run"},
    "timeout": {"type": "integer", "default": 30, "description": "Seconds before the command is stopped"},
    "ratio": {"type": "number", "minimum": 0},
    "verbose": {"type": "boolean"},
    "dry_run": {"type": "boolean", "description": "Show what would run"},
    "tags": {"type": "array", "items": {"type": "string"}},
    "ids": {"type": "array", "items": {"type": "integer"}},
    "opts": {"type": "object", "properties": {
      "depth": {"type": "integer", "default": 3},
      "follow": {"type": "boolean", "default": false}
    }},
    "mode": {"type": "string", "enum": ["fast", "slow"], "default": "fast"},
    "note": {"type": ["string", "null"]},
    "extra": {"description": "Anything"}
  },
  "required": ["command"]
}`

func paramTestFiles(files map[string]string) func(string) ([]byte, error) {
	return func(name string) ([]byte, error) {
		if s, ok := files[name]; ok {
			return []byte(s), nil
		}
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
}

func TestParseParams(t *testing.T) {
	schema := paramTestNode(t, paramTestSchemaJSON)
	files := paramTestFiles(map[string]string{
		"p.json":   `{"command": "from-file", "timeout": 7}`,
		"bad.json": `{"command": `,
	})
	tests := []struct {
		name    string
		schema  string // JSON; "" = the realistic schema
		args    []string
		params  string
		want    map[string]any
		wantErr string // substring of Msg; "" = no error
	}{
		// --k v, --k=v
		{name: "space value", args: []string{"--command", "ls -la"}, want: map[string]any{"command": "ls -la"}},
		{name: "equals value", args: []string{"--command=ls -la"}, want: map[string]any{"command": "ls -la"}},
		{name: "equals value keeps later =", args: []string{"--command=a=b"}, want: map[string]any{"command": "a=b"}},
		{name: "empty equals value", args: []string{"--command="}, want: map[string]any{"command": ""}},
		{name: "value beginning with -- by =", args: []string{"--command=--version"}, want: map[string]any{"command": "--version"}},
		{name: "negative number as next value", args: []string{"--timeout", "-5"}, want: map[string]any{"timeout": int64(-5)}},
		{name: "flag without value at the end", args: []string{"--command"}, wantErr: "--command needs a value"},
		{name: "flag followed by a flag", args: []string{"--command", "--verbose"}, wantErr: "--command needs a value"},
		{name: "flag followed by --", args: []string{"--command", "--"}, wantErr: "--command needs a value"},
		{name: "empty flag name", args: []string{"--=x"}, wantErr: `found "--=x", expected --name or --name=value`},

		// booleans
		{name: "bare boolean", args: []string{"--verbose"}, want: map[string]any{"verbose": true}},
		{name: "boolean =false", args: []string{"--verbose=false"}, want: map[string]any{"verbose": false}},
		{name: "boolean =true", args: []string{"--verbose=true"}, want: map[string]any{"verbose": true}},
		{name: "boolean =no", args: []string{"--verbose=no"}, want: map[string]any{"verbose": false}},
		{name: "bare boolean does not take the next argument", args: []string{"--verbose", "ls"}, want: map[string]any{"verbose": true, "command": "ls"}},
		{name: "bad boolean", args: []string{"--verbose=maybe"}, wantErr: `--verbose: found "maybe", expected true or false`},
		{name: "boolean twice", args: []string{"--verbose", "--verbose"}, wantErr: "--verbose given more than once"},

		// integers and numbers
		{name: "integer", args: []string{"--timeout", "5"}, want: map[string]any{"timeout": int64(5)}},
		{name: "integer written as whole decimal", args: []string{"--timeout=5.0"}, want: map[string]any{"timeout": int64(5)}},
		{name: "bad integer", args: []string{"--timeout", "x"}, wantErr: `--timeout: found "x", expected an integer`},
		{name: "fractional integer", args: []string{"--timeout", "1.5"}, wantErr: `--timeout: found "1.5", expected an integer`},
		{name: "integer out of range", args: []string{"--timeout", "99999999999999999999"}, wantErr: `expected an integer (out of range)`},
		{name: "number", args: []string{"--ratio", "0.25"}, want: map[string]any{"ratio": 0.25}},
		{name: "whole number stays a number", args: []string{"--ratio=2"}, want: map[string]any{"ratio": float64(2)}},
		{name: "bad number", args: []string{"--ratio", "abc"}, wantErr: `--ratio: found "abc", expected a number`},
		{name: "number rejects NaN", args: []string{"--ratio", "NaN"}, wantErr: `--ratio: found "NaN", expected a number`},
		{name: "number rejects Inf", args: []string{"--ratio", "1e999"}, wantErr: `--ratio: found "1e999", expected a number`},
		{name: "number rejects hex", args: []string{"--ratio", "0x10"}, wantErr: `expected a number`},

		// arrays
		{name: "array by repetition", args: []string{"--tags", "a", "--tags=b"}, want: map[string]any{"tags": []any{"a", "b"}}},
		{name: "array by JSON", args: []string{"--tags", `["a", "b"]`}, want: map[string]any{"tags": []any{"a", "b"}}},
		{name: "array JSON then repetition", args: []string{"--tags", `["a"]`, "--tags", "b"}, want: map[string]any{"tags": []any{"a", "b"}}},
		{name: "array item that is not JSON stays a string", args: []string{"--tags", "[x"}, want: map[string]any{"tags": []any{"[x"}}},
		{name: "integer array items converted", args: []string{"--ids", "1", "--ids", "2"}, want: map[string]any{"ids": []any{int64(1), int64(2)}}},
		{name: "integer array by JSON", args: []string{"--ids=[1,2,3]"}, want: map[string]any{"ids": []any{int64(1), int64(2), int64(3)}}},
		{name: "bad integer array item", args: []string{"--ids", "1", "--ids", "two"}, wantErr: `--ids: found "two", expected an integer`},

		// objects
		{name: "object as JSON", args: []string{"--opts", `{"depth": 2}`}, want: map[string]any{"opts": map[string]any{"depth": int64(2)}}},
		{name: "bad JSON object", args: []string{"--opts", `{"depth": }`}, wantErr: `--opts: found "{\"depth\": }", expected a JSON object`},
		{name: "JSON that is not an object", args: []string{"--opts", `[1]`}, wantErr: `--opts: found "[1]", expected a JSON object`},
		{name: "object given twice", args: []string{"--opts={}", "--opts={}"}, wantErr: "--opts given more than once (only array parameters can be repeated)"},

		// - and _
		{name: "dash for underscore", args: []string{"--dry-run"}, want: map[string]any{"dry_run": true}},
		{name: "underscore as written", args: []string{"--dry_run=false"}, want: map[string]any{"dry_run": false}},
		{name: "underscore for dash", schema: `{"properties": {"max-turns": {"type": "integer"}}}`, args: []string{"--max_turns", "3"}, want: map[string]any{"max-turns": int64(3)}},
		{name: "exact name wins over normalized", schema: `{"properties": {"a-b": {"type": "string"}, "a_b": {"type": "integer"}}}`, args: []string{"--a_b", "1", "--a-b", "x"}, want: map[string]any{"a_b": int64(1), "a-b": "x"}},

		// type lists and no type
		{name: "type list null", args: []string{"--note", "null"}, want: map[string]any{"note": nil}},
		{name: "type list string", args: []string{"--note", "hello"}, want: map[string]any{"note": "hello"}},
		{name: "type list keeps a number-looking string", args: []string{"--note", "42"}, want: map[string]any{"note": "42"}},
		{name: "type list without string takes JSON", schema: `{"properties": {"n": {"type": ["integer", "null"]}}}`, args: []string{"--n", "42"}, want: map[string]any{"n": int64(42)}},
		{name: "type list with boolean is a bare flag", schema: `{"properties": {"b": {"type": ["boolean", "null"]}}}`, args: []string{"--b"}, want: map[string]any{"b": true}},
		{name: "no type: JSON when it parses", args: []string{"--extra", `{"a": [1, 2.5]}`}, want: map[string]any{"extra": map[string]any{"a": []any{int64(1), 2.5}}}},
		{name: "no type: number", args: []string{"--extra", "5"}, want: map[string]any{"extra": int64(5)}},
		{name: "no type: else a string", args: []string{"--extra", "five"}, want: map[string]any{"extra": "five"}},
		{name: "type through a local $ref", schema: `{"$defs": {"n": {"type": "integer"}}, "properties": {"n": {"$ref": "#/$defs/n"}}}`, args: []string{"--n", "x"}, wantErr: `--n: found "x", expected an integer`},

		// the positional primary
		{name: "positional to the single required", args: []string{"ls -la"}, want: map[string]any{"command": "ls -la"}},
		{name: "positional with flags around", args: []string{"--timeout", "3", "ls", "--verbose"}, want: map[string]any{"command": "ls", "timeout": int64(3), "verbose": true}},
		{name: "positional to x-primary", schema: `{"properties": {"a": {"type": "string"}, "b": {"type": "integer", "x-primary": true}}, "required": ["a"]}`, args: []string{"7"}, want: map[string]any{"b": int64(7)}},
		{name: "positional converted by type", schema: `{"properties": {"n": {"type": "integer"}}, "required": ["n"]}`, args: []string{"x"}, wantErr: `--n: found "x", expected an integer`},
		{name: "positional ambiguous required", schema: `{"properties": {"a": {"type": "string"}, "b": {"type": "string"}}, "required": ["a", "b"]}`, args: []string{"v"}, wantErr: `found the positional argument "v", but this tool has several required parameters (--a, --b) and none is marked "x-primary"`},
		{name: "positional ambiguous x-primary", schema: `{"properties": {"a": {"x-primary": true}, "b": {"x-primary": true}}}`, args: []string{"v"}, wantErr: `several parameters are marked "x-primary" (--a, --b)`},
		{name: "positional without primary", schema: `{"properties": {"a": {"type": "string"}}}`, args: []string{"v"}, wantErr: `found the positional argument "v", but this tool has no primary parameter: give parameters as --name value`},
		{name: "positional for a tool without parameters", schema: `{"type": "object"}`, args: []string{"v"}, wantErr: `but this tool takes no parameters`},
		{name: "two positionals", args: []string{"a", "b"}, wantErr: `found 2 positional arguments ("a", "b"), expected at most one (for --command)`},
		{name: "positional and flag for the primary", args: []string{"--command", "a", "b"}, wantErr: "--command given more than once"},
		{name: "everything after -- is positional", args: []string{"--", "--verbose"}, want: map[string]any{"command": "--verbose"}},
		{name: "flags before --", args: []string{"--verbose", "--", "-rf"}, want: map[string]any{"verbose": true, "command": "-rf"}},
		{name: "two positionals after --", args: []string{"--", "a", "--b"}, wantErr: "found 2 positional arguments"},
		{name: "a lone dash is positional", args: []string{"-"}, want: map[string]any{"command": "-"}},
		{name: "single-dash flag", args: []string{"-verbose"}, wantErr: "unknown flag -verbose: parameters are given with two dashes (--name value); did you mean --verbose?"},

		// --params
		{name: "params JSON", params: `{"command": "x", "timeout": 9}`, want: map[string]any{"command": "x", "timeout": int64(9)}},
		{name: "params merge under flags", args: []string{"--timeout", "1"}, params: `{"command": "x", "timeout": 9}`, want: map[string]any{"command": "x", "timeout": int64(1)}},
		{name: "array flag replaces params array", args: []string{"--tags", "b"}, params: `{"tags": ["a"]}`, want: map[string]any{"tags": []any{"b"}}},
		{name: "params from a file", params: "@p.json", want: map[string]any{"command": "from-file", "timeout": int64(7)}},
		{name: "params file under flags", args: []string{"--command=flag"}, params: "@p.json", want: map[string]any{"command": "flag", "timeout": int64(7)}},
		{name: "params file cannot be read", params: "@missing.json", wantErr: `--params "@missing.json": cannot read the file: open missing.json: file does not exist`},
		{name: "params file with bad JSON", params: "@bad.json", wantErr: `--params "@bad.json": expected a JSON object`},
		{name: "params @ without a name", params: "@", wantErr: "expected a file name after @"},
		{name: "invalid params JSON", params: `{"command": }`, wantErr: "--params: expected a JSON object ({\"name\": value, ...}), found invalid JSON"},
		{name: "params trailing text", params: `{} x`, wantErr: "unexpected text after the JSON value"},
		{name: "params not an object", params: `[1, 2]`, wantErr: "--params: found [1,2], expected a JSON object"},
		{name: "params keys kept as written", params: `{"whatever": 1}`, want: map[string]any{"whatever": int64(1)}},
		{name: "params number out of range", params: `{"ratio": 1e999}`, wantErr: "out of range"},

		// unknown flags
		{name: "unknown flag with suggestion", args: []string{"--comand", "x"}, wantErr: "unknown parameter --comand; did you mean --command?"},
		{name: "unknown flag swapped letters", args: []string{"--timeuot=1"}, wantErr: "did you mean --timeout?"},
		{name: "unknown flag by prefix", args: []string{"--verb"}, wantErr: "did you mean --verbose?"},
		{name: "unknown flag without suggestion", args: []string{"--zzzzzz"}, wantErr: "unknown parameter --zzzzzz\n"},
		{name: "unknown flag for a tool without parameters", schema: `{"type": "object"}`, args: []string{"--x"}, wantErr: "unknown parameter --x\nthis tool takes no parameters"},

		// nothing
		{name: "no arguments", want: map[string]any{}},
		{name: "nil schema, no arguments", schema: "null", want: map[string]any{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sch := schema
			if tc.schema == "null" {
				sch = nil
			} else if tc.schema != "" {
				sch = paramTestNode(t, tc.schema)
			}
			got, err := Parse(sch, tc.args, tc.params, files)
			if tc.wantErr != "" {
				var pe *Error
				if !errors.As(err, &pe) {
					t.Fatalf("got %v, %v; want *Error containing %q", got, err, tc.wantErr)
				}
				if !strings.Contains(pe.Error(), tc.wantErr) {
					t.Fatalf("error %q\ndoes not contain %q", pe.Error(), tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got  %#v\nwant %#v", got, tc.want)
			}
		})
	}
}

func TestParseParamsErrorListsValid(t *testing.T) {
	schema := paramTestNode(t, `{"properties": {
		"name": {"type": "string", "default": "World"},
		"count": {"type": "integer"}
	}, "required": ["count"]}`)
	_, err := Parse(schema, []string{"--nmae", "x"}, "", nil)
	var pe *Error
	if !errors.As(err, &pe) {
		t.Fatalf("got %v, want *Error", err)
	}
	want := "unknown parameter --nmae; did you mean --name?\nvalid parameters:\n  --name string (default \"World\")\n  --count integer (required)"
	if pe.Error() != want {
		t.Fatalf("got\n%s\nwant\n%s", pe.Error(), want)
	}
	wantValid := []string{`--name string (default "World")`, "--count integer (required)"}
	if !reflect.DeepEqual(pe.Valid, wantValid) {
		t.Fatalf("Valid = %q, want %q", pe.Valid, wantValid)
	}
}

func TestParseParamsDefaultReadFile(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/p.json"
	if err := os.WriteFile(path, []byte(`{"command": "disk"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := Parse(paramTestNode(t, paramTestSchemaJSON), nil, "@"+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got["command"] != "disk" {
		t.Fatalf("got %v", got)
	}
}

func TestPrepareParams(t *testing.T) {
	schema := paramTestNode(t, paramTestSchemaJSON)
	tests := []struct {
		name    string
		schema  string // JSON; "" = the realistic schema, "null" = nil
		params  map[string]any
		want    map[string]any
		wantErr string // exact Msg when it has no "~" prefix, else a substring
	}{
		{name: "top-level defaults", params: map[string]any{"command": "ls"},
			want: map[string]any{"command": "ls", "timeout": int64(30), "mode": "fast"}},
		{name: "given values win over defaults", params: map[string]any{"command": "ls", "timeout": int64(5), "mode": "slow"},
			want: map[string]any{"command": "ls", "timeout": int64(5), "mode": "slow"}},
		{name: "nested defaults of a present object", params: map[string]any{"command": "ls", "opts": map[string]any{"follow": true}},
			want: map[string]any{"command": "ls", "timeout": int64(30), "mode": "fast", "opts": map[string]any{"depth": int64(3), "follow": true}}},
		{name: "no nested defaults for an absent object", params: map[string]any{"command": "ls"},
			want: map[string]any{"command": "ls", "timeout": int64(30), "mode": "fast"}},
		{name: "nested defaults inside an object default",
			schema: `{"properties": {"o": {"type": "object", "default": {}, "properties": {"d": {"default": 2}}}}}`,
			params: map[string]any{}, want: map[string]any{"o": map[string]any{"d": int64(2)}}},
		{name: "null is not replaced by a default", params: map[string]any{"command": "ls", "timeout": nil},
			wantErr: `--timeout: found null, expected an integer`},
		{name: "missing required", params: map[string]any{},
			wantErr: "missing required parameter --command"},
		{name: "missing required, several", schema: `{"properties": {"b": {}, "a": {}}, "required": ["b", "a"]}`, params: map[string]any{},
			wantErr: "missing required parameters --a, --b"},
		{name: "wrong type from --params", params: map[string]any{"command": "ls", "timeout": "x"},
			wantErr: `--timeout: found "x", expected an integer`},
		{name: "wrong type boolean", params: map[string]any{"command": "ls", "verbose": "yes"},
			wantErr: `--verbose: found "yes", expected true or false`},
		{name: "wrong type array item", params: map[string]any{"command": "ls", "ids": []any{int64(1), "b"}},
			wantErr: `--ids[1]: found "b", expected an integer`},
		{name: "wrong type nested", params: map[string]any{"command": "ls", "opts": map[string]any{"depth": "deep"}},
			wantErr: `--opts.depth: found "deep", expected an integer`},
		{name: "enum", params: map[string]any{"command": "ls", "mode": "medium"},
			wantErr: `--mode: found "medium", expected one of "fast", "slow"`},
		{name: "minimum", params: map[string]any{"command": "ls", "ratio": -1.5},
			wantErr: `--ratio: found -1.5, expected at least 0`},
		{name: "several problems, sorted", params: map[string]any{"command": int64(1), "mode": "x"},
			wantErr: "--command: found 1, expected a string\n--mode: found \"x\", expected one of \"fast\", \"slow\""},
		{name: "type list", params: map[string]any{"command": "ls", "note": int64(3)},
			wantErr: `--note: found 3, expected a string or null`},
		{name: "anyOf of types", schema: `{"properties": {"v": {"anyOf": [{"type": "string"}, {"type": "integer"}]}}}`, params: map[string]any{"v": true},
			wantErr: `--v: found true, expected a string or an integer`},
		{name: "unknown parameter from --params", params: map[string]any{"command": "ls", "timout": int64(1)},
			wantErr: "unknown parameter --timout; did you mean --timeout?"},
		{name: "unknown parameters", params: map[string]any{"command": "ls", "zzz": 1, "verbos": true},
			wantErr: "unknown parameters --verbos (did you mean --verbose?), --zzz"},
		{name: "unknown parameter is not normalized", params: map[string]any{"command": "ls", "dry-run": true},
			wantErr: "unknown parameter --dry-run; did you mean --dry_run?"},
		{name: "unknown parameter, tool without parameters", schema: `{"type": "object"}`, params: map[string]any{"a": 1},
			wantErr: "unknown parameter --a"},
		{name: "additionalProperties false", schema: `{"properties": {"a": {}}, "additionalProperties": false}`, params: map[string]any{"b": 1},
			wantErr: "unknown parameter --b"},
		{name: "explicit additionalProperties takes more", schema: `{"properties": {"a": {}}, "additionalProperties": {"type": "string"}}`, params: map[string]any{"b": "x"},
			want: map[string]any{"b": "x"}},
		{name: "explicit additionalProperties still validates", schema: `{"properties": {"a": {}}, "additionalProperties": {"type": "string"}}`, params: map[string]any{"b": int64(1)},
			wantErr: "--b: found 1, expected a string"},
		{name: "patternProperties take matching names", schema: `{"patternProperties": {"^env_": {"type": "string"}}}`, params: map[string]any{"env_HOME": "/root"},
			want: map[string]any{"env_HOME": "/root"}},
		{name: "patternProperties reject the rest", schema: `{"patternProperties": {"^env_": {"type": "string"}}}`, params: map[string]any{"home": "/root"},
			wantErr: "unknown parameter --home"},
		{name: "nested additionalProperties", schema: `{"properties": {"o": {"type": "object", "additionalProperties": false, "properties": {"a": {}}}}}`, params: map[string]any{"o": map[string]any{"b": 1}},
			wantErr: `--o: unknown property "b"`},
		{name: "nested required", schema: `{"properties": {"o": {"type": "object", "required": ["a"]}}}`, params: map[string]any{"o": map[string]any{}},
			wantErr: `--o: missing required property "a"`},
		{name: "draft-07 by $schema", schema: `{"$schema": "http://json-schema.org/draft-07/schema#", "properties": {"a": {"type": "integer"}}}`, params: map[string]any{"a": "x"},
			wantErr: `--a: found "x", expected an integer`},
		{name: "nested propertyNames is reported at its object", schema: `{"properties": {"env": {"type": "object", "propertyNames": {"pattern": "^[A-Z_]+$"}}}}`, params: map[string]any{"env": map[string]any{"home": "x"}},
			wantErr: `--env: found the property name "home", expected a string matching "^[A-Z_]+$" (by "propertyNames")`},
		{name: "items after prefixItems are named by their index", schema: `{"properties": {"p": {"type": "array", "prefixItems": [{"type": "string"}], "items": {"type": "integer"}}}}`, params: map[string]any{"p": []any{"a", int64(1), "x"}},
			wantErr: `--p[2]: found "x", expected an integer`},
		{name: "format is an annotation in 2020-12", schema: `{"properties": {"d": {"type": "string", "format": "date"}}}`, params: map[string]any{"d": "tomorrow"},
			want: map[string]any{"d": "tomorrow"}},
		{name: "format asserts in draft-07", schema: `{"$schema": "http://json-schema.org/draft-07/schema#", "properties": {"d": {"type": "string", "format": "date"}}}`, params: map[string]any{"d": "tomorrow"},
			wantErr: `--d: found "tomorrow", expected a valid date (parsing time "tomorrow" as "2006-01-02": cannot parse "tomorrow" as "2006")`},
		{name: "whole float is an integer", params: map[string]any{"command": "ls", "timeout": float64(5)},
			want: map[string]any{"command": "ls", "timeout": float64(5), "mode": "fast"}},
		{name: "nil schema, nil params", schema: "null", params: nil, want: map[string]any{}},
		{name: "defaults through $ref", schema: `{"$defs": {"t": {"type": "integer", "default": 4}}, "properties": {"t": {"$ref": "#/$defs/t"}}}`, params: map[string]any{},
			want: map[string]any{"t": int64(4)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sch := schema
			if tc.schema == "null" {
				sch = nil
			} else if tc.schema != "" {
				sch = paramTestNode(t, tc.schema)
			}
			before := fmt.Sprint(tc.params)
			got, err := Prepare(sch, tc.params)
			if after := fmt.Sprint(tc.params); after != before {
				t.Errorf("Prepare changed its input: %s -> %s", before, after)
			}
			if tc.wantErr != "" {
				var pe *Error
				if !errors.As(err, &pe) {
					t.Fatalf("got %v, %v; want *Error %q", got, err, tc.wantErr)
				}
				if pe.Msg != tc.wantErr {
					t.Fatalf("Msg %q\nwant %q", pe.Msg, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got  %#v\nwant %#v", got, tc.want)
			}
		})
	}
}

func TestPrepareParamsBadSchema(t *testing.T) {
	for _, src := range []string{
		`{"properties": {"a": {"type": "strnig"}}}`,
		`{"$schema": "https://example.com/my-schema", "properties": {"a": {}}}`,
		`{"properties": {"a": {"$ref": "other.json"}}}`,
		`{"$schema": "http://json-schema.org/draft-04/schema#", "properties": {"a": {}}}`,
	} {
		_, err := Prepare(paramTestNode(t, src), map[string]any{"a": "x"})
		var pe *Error
		if err == nil || errors.As(err, &pe) {
			t.Errorf("%s: got %v, want a plain error (the schema is the tool's mistake)", src, err)
		}
	}
	inf := &syntax.Node{Kind: syntax.MapNode, Fields: []*syntax.Field{{Key: "properties", Value: &syntax.Node{Kind: syntax.MapNode, Fields: []*syntax.Field{
		{Key: "a", Value: &syntax.Node{Kind: syntax.MapNode, Fields: []*syntax.Field{{Key: "maximum", Value: syntax.NewFloat(posInf(), syntax.Pos{})}}}},
	}}}}}
	if _, err := Prepare(inf, map[string]any{"a": int64(1)}); err == nil {
		t.Error("a schema with an infinity: got no error")
	}
}

func posInf() float64 {
	var zero float64
	return 1 / zero
}

func TestPrepareParamsCache(t *testing.T) {
	schema := paramTestNode(t, paramTestSchemaJSON)
	same := paramTestNode(t, paramTestSchemaJSON)
	s1, err := paramCompile(schema)
	if err != nil {
		t.Fatal(err)
	}
	s2, err := paramCompile(same)
	if err != nil {
		t.Fatal(err)
	}
	if s1 != s2 {
		t.Error("the same schema was compiled twice")
	}
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sch := paramTestNode(t, fmt.Sprintf(`{"properties": {"n%d": {"type": "integer"}}}`, i%4))
			if _, err := Prepare(sch, map[string]any{fmt.Sprintf("n%d", i%4): int64(i)}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
}

// Parse then Prepare, as the command line does.
func TestParseThenPrepare(t *testing.T) {
	schema := paramTestNode(t, paramTestSchemaJSON)
	got, err := Parse(schema, []string{"ls", "--opts", `{"follow": true}`, "--dry-run"}, `{"timeout": 2}`, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err = Prepare(schema, got)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(got)
	want := `{"command":"ls","dry_run":true,"mode":"fast","opts":{"depth":3,"follow":true},"timeout":2}`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
}

func TestParamUsage(t *testing.T) {
	schema := paramTestNode(t, paramTestSchemaJSON)
	want := `  --command string        The shell command to run (required; primary: may be given without --command)
  --timeout integer       Seconds before the command is stopped (default 30)
  --ratio number
  --verbose boolean
  --dry_run boolean       Show what would run
  --tags array of string
  --ids array of integer
  --opts object
  --mode string           (one of "fast", "slow"; default "fast")
  --note string|null
  --extra value           Anything
`
	if got := Usage(schema); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	xp := paramTestNode(t, `{"properties": {"a": {"type": "string"}, "path": {"type": "string", "x-primary": true, "description": "Where"}}, "required": ["a"]}`)
	wantXP := "  --a string     (required)\n  --path string  Where (primary: may be given without --path)\n"
	if got := Usage(xp); got != wantXP {
		t.Fatalf("got\n%s\nwant\n%s", got, wantXP)
	}
	for _, src := range []string{`{"type": "object"}`, `{"properties": {}}`} {
		if got := Usage(paramTestNode(t, src)); got != "this tool takes no parameters\n" {
			t.Errorf("%s: got %q", src, got)
		}
	}
	if got := Usage(nil); !strings.HasPrefix(got, "this tool declares no parameter schema: every --name value is passed on unchecked\n") {
		t.Errorf("no schema: got %q", got)
	}
}

func TestParamNames(t *testing.T) {
	schema := paramTestNode(t, paramTestSchemaJSON)
	want := []string{"--command", "--timeout", "--ratio", "--verbose", "--dry_run", "--tags", "--ids", "--opts", "--mode", "--note", "--extra"}
	if got := Names(schema); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	if got := Names(nil); len(got) != 0 {
		t.Fatalf("nil schema: got %q", got)
	}
	// a duplicate key: the last one wins, as in Node.Get
	dup := paramTestNode(t, `{"properties": {"a": {}, "b": {}, "a": {"type": "integer"}}}`)
	if got := Names(dup); !reflect.DeepEqual(got, []string{"--b", "--a"}) {
		t.Fatalf("duplicates: got %q", got)
	}
}

func TestParamErrorNoParameters(t *testing.T) {
	e := &Error{Msg: "unknown parameter --x"}
	if got := e.Error(); got != "unknown parameter --x\nthis tool takes no parameters" {
		t.Fatalf("got %q", got)
	}
}

func TestParamEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		d    int
	}{
		{"", "", 0}, {"name", "name", 0}, {"nmae", "name", 1}, {"nam", "name", 1},
		{"names", "name", 1}, {"kitten", "sitting", 3}, {"ab", "ba", 1},
	} {
		if d := paramEditDistance(tc.a, tc.b); d != tc.d {
			t.Errorf("paramEditDistance(%q, %q) = %d, want %d", tc.a, tc.b, d, tc.d)
		}
	}
}

// A schema that refers to itself must not send the usage text into
// endless recursion (it is read before the tool is verified, for --help
// and completion).
func TestSelfReferringSchema(t *testing.T) {
	md, err := item.ReadMetadata(item.Tool, "t.yaml", []byte("config_schema:\n  type: object\n  properties:\n    x: {type: array, items: {$ref: \"#/properties/x\"}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	schema := md.Schema()
	if u := Usage(schema); !strings.Contains(u, "--x array of array") {
		t.Errorf("usage %q", u)
	}
	got, err := Parse(schema, []string{"--x", "[[1]]"}, "", nil)
	if want := map[string]any{"x": []any{[]any{int64(1)}}}; err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("Parse: %#v, %v; want %#v", got, err, want)
	}
	// [[1]]: the items of x are xs, so 1 must be an array too
	_, err = Prepare(schema, got)
	var pe *Error
	if !errors.As(err, &pe) || pe.Msg != "--x[0][0]: found 1, expected an array" {
		t.Errorf("Prepare([[1]]): %v", err)
	}
	for _, v := range []any{[]any{}, []any{[]any{}, []any{[]any{}}}} {
		got, err := Prepare(schema, map[string]any{"x": v})
		if err != nil || !reflect.DeepEqual(got, map[string]any{"x": v}) {
			t.Errorf("Prepare(%v): %#v, %v", v, got, err)
		}
	}
}

// The parameters are the properties the schema declares anywhere lint
// looks for them (paramschema.Declare): in allOf, anyOf, if/then branches
// and $ref targets too, not only the top-level "properties".
func TestParamsDeclaredInBranches(t *testing.T) {
	for _, src := range []string{
		`{"type": "object", "allOf": [{"properties": {"a": {"type": "string"}}}]}`,
		`{"type": "object", "anyOf": [{"properties": {"a": {"type": "string"}}}, {"properties": {"b": {"type": "integer"}}}]}`,
		`{"type": "object", "if": {"properties": {"b": {"const": 1}}}, "then": {"properties": {"a": {"type": "string"}}}}`,
		`{"type": "object", "$ref": "#/$defs/base", "$defs": {"base": {"properties": {"a": {"type": "string"}}}}}`,
	} {
		schema := paramTestNode(t, src)
		got, err := Parse(schema, []string{"--a", "x"}, "", nil)
		if err != nil || !reflect.DeepEqual(got, map[string]any{"a": "x"}) {
			t.Errorf("%s: Parse: %v, %v", src, got, err)
			continue
		}
		if _, err := Prepare(schema, got); err != nil {
			t.Errorf("%s: Prepare: %v", src, err)
		}
		if names := Names(schema); !slices.Contains(names, "--a") {
			t.Errorf("%s: Names %q", src, names)
		}
		var pe *Error
		if _, err := Prepare(schema, map[string]any{"zz": "x"}); !errors.As(err, &pe) || !strings.HasPrefix(pe.Msg, "unknown parameter --zz") {
			t.Errorf("%s: an undeclared parameter: %v", src, err)
		}
	}

	// "required" binds in the schemas that always apply (allOf, $ref); the
	// defaults filled in are those of properties declared there: a default
	// of one anyOf branch could make another one fail.
	schema := paramTestNode(t, `{"type": "object",
		"allOf": [{"properties": {"a": {"type": "string"}, "n": {"type": "integer", "default": 2}}, "required": ["a"]}],
		"anyOf": [{"properties": {"x": {"default": 1}}, "required": ["x"]}, {"properties": {"y": {"type": "string"}}, "required": ["y"]}]}`)
	var pe *Error
	if _, err := Prepare(schema, map[string]any{"y": "v"}); !errors.As(err, &pe) || pe.Msg != "missing required parameter --a" {
		t.Errorf("required in allOf: %v", err)
	}
	got, err := Prepare(schema, map[string]any{"a": "v", "y": "w"})
	if want := map[string]any{"a": "v", "y": "w", "n": int64(2)}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("defaults: %#v, %v; want %#v", got, err, want)
	}
	if got, err := Parse(schema, []string{"v"}, "", nil); err != nil || !reflect.DeepEqual(got, map[string]any{"a": "v"}) {
		t.Errorf("the required parameter of allOf is the primary one: %v, %v", got, err)
	}
	wantUsage := "  --a string   (required; primary: may be given without --a)\n  --n integer  (default 2)\n  --x value\n  --y string\n"
	if got := Usage(schema); got != wantUsage {
		t.Errorf("usage:\n%s\nwant\n%s", got, wantUsage)
	}
}

// Error.Valid is built when an error is made, from the same notes as
// the usage text.
func TestParamErrorValidNotes(t *testing.T) {
	schema := paramTestNode(t, `{"properties": {"n": {"type": "integer", "default": 3, "enum": [1, 3]}}, "required": ["n"]}`)
	_, err := Parse(schema, []string{"--m"}, "", nil)
	var pe *Error
	if !errors.As(err, &pe) || !reflect.DeepEqual(pe.Valid, []string{"--n integer (required, default 3)"}) {
		t.Fatalf("got %#v", err)
	}
	if got, want := Usage(schema), "  --n integer  (required; primary: may be given without --n; one of 1, 3; default 3)\n"; got != want {
		t.Errorf("usage %q, want %q", got, want)
	}
}

// A tool that declares no schema (spec 6.6: the reference passes its
// parameters on unchanged) takes any parameter: typed like a declared
// parameter without a type, names as written, --params underneath; Prepare
// passes them on as they are. A schema that declares nothing is as strict
// as before.
func TestParamsWithoutSchema(t *testing.T) {
	files := func(string) ([]byte, error) { return []byte(`{"from_file": [1, 2], "n": 0}`), nil }
	got, err := Parse(nil, []string{"--n", "3", "--name=World", "--dry-run", "--list", `["a"]`, "--obj={\"k\": true}", "--text", "1.2.3", "--dry_run=false", "--last"}, "@p.json", files)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"n": int64(3), "name": "World", "dry-run": true, "list": []any{"a"}, "obj": map[string]any{"k": true},
		"text": "1.2.3", "dry_run": false, "last": true, "from_file": []any{int64(1), int64(2)}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %#v\nwant %#v", got, want)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"v"}, `found the argument "v": this tool declares no parameter schema, so there is no positional parameter`},
		{[]string{"--", "v"}, `found the argument "--": this tool declares no parameter schema`},
		{[]string{"-v"}, `found the argument "-v"`},
		{[]string{"--a", "1", "--a", "2"}, `--a given more than once`},
		{[]string{"---x"}, `found "---x", expected --name or --name=value`},
		{[]string{"--=v"}, `found "--=v", expected --name or --name=value`},
	} {
		_, err := Parse(nil, c.args, "", nil)
		var pe *Error
		if !errors.As(err, &pe) || !strings.HasPrefix(pe.Error(), c.want) || strings.Contains(pe.Error(), "takes no parameters") {
			t.Errorf("%q: got %v, want %q", c.args, err, c.want)
		}
	}
	in := map[string]any{"anything": []any{"x"}, "n": int64(1)}
	out, err := Prepare(nil, in)
	if err != nil || !reflect.DeepEqual(out, in) {
		t.Errorf("Prepare: %v %v", out, err)
	}
	if _, err := Prepare(paramTestNode(t, `{"type": "object"}`), in); err == nil {
		t.Error("a schema that declares nothing takes nothing")
	}
}
