package item

import (
	"bytes"
	"strings"

	"go.yaml.in/yaml/v3"
)

// fastYAML reads the YAML that item metadata is nearly always written in,
// much faster than yaml.v3 (which was a tenth of a whole-tree lint): a
// block mapping at the left margin whose keys are plain words and whose
// values are one-line scalars (plain, or quoted without escapes), one-line
// flow lists of such scalars, block lists of them, and nested block
// mappings of the same; comment and blank lines anywhere. It builds the
// yaml.Node tree yaml.v3 would (kinds, styles, values, lines and columns;
// tags are left for Node.ShortTag to resolve, as yaml.v3 resolves them),
// so that everything after it is the same code. Anything else, including
// any byte outside printable ASCII, returns false: the caller then uses
// yaml.v3, which also reports the errors. FuzzFastYAML holds it to
// yaml.v3's result on every input it accepts.
func fastYAML(text []byte) (*yaml.Node, bool) {
	var lines []yline
	for n, start := 1, 0; start < len(text); n++ {
		end := bytes.IndexByte(text[start:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += start
		}
		raw := text[start:end]
		start = end + 1
		for _, c := range raw {
			if c < 0x20 || c > 0x7e {
				return nil, false // tabs, CR, controls, non-ASCII: yaml.v3's
			}
		}
		body := bytes.TrimLeft(raw, " ")
		if len(body) == 0 || body[0] == '#' {
			continue
		}
		if bytes.HasPrefix(raw, []byte("---")) || bytes.HasPrefix(raw, []byte("...")) || raw[0] == '%' {
			return nil, false // document markers and directives
		}
		lines = append(lines, yline{num: n, indent: len(raw) - len(body), text: string(bytes.TrimRight(body, " "))})
	}
	if len(lines) == 0 || lines[0].indent != 0 {
		return nil, false
	}
	p := &fastParser{lines: lines}
	root, ok := p.mapping(0)
	if !ok || p.at != len(lines) {
		return nil, false
	}
	return root, true
}

// yline is one significant line: its number in the text, its indentation
// and what follows it (without trailing spaces).
type yline struct {
	num, indent int
	text        string
}

type fastParser struct {
	lines []yline
	at    int
}

// mapping reads the block mapping whose keys are at indent.
func (p *fastParser) mapping(indent int) (*yaml.Node, bool) {
	first := p.lines[p.at]
	m := &yaml.Node{Kind: yaml.MappingNode, Line: first.num, Column: indent + 1}
	for p.at < len(p.lines) {
		l := p.lines[p.at]
		if l.indent < indent {
			break
		}
		if l.indent > indent {
			return nil, false // a continuation line, or a misplaced one
		}
		key, rest, ok := splitKey(l.text)
		if !ok {
			return nil, false
		}
		p.at++
		k := &yaml.Node{Kind: yaml.ScalarNode, Value: key, Line: l.num, Column: indent + 1}
		var v *yaml.Node
		if rest == "" {
			if v, ok = p.nested(indent); !ok {
				return nil, false
			}
		} else {
			col := indent + len(key) + 1 + countSpaces(rest) + 1
			if v, ok = inlineValue(strings.TrimLeft(rest, " "), l.num, col); !ok {
				return nil, false
			}
		}
		m.Content = append(m.Content, k, v)
	}
	return m, true
}

// nested reads the value of a key written alone on its line: a block
// mapping indented further, or a block list (which may start at the key's
// own indentation). An empty value is left to yaml.v3.
func (p *fastParser) nested(indent int) (*yaml.Node, bool) {
	if p.at == len(p.lines) {
		return nil, false
	}
	next := p.lines[p.at]
	switch {
	case strings.HasPrefix(next.text, "- ") && next.indent >= indent:
		return p.list(next.indent)
	case next.indent > indent:
		return p.mapping(next.indent)
	}
	return nil, false
}

// list reads a block list of one-line values whose dashes are at indent.
func (p *fastParser) list(indent int) (*yaml.Node, bool) {
	first := p.lines[p.at]
	s := &yaml.Node{Kind: yaml.SequenceNode, Line: first.num, Column: indent + 1}
	for p.at < len(p.lines) {
		l := p.lines[p.at]
		if l.indent < indent || l.indent == indent && !strings.HasPrefix(l.text, "- ") {
			break
		}
		if l.indent > indent {
			return nil, false
		}
		item := l.text[2:]
		col := indent + 3 + countSpaces(item)
		item = strings.TrimLeft(item, " ")
		if _, _, isMap := splitKey(item); isMap || item == "" {
			return nil, false // a mapping or an empty item in a list
		}
		v, ok := inlineValue(item, l.num, col)
		if !ok {
			return nil, false
		}
		p.at++
		s.Content = append(s.Content, v)
	}
	return s, true
}

// splitKey splits "key: rest" or "key:" where key is a plain word.
func splitKey(text string) (key, rest string, ok bool) {
	i := strings.IndexByte(text, ':')
	if i <= 0 || !isWord(text[:i]) {
		return "", "", false
	}
	rest = text[i+1:]
	if rest != "" && rest[0] != ' ' {
		return "", "", false
	}
	return text[:i], rest, true
}

// isWord is a key yaml.v3 reads as the same plain string: a letter or _
// first, then letters, digits, _ and -; not long (yaml.v3 looks at most
// 1024 characters ahead for the ':' of a key).
func isWord(s string) bool {
	if len(s) > 200 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_':
		case i > 0 && (c >= '0' && c <= '9' || c == '-'):
		default:
			return false
		}
	}
	return s != ""
}

