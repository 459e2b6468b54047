package lint

import (
	"strings"
	"testing"

	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/item/syntax"
)

// FuzzCheckParamSchema checks that checkParamSchema never panics on a
// tool's YAML and reports only nodes of the schema it was given, with
// one-line messages.
func FuzzCheckParamSchema(f *testing.F) {
	for _, s := range []string{
		"config_schema:\n  type: object\n  properties:\n    a: {type: integer, default: 5.5}\n  required: [a, b]\n",
		"config_schema:\n  $schema: http://json-schema.org/draft-07/schema#\n  items: [{default: 1, type: string}]\n",
		"config_schema:\n  $ref: '#/$defs/x'\n  $defs: {x: {$ref: '#/$defs/x'}}\n",
		"config_schema:\n  properties: {a: {$ref: 'b.json'}}\n  anyOf: [{required: [a]}, {not: {required: [c]}}]\n",
		"input_schema:\n  patternProperties: {'[': {}}\n  minimum: .nan\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		md, err := item.ReadMetadata(item.Tool, "x.yaml", src)
		if err != nil {
			return
		}
		schema := md.Schema()
		nodes := map[*syntax.Node]bool{}
		var collect func(n *syntax.Node, depth int)
		collect = func(n *syntax.Node, depth int) {
			if n == nil || nodes[n] || depth > 10000 {
				return
			}
			nodes[n] = true
			for _, it := range n.Items {
				collect(it, depth+1)
			}
			for _, fl := range n.Fields {
				collect(fl.Value, depth+1)
			}
		}
		collect(schema, 0)
		ps := checkParamSchema(schema)
		for i, p := range ps {
			if p.Node == nil {
				t.Fatalf("problem %q has no node", p.Msg)
			}
			if !nodes[p.Node] {
				t.Fatalf("problem %q at %v: the node is not in the schema", p.Msg, p.Node.Pos)
			}
			if strings.Contains(p.Msg, "the validator failed") {
				t.Fatalf("the validator panicked: %s", p.Msg) // a *paramschema.PanicError
			}
			if p.Msg == "" || strings.ContainsAny(p.Msg, "\n\r") || (strings.HasSuffix(p.Msg, ".") && !strings.HasSuffix(p.Msg, "..")) {
				t.Fatalf("bad message %q", p.Msg)
			}
			if i > 0 && ps[i-1].Node.Pos.Offset > p.Node.Pos.Offset {
				t.Fatalf("problems out of order: %v then %v", ps[i-1].Node.Pos, p.Node.Pos)
			}
		}
	})
}
