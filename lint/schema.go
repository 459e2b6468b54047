package lint

import (
	"golang.org/x/tools/go/analysis"

	"github.com/ryekit/rye/item"
)

// Schema checks tools' parameter schemas.
var Schema = &analysis.Analyzer{
	Name: "schema",
	Doc: `check that a tool's parameter schema is a valid JSON Schema

CONFIG_SCHEMA (Python) or config_schema / input_schema (YAML, TOML, script
headers) describes a tool's parameters; rye execute validates parameters
against it and builds the command-line flags from it. It must be a valid
JSON Schema (draft 2020-12 unless "$schema" says otherwise) for an object;
once it compiles, every default must validate against its property; and
every name in a "required" list must be a property: declared in
"properties" or in those of its $ref targets and its allOf, anyOf, oneOf,
if, then and else branches (the parameters rye execute takes).`,
	URL:      DocURL("schema"),
	Requires: []*analysis.Analyzer{Input, Parse},
	Run:      runSchema,
}

func runSchema(pass *analysis.Pass) (any, error) {
	e, r := env(pass), reporter{pass}
	parsed := pass.ResultOf[Parse].(Parsed)
	for _, f := range e.Files {
		md := parsed[f]
		if md == nil || f.Kind != item.Tool {
			continue
		}
		for _, p := range CheckParamSchema(md.Schema()) {
			r.at(sevError, "invalid", f.Pos(p.Node.Pos), endPos(f, p.Node), p.Msg)
		}
	}
	return nil, nil
}
