package syntax

import (
	"encoding/json"
	"math"
	"strconv"
)

// NodeKind says what a metadata value is.
type NodeKind uint8

const (
	NullNode NodeKind = iota
	StringNode
	IntNode
	FloatNode
	BoolNode
	ListNode
	MapNode
)

var nodeKindNames = [...]string{"null", "string", "integer", "number", "boolean", "array", "object"}

func (k NodeKind) String() string {
	if int(k) < len(nodeKindNames) {
		return nodeKindNames[k]
	}
	return "unknown"
}

// Node is one metadata value together with where it was written. Every
// reader (XML, YAML, TOML, Python literals, comment headers) produces Nodes,
// so that the rule engine, lint and the executor see one shape whatever the
// file form, and every message can point at the value it is about.
type Node struct {
	Kind   NodeKind
	Str    string  // StringNode
	Int    int64   // IntNode
	Float  float64 // FloatNode
	Bool   bool    // BoolNode
	Items  []*Node
	Fields []*Field // MapNode, in source order
	// Raw is the value's source text for scalars as written (`1.0`,
	// `'x'`), empty when the reader has none.
	Raw string
	// Pos is where the value starts; End, when valid, is just past its last
	// byte. Both are positions in the whole item file.
	Pos, End Pos
}

// Field is one key of a map node.
type Field struct {
	Key    string
	KeyPos Pos
	Value  *Node
}

// Scalar constructors used by the readers and tests.

func NewString(s string, pos Pos) *Node { return &Node{Kind: StringNode, Str: s, Pos: pos} }
func NewInt(i int64, pos Pos) *Node     { return &Node{Kind: IntNode, Int: i, Pos: pos} }
func NewFloat(f float64, pos Pos) *Node { return &Node{Kind: FloatNode, Float: f, Pos: pos} }
func NewBool(b bool, pos Pos) *Node     { return &Node{Kind: BoolNode, Bool: b, Pos: pos} }
func NewNull(pos Pos) *Node             { return &Node{Kind: NullNode, Pos: pos} }
func NewList(pos Pos) *Node             { return &Node{Kind: ListNode, Pos: pos} }
func NewMap(pos Pos) *Node              { return &Node{Kind: MapNode, Pos: pos} }

// Get returns the value of key in a map node, or nil. The last of duplicate
// keys wins, as in YAML, Python dicts and JSON decoders.
func (n *Node) Get(key string) *Node {
	if n == nil || n.Kind != MapNode {
		return nil
	}
	for i := len(n.Fields) - 1; i >= 0; i-- {
		if n.Fields[i].Key == key {
			return n.Fields[i].Value
		}
	}
	return nil
}

// Field returns the field for key in a map node, or nil.
func (n *Node) Field(key string) *Field {
	if n == nil || n.Kind != MapNode {
		return nil
	}
	for i := len(n.Fields) - 1; i >= 0; i-- {
		if n.Fields[i].Key == key {
			return n.Fields[i]
		}
	}
	return nil
}

// Set adds or replaces key in a map node.
func (n *Node) Set(key string, keyPos Pos, v *Node) {
	if f := n.Field(key); f != nil {
		f.Value = v
		f.KeyPos = keyPos
		return
	}
	n.Fields = append(n.Fields, &Field{Key: key, KeyPos: keyPos, Value: v})
}

// Append adds an item to a list node.
func (n *Node) Append(v *Node) { n.Items = append(n.Items, v) }

// String returns the string value, or "" for anything that is not a string.
func (n *Node) String() string {
	if n == nil || n.Kind != StringNode {
		return ""
	}
	return n.Str
}

// IsTrue reports whether n is the boolean true (nil-safe).
func (n *Node) IsTrue() bool { return n != nil && n.Kind == BoolNode && n.Bool }

// IsNull reports whether n is absent or null.
func (n *Node) IsNull() bool { return n == nil || n.Kind == NullNode }

// Plain converts the node to plain Go values: map[string]any, []any, string,
// int64, float64, bool and nil (the shapes encoding/json produces, except
// that integers stay int64). This is what JSON Schema validation, templates
// and JSON output consume.
func (n *Node) Plain() any {
	if n == nil {
		return nil
	}
	switch n.Kind {
	case StringNode:
		return n.Str
	case IntNode:
		return n.Int
	case FloatNode:
		return n.Float
	case BoolNode:
		return n.Bool
	case ListNode:
		out := make([]any, len(n.Items))
		for i, it := range n.Items {
			out[i] = it.Plain()
		}
		return out
	case MapNode:
		out := make(map[string]any, len(n.Fields))
		for _, f := range n.Fields {
			out[f.Key] = f.Value.Plain()
		}
		return out
	}
	return nil
}

// MarshalJSON writes the plain value, keeping map keys in source order.
func (n *Node) MarshalJSON() ([]byte, error) {
	return n.appendJSON(nil), nil
}

func (n *Node) appendJSON(b []byte) []byte {
	if n == nil {
		return append(b, "null"...)
	}
	switch n.Kind {
	case StringNode:
		q, _ := json.Marshal(n.Str)
		return append(b, q...)
	case IntNode:
		return strconv.AppendInt(b, n.Int, 10)
	case FloatNode:
		if math.IsInf(n.Float, 0) || math.IsNaN(n.Float) {
			q, _ := json.Marshal(strconv.FormatFloat(n.Float, 'g', -1, 64))
			return append(b, q...)
		}
		q, _ := json.Marshal(n.Float)
		return append(b, q...)
	case BoolNode:
		return strconv.AppendBool(b, n.Bool)
	case ListNode:
		b = append(b, '[')
		for i, it := range n.Items {
			if i > 0 {
				b = append(b, ',')
			}
			b = it.appendJSON(b)
		}
		return append(b, ']')
	case MapNode:
		b = append(b, '{')
		first := true
		for _, f := range n.Fields {
			if n.Field(f.Key) != f { // an earlier duplicate: the last one wins
				continue
			}
			if !first {
				b = append(b, ',')
			}
			first = false
			q, _ := json.Marshal(f.Key)
			b = append(b, q...)
			b = append(b, ':')
			b = f.Value.appendJSON(b)
		}
		return append(b, '}')
	}
	return append(b, "null"...)
}

// Fields of a map node (nil for anything else), for ranging without a
// kind check.
func (n *Node) MapFields() []*Field {
	if n == nil || n.Kind != MapNode {
		return nil
	}
	return n.Fields
}

// EffectiveFields are a map node's fields in source order without those a
// later duplicate key overrides: the fields as Get and Plain see them (YAML
// and Python dicts keep the last value of a repeated key). nil for anything
// but a map.
func (n *Node) EffectiveFields() []*Field {
	fs := n.MapFields()
	if len(fs) < 2 {
		return fs
	}
	if len(fs) <= 8 { // the common case: a few fields, no duplicates, no map
		dup := false
		for i, f := range fs {
			for _, g := range fs[i+1:] {
				dup = dup || f.Key == g.Key
			}
		}
		if !dup {
			return fs
		}
	}
	last := make(map[string]*Field, len(fs))
	for _, f := range fs {
		last[f.Key] = f
	}
	if len(last) == len(fs) {
		return fs
	}
	out := make([]*Field, 0, len(last))
	for _, f := range fs {
		if last[f.Key] == f {
			out = append(out, f)
		}
	}
	return out
}

// ListItems of a list node (nil for anything else).
func (n *Node) ListItems() []*Node {
	if n == nil || n.Kind != ListNode {
		return nil
	}
	return n.Items
}
