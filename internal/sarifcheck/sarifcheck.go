// Package sarifcheck validates SARIF logs against the official SARIF
// 2.1.0 JSON schema, for the tests of rye's SARIF output. The schema is a
// copy of the OASIS file (oasis-tcs/sarif-spec, Schemata/).
package sarifcheck

import (
	"bytes"
	_ "embed"
	"fmt"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

//go:embed sarif-schema-2.1.0.json
var schemaText []byte

var compiled = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaText))
	if err != nil {
		return nil, err
	}
	// The published schema nests region's anyOf ("a region has a
	// startLine, a charOffset or a byteOffset") under "properties", which
	// no draft allows; put it where it was meant to be, so that the rule is
	// enforced instead of breaking the compile.
	region := doc.(map[string]any)["definitions"].(map[string]any)["region"].(map[string]any)
	props := region["properties"].(map[string]any)
	if anyOf, ok := props["anyOf"]; ok {
		region["anyOf"] = anyOf
		delete(props, "anyOf")
	}
	c := jsonschema.NewCompiler()
	const url = "https://json.schemastore.org/sarif-2.1.0.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	return c.Compile(url)
})

// Validate returns an error that says what is wrong when data is not a
// valid SARIF 2.1.0 log.
func Validate(data []byte) error {
	schema, err := compiled()
	if err != nil {
		return fmt.Errorf("compiling the SARIF schema: %w", err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	return schema.Validate(inst)
}
