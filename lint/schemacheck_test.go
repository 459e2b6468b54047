package lint

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/ryekit/rye/internal/paramschema"
	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/item/syntax"
	"github.com/ryekit/rye/params"
)

// bashToolSource is the bash tool of the authoring guide, in its Python form.
const bashToolSource = `# rye:signed:2026-02-15T07:32:49Z:5d4a
"""Execute shell commands."""

import subprocess
from pathlib import Path

__version__ = "1.0.0"
__tool_type__ = "python"
__executor_id__ = "rye/core/runtimes/python_script_runtime"
__category__ = "rye/bash"
__tool_description__ = "Execute shell commands"

CONFIG_SCHEMA = {
    "type": "object",
    "properties": {
        "command": {
            "type": "string",
            "description": "Shell command to execute",
        },
        "timeout": {
            "type": "integer",
            "description": "Timeout in seconds (default: 120)",
            "default": 120,
        },
        "working_dir": {
            "type": "string",
            "description": "Working directory (default: project root)",
        },
    },
    "required": ["command"],
}


def execute(params: dict, project_path: str) -> dict:
    return {"success": True}
`

// schemaOf reads a tool file (YAML unless name says otherwise) and returns
// its parameter schema.
func toolSchemaOf(t testing.TB, name, src string) *syntax.Node {
	t.Helper()
	md, err := item.ReadMetadata(item.Tool, name, []byte(src))
	if err != nil {
		t.Fatalf("reading %s: %v\n%s", name, err, src)
	}
	return md.Schema()
}

// render gives "line:col: message" for each problem.
func renderSchemaProblems(ps []schemaProblem) []string {
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		out = append(out, p.Node.Pos.String()+": "+p.Msg)
	}
	return out
}

