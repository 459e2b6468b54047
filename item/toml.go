package item

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	toml "github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"

	"github.com/ryekit/rye/item/syntax"
)

// readTOML reads a whole-file TOML document. Values are decoded by the TOML
// library; a second pass over its syntax tree finds where each key and value
// was written, so that messages can point at them.
func readTOML(src []byte) (*syntax.Node, error) {
	idx := syntax.NewLineIndex(src)
	if TOMLNesting(src) > maxTOMLDepth {
		return nil, &syntax.Error{Msg: fmt.Sprintf("TOML nested more than %d levels deep", maxTOMLDepth)}
	}
	var doc map[string]any
	if err := toml.Unmarshal(src, &doc); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			row, col := de.Position()
			pos := syntax.Pos{}
			if off := idx.LineStart(row); off >= 0 {
				pos = idx.Pos(off + col - 1)
			}
			return nil, &syntax.Error{Pos: pos, Msg: "invalid TOML: " + strings.TrimPrefix(de.Error(), "toml: ")}
		}
		return nil, &syntax.Error{Msg: "invalid TOML: " + strings.TrimPrefix(err.Error(), "toml: ")}
	}
	places := tomlPlaces(src, idx)
	return tomlNode(doc, "", places, idx.Pos(0), 0)
}

// maxTOMLDepth bounds the nesting of a TOML document: metadata is a few
// levels deep, and every later walk of the tree recurses.
const maxTOMLDepth = 100

// tomlPlace is where a key (and its value) was written.
type tomlPlace struct{ key, value syntax.Pos }

// tomlPlaces maps dotted key paths ("config.args") to their positions.
// Array-of-table elements share the path of the array.
func tomlPlaces(src []byte, idx *syntax.LineIndex) map[string]tomlPlace {
	places := map[string]tomlPlace{}
	var p unstable.Parser
	p.Reset(src)
	table := ""
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			path, first, _ := tomlKey(e)
			table = path
			if _, seen := places[path]; !seen {
				places[path] = tomlPlace{key: idx.Pos(first), value: idx.Pos(first)}
			}
		case unstable.KeyValue:
			path, first, last := tomlKey(e)
			if table != "" {
				path = table + "." + path
			}
			val := last
			if v := e.Value(); v.Raw.Length > 0 {
				val = int(v.Raw.Offset)
			} else if eq := strings.IndexByte(string(src[last:]), '='); eq >= 0 {
				val = last + eq + 1
				for val < len(src) && (src[val] == ' ' || src[val] == '\t') {
					val++
				}
			}
			places[path] = tomlPlace{key: idx.Pos(first), value: idx.Pos(val)}
		}
	}
	return places
}

// tomlKey returns the dotted path of an expression's key, the offset of its
// first part and the offset just past its last part.
func tomlKey(e *unstable.Node) (path string, first, last int) {
	var parts []string
	it := e.Key()
	for it.Next() {
		k := it.Node()
		if len(parts) == 0 {
			first = int(k.Raw.Offset)
		}
		last = int(k.Raw.Offset + k.Raw.Length)
		parts = append(parts, string(k.Data))
	}
	return strings.Join(parts, "."), first, last
}

func tomlNode(v any, path string, places map[string]tomlPlace, pos syntax.Pos, depth int) (*syntax.Node, error) {
	if depth > maxTOMLDepth {
		return nil, &syntax.Error{Pos: pos, Msg: fmt.Sprintf("TOML nested more than %d levels deep", maxTOMLDepth)}
	}
	switch x := v.(type) {
	case map[string]any:
		n := syntax.NewMap(pos)
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.SliceStable(keys, func(i, j int) bool {
			pi, pj := places[join(path, keys[i])].key, places[join(path, keys[j])].key
			if pi.IsValid() != pj.IsValid() {
				return pi.IsValid()
			}
			if pi.Offset != pj.Offset {
				return pi.Offset < pj.Offset
			}
			return keys[i] < keys[j]
		})
		for _, k := range keys {
			p := places[join(path, k)]
			valuePos := p.value
			if !valuePos.IsValid() {
				valuePos = pos
			}
			c, err := tomlNode(x[k], join(path, k), places, valuePos, depth+1)
			if err != nil {
				return nil, err
			}
			n.Set(k, p.key, c)
		}
		return n, nil
	case []any:
		n := syntax.NewList(pos)
		for _, it := range x {
			c, err := tomlNode(it, path, places, pos, depth+1)
			if err != nil {
				return nil, err
			}
			n.Append(c)
		}
		return n, nil
	case []map[string]any:
		n := syntax.NewList(pos)
		for _, it := range x {
			c, err := tomlNode(it, path, places, pos, depth+1)
			if err != nil {
				return nil, err
			}
			n.Append(c)
		}
		return n, nil
	case string:
		return syntax.NewString(x, pos), nil
	case bool:
		return syntax.NewBool(x, pos), nil
	case int64:
		return syntax.NewInt(x, pos), nil
	case float64:
		return syntax.NewFloat(x, pos), nil
	case time.Time:
		return syntax.NewString(x.Format(time.RFC3339Nano), pos), nil
	case fmt.Stringer: // LocalDate, LocalTime, LocalDateTime
		return syntax.NewString(x.String(), pos), nil
	}
	return syntax.NewNull(pos), nil
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// TOMLNesting is the deepest nesting of arrays and inline tables ('[' and
// '{', outside strings and comments) in a TOML document: a guard that runs
// before the TOML library, whose memory grows steeply with nesting (a
// 1 MiB file of '[' took hundreds of megabytes).
func TOMLNesting(src []byte) int {
	depth, most := 0, 0
	for i := 0; i < len(src); i++ {
		switch c := src[i]; c {
		case '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case '"', '\'':
			quote := string(c)
			if i+2 < len(src) && src[i+1] == c && src[i+2] == c {
				quote = strings.Repeat(quote, 3)
			}
			end := tomlStringEnd(src, i+len(quote), quote)
			i = end - 1
		case '[', '{':
			depth++
			most = max(most, depth)
		case ']', '}':
			depth = max(0, depth-1)
		}
	}
	return most
}

// tomlStringEnd returns the offset just past the string that began before
// from and ends with quote (a backslash escapes in basic strings).
func tomlStringEnd(src []byte, from int, quote string) int {
	for i := from; i < len(src); i++ {
		if quote[0] == '"' && src[i] == '\\' {
			i++
			continue
		}
		if bytes.HasPrefix(src[i:], []byte(quote)) {
			return i + len(quote)
		}
		if len(quote) == 1 && src[i] == '\n' {
			return i + 1 // an unterminated one-line string: the parser says so
		}
	}
	return len(src)
}
