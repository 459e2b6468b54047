package paramschema

import (
	"testing"
)

// typicalSchema is a tool's parameter schema of the usual kind: a few
// typed properties, an enum, a bounded integer, an array and a nested
// object, some required.
const typicalSchema = `{
	"type": "object",
	"properties": {
		"command": {"type": "string", "description": "Shell command to execute", "minLength": 1},
		"timeout": {"type": "integer", "minimum": 1, "maximum": 3600, "default": 120},
		"mode": {"type": "string", "enum": ["fast", "slow"], "default": "fast"},
		"tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true},
		"env": {"type": "object", "additionalProperties": {"type": "string"}},
		"opts": {"type": "object", "properties": {"depth": {"type": "integer"}, "dry_run": {"type": "boolean"}}, "additionalProperties": false}
	},
	"required": ["command"],
	"additionalProperties": false
}`

func typicalValue() map[string]any {
	return map[string]any{
		"command": "ls -l", "timeout": int64(30), "mode": "slow",
		"tags": []any{"a", "b"}, "env": map[string]any{"A": "1"},
		"opts": map[string]any{"depth": int64(2), "dry_run": true},
	}
}

// BenchmarkCompileValidate is what rye execute pays for a tool's schema
// in a fresh process: compiling it (meta-validation included) and
// validating the parameters once; "validate" is a validation alone.
func BenchmarkCompileValidate(b *testing.B) {
	doc, probs := Doc(node(b, typicalSchema))
	if len(probs) > 0 {
		b.Fatal(probs)
	}
	v := typicalValue()
	b.Run("compile+validate", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			ResetCache()
			c := Compile(doc)
			if c.Err != nil {
				b.Fatal(c.Err)
			}
			if err := Validate(c.Schema, v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("validate", func(b *testing.B) {
		ResetCache()
		c := Compile(doc)
		if c.Err != nil {
			b.Fatal(c.Err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if err := Validate(c.Schema, v); err != nil {
				b.Fatal(err)
			}
		}
	})
}