func TestCheckParamSchema(t *testing.T) {
	tests := []struct {
		name string
		file string // "t.yaml" when empty
		src  string
		want []string
	}{
		{
			name: "good schema",
			src: `config_schema:
  type: object
  properties:
    command: {type: string, description: Shell command}
    timeout: {type: integer, default: 120, minimum: 1}
    mode: {type: string, enum: [fast, slow], default: fast}
    ratio: {type: number, default: 0.5}
    tags: {type: array, items: {type: string}, default: [a, b]}
  required: [command]
`,
		},
		{
			name: "input_schema is checked too",
			src: `input_schema:
  type: objcet
`,
			want: []string{`2:9: "type": found "objcet", expected one of array, boolean, integer, null, number, object, string`},
		},
		{
			name: "wrong type name",
			src: `config_schema:
  type: object
  properties:
    count: {type: strnig}
`,
			want: []string{`4:19: "type": found "strnig", expected one of array, boolean, integer, null, number, object, string`},
		},
		{
			name: "type of the wrong kind",
			src: `config_schema:
  properties:
    count: {type: 5}
`,
			want: []string{`3:19: "type": found 5 (an integer), expected one of array, boolean, integer, null, number, object, string or an array`},
		},
		{
			name: "properties not an object",
			src: `config_schema:
  type: object
  properties: [command, timeout]
`,
			want: []string{`3:15: "properties": found ["command","timeout"] (an array), expected an object`},
		},
		{
			name: "a property that is not a schema",
			src: `config_schema:
  properties:
    command: string
`,
			want: []string{`3:14: property "command": found "string" (a string), expected a schema (an object or boolean)`},
		},
		{
			name: "required not an array",
			src: `config_schema:
  properties: {command: {type: string}}
  required: command
`,
			want: []string{`3:13: "required": found "command" (a string), expected an array`},
		},
		{
			name: "required item not a string",
			src: `config_schema:
  properties: {command: {type: string}}
  required: [command, 7]
`,
			want: []string{`3:23: "required"[1]: found 7 (an integer), expected a string`},
		},
		{
			name: "required name not a property at the top level",
			src: `config_schema:
  type: object
  properties:
    command: {type: string}
    timeout: {type: integer}
  required: [comand, timeout]
`,
			want: []string{`6:14: required: "comand" is not a property (properties: command, timeout)`},
		},
		{
			name: "required name not a property in a nested object",
			src: `config_schema:
  type: object
  properties:
    opts:
      type: object
      properties:
        depth: {type: integer}
      required: [dept]
`,
			want: []string{`8:18: required: "dept" is not a property (properties: depth)`},
		},
		{
			name: "required without properties",
			src: `config_schema:
  type: object
  required: [command]
`,
			want: []string{`3:13: required: found "command" but no "properties", expected the required names to be declared in "properties"`},
		},
		{
			name: "required in alternatives uses the properties around them",
			src: `config_schema:
  type: object
  properties:
    path: {type: string}
    url: {type: string}
  patternProperties:
    "^x-": {type: string}
  anyOf:
    - required: [path]
    - required: [url]
    - required: [uri, x-extra]
`,
			want: []string{`11:18: required: "uri" is not a property (properties: path, url)`},
		},
		{
			name: "required through a local reference",
			src: `config_schema:
  $ref: "#/$defs/base"
  required: [command]
  $defs:
    base:
      type: object
      properties: {command: {type: string}}
`,
		},
		{
			name: "default of the wrong type",
			src: `config_schema:
  type: object
  properties:
    timeout: {type: integer, default: soon}
`,
			want: []string{`4:39: default of "timeout": found "soon" (a string), expected an integer`},
		},
		{
			name: "a fraction is not an integer",
			src: `config_schema:
  type: object
  properties:
    timeout:
      type: integer
      default: 5.5
`,
			want: []string{`6:16: default of "timeout": found 5.5 (a number), expected an integer`},
		},
		{
			name: "default not in the enum",
			src: `config_schema:
  type: object
  properties:
    mode: {type: string, enum: [fast, slow], default: quick}
`,
			want: []string{`4:55: default of "mode": found "quick", expected one of "fast", "slow"`},
		},
		{
			name: "defaults that are fine",
			src: `config_schema:
  type: object
  properties:
    a: {type: integer, default: 5}
    b: {type: integer, default: 5.0}
    c: {type: number, default: 5}
    d: {type: [string, "null"], default: null}
    e: {enum: [1, two], default: two}
    f: {type: boolean, default: false}
`,
		},
		{
			name: "nested property defaults",
			src: `config_schema:
  type: object
  properties:
    opts:
      type: object
      properties:
        depth: {type: integer, minimum: 1, default: 0}
        name: {type: string, minLength: 3, default: ab}
        fine: {type: string, default: ok}
`,
			want: []string{
				`7:53: default of "opts.depth": found 0, expected at least 1`,
				`8:53: default of "opts.name": found "ab" (2 characters), expected at least 3 characters`,
			},
		},
		{
			name: "items defaults",
			src: `config_schema:
  type: object
  properties:
    files:
      type: array
      items: {type: string, default: 5}
    pairs:
      type: array
      prefixItems: [{type: integer, default: x}]
`,
			want: []string{
				`6:38: default of "files[]": found 5 (an integer), expected a string`,
				`9:46: default of "pairs[0]": found "x" (a string), expected an integer`,
			},
		},
		{
			name: "an object default checked against its properties",
			src: `config_schema:
  type: object
  properties:
    opts:
      type: object
      properties: {host: {type: string}, port: {type: integer}}
      required: [host]
      additionalProperties: false
      default: {port: "80", user: me}
`,
			want: []string{`9:16: default of "opts": missing required property "host"; at .port: found "80" (a string), expected an integer; found property "user", expected only the properties the schema declares`},
		},
		{
			name: "a default in a definition is named by its pointer",
			src: `config_schema:
  $defs:
    n: {type: integer, default: x}
`,
			want: []string{`3:33: default at /$defs/n: found "x" (a string), expected an integer`},
		},
		{
			name: "top-level type not object",
			src: `config_schema:
  type: string
`,
			want: []string{`2:9: the top level of a parameter schema must be "type": "object", found "string"`},
		},
		{
			name: "top-level type list",
			src: `config_schema:
  type: [object, "null"]
`,
			want: []string{`2:9: the top level of a parameter schema must be "type": "object", found ["object","null"]`},
		},
		{
			name: "top level not an object at all",
			src: `config_schema: [command]
`,
			want: []string{`1:16: a parameter schema must be an object ({"type": "object", "properties": ...}), found ["command"] (an array)`},
		},
		{
			name: "top level a boolean schema",
			src: `config_schema: true
`,
			want: []string{`1:16: a parameter schema must be an object ({"type": "object", "properties": ...}), found true`},
		},
		{
			name: "draft-07 is honoured",
			src: `config_schema:
  $schema: "http://json-schema.org/draft-07/schema#"
  type: object
  definitions:
    name: {type: string}
  properties:
    pair:
      type: array
      items: [{$ref: "#/definitions/name"}, {type: integer}]
      additionalItems: false
      default: [a, 1]
`,
		},
		{
			name: "the same schema without $schema is 2020-12, where items is one schema",
			src: `config_schema:
  type: object
  properties:
    pair:
      type: array
      items: [{type: string}, {type: integer}]
`,
			want: []string{`6:14: "items": found [{"type":"string"},{"type":"integer"}] (an array), expected a schema (an object or boolean)`},
		},
		{
			name: "draft 2019-09 is honoured",
			src: `config_schema:
  $schema: https://json-schema.org/draft/2019-09/schema
  type: object
  properties:
    pair: {type: array, items: [{type: string}], default: [5]}
`,
			want: []string{`5:59: default of "pair": at [0]: found 5 (an integer), expected a string`},
		},
		{
			name: "unknown $schema",
			src: `config_schema:
  $schema: https://example.com/my-schema
  type: object
  properties: {a: {type: strnig}}
`,
			want: []string{`2:12: "$schema": found "https://example.com/my-schema", expected one of https://json-schema.org/draft/2020-12/schema, https://json-schema.org/draft/2019-09/schema, http://json-schema.org/draft-07/schema#`},
		},
		{
			name: "draft-04 is not supported",
			src: `config_schema:
  $schema: http://json-schema.org/draft-04/schema#
`,
			want: []string{`2:12: "$schema": found "http://json-schema.org/draft-04/schema#", expected one of https://json-schema.org/draft/2020-12/schema, https://json-schema.org/draft/2019-09/schema, http://json-schema.org/draft-07/schema#`},
		},
		{
			name: "empty schema",
			src: `config_schema: {}
`,
		},
		{
			name: "null schema",
			src: `config_schema:
`,
		},
		{
			name: "no schema",
			src: `version: "1.0.0"
`,
		},
		{
			name: "format asserts in draft-07",
			src: `config_schema:
  $schema: http://json-schema.org/draft-07/schema#
  type: object
  properties:
    d: {type: string, format: date, default: "2023-02-30"}
`,
			want: []string{`5:46: default of "d": found "2023-02-30", expected a valid date (parsing time "2023-02-30": day out of range)`},
		},
		{
			name: "format is an annotation in 2020-12",
			src: `config_schema:
  type: object
  properties:
    d: {type: string, format: date, default: "2023-02-30"}
`,
		},
		{
			name: "an item after prefixItems is named by its own index",
			src: `config_schema:
  type: object
  properties:
    a: {type: array, prefixItems: [{}], items: {type: integer}, default: [1, x]}
`,
			want: []string{`4:74: default of "a": at [1]: found "x" (a string), expected an integer`},
		},
		{
			name: "a patternProperties name that is not a regular expression",
			src: `config_schema:
  type: object
  patternProperties:
    "[": {}
`,
			want: []string{"4:5: \"patternProperties\": found the property name \"[\", expected a regular expression Go can compile (missing closing ]: `[`) (by \"propertyNames\")"},
		},
		{
			name: "a resource inside the schema naming an unsupported draft",
			src: `config_schema:
  type: object
  properties:
    a:
      id: http://example.com/a
      $schema: http://json-schema.org/draft-04/schema#
`,
			want: []string{`6:16: "$schema": found "http://json-schema.org/draft-04/schema#", expected one of https://json-schema.org/draft/2020-12/schema, https://json-schema.org/draft/2019-09/schema, http://json-schema.org/draft-07/schema#`},
		},
		{
			name: "keyword values out of range",
			src: `config_schema:
  properties:
    name: {type: string, minLength: -1, pattern: "(?=x)"}
`,
			want: []string{
				`3:37: "minLength": found -1, expected at least 0`,
				"3:50: \"pattern\": found \"(?=x)\", expected a regular expression Go can compile (invalid or unsupported Perl syntax: `(?=`)",
			},
		},
		{
			name: "references that cannot be resolved",
			src: `config_schema:
  properties:
    a: {$ref: "#/$defs/missing"}
`,
			want: []string{`3:15: "$ref": "#/$defs/missing" points at nothing in this schema`},
		},
		{
			name: "references to other files",
			src: `config_schema:
  properties:
    a: {$ref: "common.json#/$defs/name"}
`,
			want: []string{`3:15: "$ref": "common.json#/$defs/name" cannot be resolved: rye loads no schemas from files or the network, expected a reference inside this schema ("#/$defs/...")`},
		},
		{
			name: "infinity is not JSON",
			src: `config_schema:
  properties:
    ratio: {type: number, maximum: .inf}
`,
			want: []string{`3:36: "maximum": found .inf, expected a finite number (JSON has no infinity or NaN)`},
		},
		{
			name: "several problems in source order",
			src: `config_schema:
  type: object
  required: [b, zz]
  properties:
    b: {type: integer, default: "1"}
    a: {type: strnig}
`,
			want: []string{
				`3:17: required: "zz" is not a property (properties: b, a)`,
				`6:15: "type": found "strnig", expected one of array, boolean, integer, null, number, object, string`,
			},
		},
		{
			name: "Python tool",
			file: "t.py",
			src: `"""Execute shell commands."""
__version__ = "1.0.0"
CONFIG_SCHEMA = {
    "type": "object",
    "properties": {
        "command": {"type": "string"},
        "timeout": {"type": "integer", "default": "120"},
        "shell": {"type": "strnig"},
    },
    "required": ["command", "comand"],
}
`,
			want: []string{
				`8:27: "type": found "strnig", expected one of array, boolean, integer, null, number, object, string`,
				`10:29: required: "comand" is not a property (properties: command, timeout, shell)`,
			},
		},
		{
			name: "Python tool, default checked once the schema is valid",
			file: "t.py",
			src: `CONFIG_SCHEMA = {
    "type": "object",
    "properties": {
        "timeout": {"type": "integer", "default": "120"},
    },
}
`,
			want: []string{`4:51: default of "timeout": found "120" (a string), expected an integer`},
		},
		{
			name: "the bash tool",
			file: "t.py",
			src:  bashToolSource,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := tt.file
			if file == "" {
				file = "t.yaml"
			}
			schema := toolSchemaOf(t, file, tt.src)
			got := renderSchemaProblems(checkParamSchema(schema))
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// Each problem is at a node of the schema, and that node is the value the
// message is about.
func TestCheckParamSchemaNodes(t *testing.T) {
	src := `config_schema:
  properties:
    timeout: {type: integer, default: soon}
  required: [timeout, nope]
`
	schema := toolSchemaOf(t, "t.yaml", src)
	ps := checkParamSchema(schema)
	if len(ps) != 2 {
		t.Fatalf("got %q", renderSchemaProblems(ps))
	}
	if want := schema.Get("properties").Get("timeout").Get("default"); ps[0].Node != want {
		t.Errorf("default problem at %v (%q), want the default node", ps[0].Node.Pos, ps[0].Node.Str)
	}
	if want := schema.Get("required").Items[1]; ps[1].Node != want {
		t.Errorf("required problem at %v (%q), want the name node", ps[1].Node.Pos, ps[1].Node.Str)
	}
	if got := src[ps[0].Node.Pos.Offset:ps[0].Node.End.Offset]; got != "soon" {
		t.Errorf("default problem spans %q", got)
	}
}

func TestCheckParamSchemaNil(t *testing.T) {
	if ps := checkParamSchema(nil); ps != nil {
		t.Errorf("nil schema: %q", renderSchemaProblems(ps))
	}
	if ps := checkParamSchema(syntax.NewNull(syntax.Pos{})); ps != nil {
		t.Errorf("null schema: %q", renderSchemaProblems(ps))
	}
}

// A schema is compiled once whatever form it is written in: the cache key
// is its canonical JSON.
func TestCheckParamSchemaCache(t *testing.T) {
	paramschema.ResetCache()
	py := toolSchemaOf(t, "t.py", bashToolSource)
	yml := toolSchemaOf(t, "t.yaml", `config_schema:
  required: [command]
  properties:
    working_dir: {description: "Working directory (default: project root)", type: string}
    timeout: {type: integer, default: 120, description: "Timeout in seconds (default: 120)"}
    command: {description: Shell command to execute, type: string}
  type: object
`)
	for _, s := range []*syntax.Node{py, yml, py} {
		if ps := checkParamSchema(s); len(ps) != 0 {
			t.Fatalf("problems: %q", renderSchemaProblems(ps))
		}
	}
	if n := paramschema.CacheLen(); n != 1 {
		t.Errorf("%d cached schemas, want 1", n)
	}

	// The cached entry still judges each tree's own defaults.
	bad := toolSchemaOf(t, "t.yaml", "config_schema:\n  properties:\n    n: {type: integer, default: x}\n")
	for range 2 {
		if got := renderSchemaProblems(checkParamSchema(bad)); len(got) != 1 || got[0] != `3:33: default of "n": found "x" (a string), expected an integer` {
			t.Errorf("got %q", got)
		}
	}

	// The cache stays small.
	for i := range paramschema.MaxCached + 10 {
		checkParamSchema(toolSchemaOf(t, "t.yaml", fmt.Sprintf("config_schema:\n  maxProperties: %d\n", i)))
	}
	if n := paramschema.CacheLen(); n > paramschema.MaxCached {
		t.Errorf("%d cached schemas, more than %d", n, paramschema.MaxCached)
	}
}

func TestCheckParamSchemaConcurrent(t *testing.T) {
	paramschema.ResetCache()
	srcs := []string{
		"config_schema:\n  properties:\n    n: {type: integer, default: x}\n",
		"config_schema:\n  type: strnig\n",
		"config_schema:\n  properties: {a: {}}\n  required: [b]\n",
	}
	var want [][]string
	for _, s := range srcs {
		want = append(want, renderSchemaProblems(checkParamSchema(toolSchemaOf(t, "t.yaml", s))))
	}
	paramschema.ResetCache()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				k := (g + i) % len(srcs)
				got := renderSchemaProblems(checkParamSchema(toolSchemaOf(t, "t.yaml", srcs[k])))
				if strings.Join(got, "\n") != strings.Join(want[k], "\n") {
					t.Errorf("got %q, want %q", got, want[k])
					return
				}
			}
		}()
	}
	wg.Wait()
}

