package lint

import (
	"fmt"

	"golang.org/x/tools/go/analysis"

	"github.com/ryekit/rye/item"
)

// schema checks tools' parameter schemas.
var schema = &analysis.Analyzer{
	Name: "schema",
	Doc: `check that a tool's parameter schema is a valid JSON Schema

CONFIG_SCHEMA (Python) or config_schema / input_schema (YAML, TOML, script
headers) describes a tool's parameters; rye execute validates parameters
against it and builds the command-line flags from it. It must be a valid
JSON Schema (draft 2020-12 unless "$schema" says otherwise) for an object;
once it compiles, every default must validate against its property; and
every name in a "required" list must be a property: declared in
"properties" or in those of its $ref targets and its allOf, anyOf, oneOf,
if, then and else branches (the parameters rye execute takes).

A tool that has an executor but declares no schema is a warning: it takes
any parameter, passed on unchecked (as the reference did), so a misspelt
parameter is not caught.`,
	URL:      docURL("schema"),
	Requires: []*analysis.Analyzer{input, parse},
	Run:      runSchema,
}

func runSchema(pass *analysis.Pass) (any, error) {
	e, r := env(pass), reporter{pass}
	parsed := pass.ResultOf[parse].(parsed)
	each(e.Files, func(_ int, f *file) {
		md := parsed[f]
		if md == nil || f.Kind != item.Tool {
			return
		}
		for _, p := range checkParamSchema(md.Schema()) {
			r.at(sevError, "invalid", f.Pos(p.Node.Pos), endPos(f, p.Node), p.Msg)
		}
		if noSchema(md) {
			exec := md.Get("executor_id")
			name := item.Spelling(md.Form, "config_schema")
			r.at(sevWarning, "none", f.Pos(nodePos(exec, md)), 0, fmt.Sprintf("no %s: rye passes every parameter given to this tool on unchecked (as the reference did), so a misspelt or missing parameter is not caught; declare its parameters in %s", name, name))
		}
	})
	return nil, nil
}

// noSchema reports an executable tool (not a runtime or primitive, whose
// schemas describe what their children give them) that declares no
// parameter schema. A schema that the reader could not read (a
// CONFIG_SCHEMA that is not a literal) is the metadata analyzer's finding.
func noSchema(md *item.Metadata) bool {
	if md.Str("executor_id") == "" || !md.Schema().IsNull() {
		return false
	}
	switch md.Str("tool_type") {
	case "runtime", "primitive":
		return false
	}
	for _, p := range md.Problems {
		if p.Field == item.Spelling(md.Form, "config_schema") {
			return false
		}
	}
	return true
}
