package item

import (
	"bytes"
	"errors"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/ryekit/rye/item/syntax"
)

// yamlText is YAML embedded in an item file: a fenced block, front matter,
// a whole file, or comment lines with their prefix removed. It remembers
// where each of its lines came from so that every node gets its position in
// the file, not in the extracted text.
type yamlText struct {
	text      []byte
	lineStart []int // per YAML line (0-based): the file offset of its first byte
	src       []byte
	idx       *syntax.LineIndex
}

// sliceYAML is YAML that is a contiguous range of the file.
func sliceYAML(src []byte, idx *syntax.LineIndex, from, to int) *yamlText {
	y := &yamlText{text: src[from:to], src: src, idx: idx}
	y.lineStart = append(y.lineStart, from)
	for i := from; i < to; i++ {
		if src[i] == '\n' && i+1 < to {
			y.lineStart = append(y.lineStart, i+1)
		}
	}
	return y
}

// pos maps a yaml.v3 mark (1-based line, 1-based column counted in runes) to
// a file position.
func (y *yamlText) pos(line, col int) syntax.Pos {
	if line < 1 || line > len(y.lineStart) {
		return y.idx.Pos(y.lineStart[len(y.lineStart)-1])
	}
	off := y.lineStart[line-1]
	for c := 1; c < col && off < len(y.src) && y.src[off] != '\n'; c++ {
		_, size := utf8.DecodeRune(y.src[off:])
		off += size
	}
	return y.idx.Pos(off)
}

// maxYAMLNodes bounds alias expansion (a "billion laughs" document).
const maxYAMLNodes = 100000

var yamlLineRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: line (\d+): `) })

// parse decodes one YAML document into a Node tree. An empty document is an
// empty map; a document whose top level is not a mapping is an error.
func (y *yamlText) parse(what string) (*syntax.Node, error) {
	if root, ok := fastYAML(y.text); ok {
		return y.convert(root, what)
	}
	dec := yaml.NewDecoder(bytes.NewReader(y.text))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return syntax.NewMap(y.pos(1, 1)), nil
		}
		return nil, y.syntaxError(what, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, &syntax.Error{Pos: y.pos(extra.Line, extra.Column), Msg: what + " holds more than one YAML document", Fix: "remove the `---` separator or move the rest into the body"}
	} else if !errors.Is(err, io.EOF) {
		return nil, y.syntaxError(what, err)
	}
	root := &doc
	if root.Kind == yaml.DocumentNode {
		if len(root.Content) == 0 {
			return syntax.NewMap(y.pos(1, 1)), nil
		}
		root = root.Content[0]
	}
	return y.convert(root, what)
}

// convert turns a document's root node into metadata fields.
func (y *yamlText) convert(root *yaml.Node, what string) (*syntax.Node, error) {
	conv := &yamlConverter{y: y}
	n, err := conv.node(root, false)
	if err != nil {
		return nil, err
	}
	if n.Kind == syntax.NullNode {
		return syntax.NewMap(n.Pos), nil
	}
	if n.Kind != syntax.MapNode {
		return nil, &syntax.Error{Pos: n.Pos, Msg: what + " must be a YAML mapping of keys to values, found " + describeKind(n)}
	}
	return n, nil
}

func (y *yamlText) syntaxError(what string, err error) *syntax.Error {
	msg := err.Error()
	pos := syntax.Pos{}
	if m := yamlLineRE().FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		pos = y.pos(line, 1)
		msg = msg[len(m[0]):]
	} else {
		msg = strings.TrimPrefix(msg, "yaml: ")
	}
	return &syntax.Error{Pos: pos, Msg: "invalid YAML in " + what + ": " + msg}
}

type yamlConverter struct {
	y     *yamlText
	count int
}

func (c *yamlConverter) node(n *yaml.Node, flow bool) (*syntax.Node, error) {
	c.count++
	if c.count > maxYAMLNodes {
		return nil, &syntax.Error{Pos: c.y.pos(n.Line, n.Column), Msg: "YAML document too large (more than 100000 values after expanding aliases)"}
	}
	pos := c.y.pos(n.Line, n.Column)
	switch n.Kind {
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil, &syntax.Error{Pos: pos, Msg: "YAML alias refers to nothing"}
		}
		return c.node(n.Alias, flow)
	case yaml.ScalarNode:
		out := c.scalar(n, pos)
		out.End = c.scalarEnd(n, pos, flow)
		if out.End.IsValid() {
			out.Raw = string(c.y.src[pos.Offset:out.End.Offset])
		}
		return out, nil
	case yaml.SequenceNode:
		out := syntax.NewList(pos)
		for _, child := range n.Content {
			v, err := c.node(child, flow || n.Style&yaml.FlowStyle != 0)
			if err != nil {
				return nil, err
			}
			out.Append(v)
		}
		return out, nil
	case yaml.MappingNode:
		out := syntax.NewMap(pos)
		inFlow := flow || n.Style&yaml.FlowStyle != 0
		// at indexes out.Fields by key, so that a mapping with many keys
		// is read in linear time (Node.Set searches).
		at := map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Tag == "!!merge" {
				if err := c.merge(out, v, inFlow); err != nil {
					return nil, err
				}
				for j, f := range out.Fields {
					at[f.Key] = j
				}
				continue
			}
			if k.Kind != yaml.ScalarNode {
				return nil, &syntax.Error{Pos: c.y.pos(k.Line, k.Column), Msg: "YAML mapping key must be a plain value, not a list or mapping"}
			}
			keyPos := c.y.pos(k.Line, k.Column)
			j, seen := at[k.Value]
			if seen && out.Fields[j].KeyPos.IsValid() {
				return nil, &syntax.Error{Pos: keyPos, Field: k.Value, Msg: "duplicate key (first at " + out.Fields[j].KeyPos.String() + ")", Fix: "remove one of them"}
			}
			val, err := c.node(v, inFlow)
			if err != nil {
				return nil, err
			}
			if seen { // a key that a merge (<<) brought in: the explicit one wins
				out.Fields[j] = &syntax.Field{Key: k.Value, KeyPos: keyPos, Value: val}
				continue
			}
			at[k.Value] = len(out.Fields)
			out.Fields = append(out.Fields, &syntax.Field{Key: k.Value, KeyPos: keyPos, Value: val})
		}
		return out, nil
	}
	return syntax.NewNull(pos), nil
}

// merge applies a YAML merge key (<<): fields not already present are copied.
func (c *yamlConverter) merge(out *syntax.Node, v *yaml.Node, flow bool) error {
	sources := []*yaml.Node{v}
	if v.Kind == yaml.SequenceNode {
		sources = v.Content
	}
	for _, s := range sources {
		m, err := c.node(s, flow)
		if err != nil {
			return err
		}
		if m.Kind != syntax.MapNode {
			return &syntax.Error{Pos: m.Pos, Msg: "YAML merge key (<<) needs a mapping"}
		}
		for _, f := range m.Fields {
			if out.Field(f.Key) == nil {
				out.Fields = append(out.Fields, &syntax.Field{Key: f.Key, Value: f.Value})
			}
		}
	}
	return nil
}

func (c *yamlConverter) scalar(n *yaml.Node, pos syntax.Pos) *syntax.Node {
	switch n.ShortTag() {
	case "!!null":
		return syntax.NewNull(pos)
	case "!!bool":
		var b bool
		if n.Decode(&b) == nil {
			return syntax.NewBool(b, pos)
		}
	case "!!int":
		var i int64
		if n.Decode(&i) == nil {
			return syntax.NewInt(i, pos)
		}
		var f float64
		if n.Decode(&f) == nil {
			return syntax.NewFloat(f, pos)
		}
	case "!!float":
		var f float64
		if n.Decode(&f) == nil {
			return syntax.NewFloat(f, pos)
		}
	}
	// Strings, timestamps (kept as written), binary and custom tags.
	return syntax.NewString(n.Value, pos)
}

// scalarEnd finds where a scalar ends in the file, so that fixes can replace
// exactly the written value. Block scalars (| and >) get no end.
func (c *yamlConverter) scalarEnd(n *yaml.Node, pos syntax.Pos, flow bool) syntax.Pos {
	src, off := c.y.src, pos.Offset
	switch {
	case n.Style&yaml.DoubleQuotedStyle != 0:
		for i := off + 1; i < len(src); i++ {
			switch src[i] {
			case '\\':
				i++
			case '"':
				return c.y.idx.Pos(i + 1)
			}
		}
	case n.Style&yaml.SingleQuotedStyle != 0:
		for i := off + 1; i < len(src); i++ {
			if src[i] == '\'' {
				if i+1 < len(src) && src[i+1] == '\'' {
					i++
					continue
				}
				return c.y.idx.Pos(i + 1)
			}
		}
	case n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		return syntax.Pos{}
	default:
		// A plain scalar has no escapes, so its text is its value: it ends at
		// a comment, a ": " indicator, a flow delimiter or the line end. When
		// the text found differs from the value (a folded multi-line plain
		// scalar), the end is unknown.
		end := off
	scan:
		for ; end < len(src); end++ {
			switch src[end] {
			case '\n', '\r':
				break scan
			case '#':
				if end > off && (src[end-1] == ' ' || src[end-1] == '\t') {
					break scan
				}
			case ',', ']', '}':
				if flow {
					break scan
				}
			case ':':
				if end+1 == len(src) || strings.IndexByte(" \t\r\n", src[end+1]) >= 0 {
					break scan
				}
			}
		}
		for end > off && (src[end-1] == ' ' || src[end-1] == '\t') {
			end--
		}
		if end > off && string(src[off:end]) == n.Value {
			return c.y.idx.Pos(end)
		}
	}
	return syntax.Pos{}
}

// describeKind says what a value is, for messages: `a string ("x")`,
// `a number (1.0)`.
func describeKind(n *syntax.Node) string {
	if n == nil {
		return "nothing"
	}
	switch n.Kind {
	case syntax.NullNode:
		return "null"
	case syntax.StringNode:
		return "a string (" + strconv.Quote(abbreviate(n.Str)) + ")"
	case syntax.IntNode, syntax.FloatNode:
		raw := n.Raw
		if raw == "" {
			if n.Kind == syntax.IntNode {
				raw = strconv.FormatInt(n.Int, 10)
			} else {
				raw = strconv.FormatFloat(n.Float, 'g', -1, 64)
			}
		}
		return "a number (" + raw + ")"
	case syntax.BoolNode:
		return "a boolean (" + strconv.FormatBool(n.Bool) + ")"
	case syntax.ListNode:
		return "a list"
	case syntax.MapNode:
		return "a mapping"
	}
	return "an unknown value"
}