func BenchmarkCheckParamSchema(b *testing.B) {
	schema := toolSchemaOf(b, "t.py", bashToolSource)
	b.Run("cached", func(b *testing.B) {
		paramschema.ResetCache()
		b.ReportAllocs()
		for b.Loop() {
			if ps := checkParamSchema(schema); len(ps) != 0 {
				b.Fatal(renderSchemaProblems(ps))
			}
		}
	})
	b.Run("uncached", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			paramschema.ResetCache()
			if ps := checkParamSchema(schema); len(ps) != 0 {
				b.Fatal(renderSchemaProblems(ps))
			}
		}
	})
}

// Hostile schemas are refused before they reach the validator library,
// whose time grows with the square of their depth and size.
func TestCheckParamSchemaLimits(t *testing.T) {
	deep := "config_schema: " + strings.Repeat("{not: ", 200) + "{}" + strings.Repeat("}", 200) + "\n"
	got := renderSchemaProblems(checkParamSchema(toolSchemaOf(t, "t.yaml", deep)))
	if want := `1:790: "not": found a value nested more than 128 levels deep, expected a shallower schema`; len(got) != 1 || got[0] != want {
		t.Errorf("deep schema: %q\nwant %q", got, want)
	}

	var many strings.Builder
	many.WriteString("config_schema:\n  properties:\n")
	for i := range 150 {
		fmt.Fprintf(&many, "    p%d: {type: strnig}\n", i)
	}
	got = renderSchemaProblems(checkParamSchema(toolSchemaOf(t, "t.yaml", many.String())))
	if len(got) != maxSchemaProblems+1 || got[0] != `3:16: "type": found "strnig", expected one of array, boolean, integer, null, number, object, string` ||
		got[maxSchemaProblems] != "102:17: 50 more problems in this parameter schema are not shown" {
		t.Errorf("many problems: %d, first %q, last %q", len(got), got[0], got[len(got)-1])
	}
}