func countSpaces(s string) int { return len(s) - len(strings.TrimLeft(s, " ")) }

// inlineValue reads a one-line value starting at column col: a flow list
// of scalars, or a scalar; a comment may follow.
func inlineValue(s string, line, col int) (*yaml.Node, bool) {
	if s[0] == '[' {
		return flowList(s, line, col)
	}
	n, rest, ok := scalar(s, line, col, false)
	if !ok || !trailer(rest) {
		return nil, false
	}
	return n, true
}

// flowList reads "[a, b, 'c']" and what may follow it.
func flowList(s string, line, col int) (*yaml.Node, bool) {
	seq := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle, Line: line, Column: col}
	i := 1
	skip := func() {
		for i < len(s) && s[i] == ' ' {
			i++
		}
	}
	skip()
	if i < len(s) && s[i] == ']' {
		return seq, trailer(s[i+1:])
	}
	for {
		skip()
		if i >= len(s) {
			return nil, false
		}
		n, rest, ok := scalar(s[i:], line, col+i, true)
		if !ok {
			return nil, false
		}
		seq.Content = append(seq.Content, n)
		i = len(s) - len(rest)
		skip()
		if i >= len(s) {
			return nil, false
		}
		switch s[i] {
		case ',':
			i++
			skip()
			if i < len(s) && s[i] == ']' {
				return nil, false // a trailing comma: yaml.v3's to judge
			}
		case ']':
			return seq, trailer(s[i+1:])
		default:
			return nil, false
		}
	}
}

// trailer reports what may follow a value on its line: nothing, or a
// comment after a space.
func trailer(rest string) bool {
	t := strings.TrimLeft(rest, " ")
	return t == "" || t[0] == '#' && len(t) < len(rest)
}

// scalar reads a scalar at the start of s and returns it with what
// follows. Plain scalars stop at " #" (a comment), and in a flow list at
// ',' or ']'; those that start with an indicator or hold ": " are left to
// yaml.v3. Quoted scalars may not hold escapes.
func scalar(s string, line, col int, flow bool) (*yaml.Node, string, bool) {
	n := &yaml.Node{Kind: yaml.ScalarNode, Line: line, Column: col}
	switch s[0] {
	case '"', '\'':
		end := strings.IndexByte(s[1:], s[0])
		if end < 0 {
			return nil, "", false
		}
		inner := s[1 : 1+end]
		rest := s[2+end:]
		if strings.ContainsAny(inner, `\"'`) || s[0] == '\'' && strings.HasPrefix(rest, "'") {
			return nil, "", false // escapes: yaml.v3's
		}
		n.Value, n.Style = inner, yaml.DoubleQuotedStyle
		if s[0] == '\'' {
			n.Style = yaml.SingleQuotedStyle
		}
		return n, rest, true
	}
	// An indicator cannot start a plain scalar, except "-" before a
	// character that is not a space ("-v", "-1").
	if strings.ContainsRune("?:,[]{}#&*!|>'\"%@`", rune(s[0])) || s[0] == '-' && (len(s) == 1 || s[1] == ' ' || flow && strings.ContainsRune(",[]{}", rune(s[1]))) {
		return nil, "", false
	}
	end := len(s)
	if i := strings.Index(s, " #"); i >= 0 {
		end = i
	}
	if flow {
		if i := strings.IndexAny(s[:end], ",]"); i >= 0 {
			end = i
		}
		if strings.ContainsAny(s[:end], "[{}") {
			return nil, "", false
		}
	}
	v := strings.TrimRight(s[:end], " ")
	// "<<" is yaml.v3's merge key even as a value (tagged !!merge).
	if v == "" || v == "<<" || strings.Contains(v, ": ") || strings.HasSuffix(v, ":") || flow && strings.ContainsAny(v, ":'\"#") {
		return nil, "", false
	}
	n.Value = v
	return n, s[end:], true
}