// What lint accepts, execute accepts: a property declared in an allOf,
// anyOf or if/then branch is a property for lint's "required" check and a
// parameter for the command line and PrepareParams (both read the schema
// with paramschema.Declare).
func TestCheckParamSchemaAgreesWithExecute(t *testing.T) {
	for _, src := range []string{
		"config_schema:\n  type: object\n  allOf: [{properties: {a: {type: string}}}]\n  required: [a]\n",
		"config_schema:\n  type: object\n  anyOf: [{properties: {a: {type: string}}}, {properties: {b: {type: integer}}}]\n  required: [a]\n",
		"config_schema:\n  type: object\n  properties: {b: {type: integer}}\n  if: {properties: {b: {const: 1}}}\n  then: {properties: {a: {type: string}}}\n  required: [a]\n",
	} {
		schema := toolSchemaOf(t, "t.yaml", src)
		if ps := checkParamSchema(schema); len(ps) != 0 {
			t.Errorf("%s: lint: %q", src, renderSchemaProblems(ps))
			continue
		}
		ps, err := params.Parse(schema, []string{"--a", "x"}, "", nil)
		if err != nil {
			t.Errorf("%s: ParseParams: %v", src, err)
			continue
		}
		if got, err := params.Prepare(schema, ps); err != nil || got["a"] != "x" {
			t.Errorf("%s: PrepareParams: %v, %v", src, got, err)
		}
		// the same walk finds the required name
		var pe *params.Error
		if _, err := params.Prepare(schema, map[string]any{}); !errors.As(err, &pe) || pe.Msg != "missing required parameter --a" {
			t.Errorf("%s: PrepareParams({}): %v", src, err)
		}
	}
}
