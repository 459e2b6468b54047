package item

import (
	"bytes"
	"errors"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/ryekit/rye/item/syntax"
)

// This file reads items as RyeOS 0.2+ does (spec 7.2): every marker line
// of the file's envelope removed first, then the kind's parser, then the
// kind's metadata rules. Findings carry RyeOS's rule codes in Rule
// ("parse/no-header", "metadata/match_path", ...), which lint reports.

// RyeOSDoc is an item file read as RyeOS 0.2+ reads it.
type RyeOSDoc struct {
	Kind Kind
	ID   ID
	Ext  string
	// Value is what the kind's parser yields, a mapping (a directive's
	// body is its "body" field); nil when the file does not parse.
	Value *syntax.Node
	// Identity is the name and category RyeOS derives (spec 7.3), set once
	// the file parses.
	Identity identity
	// Refusal is the first of the steps RyeOS runs before anything else
	// (read as UTF-8, parse, metadata rules: spec 7.5.1, steps 1 to 3)
	// that refuses the file, nil when none does. Its Rule is the code.
	Refusal *syntax.Error

	// Knowledge pages only (spec 7.2.3): the knowledge runtime's view of
	// the front matter, nil when the page has none, and the body it shows;
	// FrontProblem is front matter opened and never closed
	// (knowledge/unclosed) or not YAML (knowledge/yaml).
	Front        *syntax.Node
	FrontBody    string
	FrontProblem *syntax.Error
	// FrontAt is where the front matter's text starts (Front's values
	// carry their own positions).
	FrontAt syntax.Pos

	src []byte
	idx *syntax.LineIndex
}

// Pos is the position of a byte offset of the file.
func (d *RyeOSDoc) Pos(off int) syntax.Pos { return d.idx.Pos(off) }

// ReadRyeOS reads the file of item id of kind k (ext is its extension) as
// RyeOS 0.2+ does. It never fails: what RyeOS would refuse is the Refusal.
// A file whose extension is not a form of k is refused as RyeOS refuses
// to sign it (parse/extension).
func ReadRyeOS(k Kind, id ID, ext string, src []byte) *RyeOSDoc {
	d := &RyeOSDoc{Kind: k, ID: id, Ext: ext, src: src, idx: syntax.NewLineIndex(src)}
	if !utf8.Valid(src) {
		d.Refusal = &syntax.Error{Rule: "parse/utf8", Msg: "not UTF-8 text: RyeOS reads every item as UTF-8"}
		return d
	}
	if k == BundleManifest {
		t := rustLines(src, ext)
		d.Value, d.Refusal = t.yaml(0, len(t.lines), "the manifest", false)
		return d
	}
	form, ok := ryeosFormOf(k, ext)
	if !ok {
		d.Refusal = &syntax.Error{Rule: "parse/extension", Msg: ext + " is not a " + string(k) + " file form in RyeOS 0.2+ (expected one of " + strings.Join(RyeOSExtensions(k), " ") + ")"}
		return d
	}
	t := rustLines(src, ext)
	switch form.parser {
	case parseYAML:
		d.Value, d.Refusal = t.yaml(0, len(t.lines), "the "+string(k)+" file", false)
	case parseDirective:
		d.Value, d.Refusal = t.directive()
	case parseFrontMatter:
		d.Value, d.Refusal = t.fencedKnowledge()
	case parseToolHeader:
		d.Value, d.Refusal = t.toolHeader()
	case parseJavaScript:
		d.Value = t.javascript()
	}
	if k == Knowledge {
		d.readFront(t)
	}
	if d.Refusal == nil {
		d.Refusal = d.anchor()
	}
	return d
}

// rustText is a file's text split into lines as Rust's str::lines() does
// (at '\n', a '\r' before it dropped), without the marker lines of its
// envelope (spec 7.2.1): the parser's input.
type rustText struct {
	src    []byte
	idx    *syntax.LineIndex
	lines  [][]byte
	starts []int // the file offset of each line
	nl     bool  // the file ends with '\n'
}

// envelopeOpener is the comment opener of a file form's signature line,
// without its space: "<!--", "//" or "#".
func envelopeOpener(ext string) string {
	prefix, _, ok := Envelope(ext)
	if !ok {
		return "#"
	}
	return strings.TrimRight(prefix, " ")
}

// IsRyeOSMarkerLine reports whether a line (without its line ending) is a
// marker line of the envelope of ext (spec 7.2.1): trimmed, the opener,
// optional blanks, then "ryeos:signed:", or exactly "ryeos:signed", or
// "ryeos:signed " and more (a placeholder); for Markdown a closing "-->"
// is optional.
func IsRyeOSMarkerLine(line []byte, ext string) bool {
	opener := envelopeOpener(ext)
	t := bytes.TrimFunc(line, unicode.IsSpace)
	rest, ok := bytes.CutPrefix(t, []byte(opener))
	if !ok {
		return false
	}
	rest = bytes.TrimLeftFunc(rest, unicode.IsSpace)
	if opener == "<!--" {
		if r, ok := bytes.CutSuffix(rest, []byte("-->")); ok {
			rest = bytes.TrimRightFunc(r, unicode.IsSpace)
		}
	}
	return bytes.HasPrefix(rest, []byte("ryeos:signed:")) || string(rest) == "ryeos:signed" || bytes.HasPrefix(rest, []byte("ryeos:signed "))
}

// StripLines is a file's text without the lines drop selects, as RyeOS
// rebuilds it (spec 7.2.1): the lines of Rust's str::lines() that are
// kept, joined with '\n', with a final '\n' when the file ended with one
// and the result is not empty. CRLF line endings become LF.
func StripLines(src []byte, drop func(line []byte) bool) []byte {
	var out []byte
	n := 0
	eachRustLine(src, func(line []byte, _ int) {
		if drop(line) {
			return
		}
		if n > 0 {
			out = append(out, '\n')
		}
		out = append(out, line...)
		n++
	})
	if len(out) > 0 && bytes.HasSuffix(src, []byte("\n")) {
		out = append(out, '\n')
	}
	if out == nil {
		out = []byte{}
	}
	return out
}

// StripRyeOSMarkers is the text RyeOS parses and signs (spec 7.2.1, 7.6.1
// step 3): every marker line of the envelope of ext removed, wherever it
// is.
func StripRyeOSMarkers(src []byte, ext string) []byte {
	return StripLines(src, func(line []byte) bool { return IsRyeOSMarkerLine(line, ext) })
}

// eachRustLine calls fn with each line of src as str::lines() gives them
// (a final line ending adds no empty line; "\r\n" ends a line, a lone
// '\r' does not) and its offset.
func eachRustLine(src []byte, fn func(line []byte, start int)) {
	for off := 0; off < len(src); {
		i := bytes.IndexByte(src[off:], '\n')
		if i < 0 {
			fn(src[off:], off)
			return
		}
		fn(bytes.TrimSuffix(src[off:off+i], []byte("\r")), off)
		off += i + 1
	}
}

func rustLines(src []byte, ext string) *rustText {
	t := &rustText{src: src, idx: syntax.NewLineIndex(src), nl: bytes.HasSuffix(src, []byte("\n"))}
	eachRustLine(src, func(line []byte, start int) {
		if !IsRyeOSMarkerLine(line, ext) {
			t.lines = append(t.lines, line)
			t.starts = append(t.starts, start)
		}
	})
	return t
}

// pos is the position of line i (of the stripped text), column col (a
// byte offset in the line).
func (t *rustText) pos(i, col int) syntax.Pos {
	switch {
	case i < len(t.starts):
		return t.idx.Pos(t.starts[i] + col)
	case len(t.src) > 0:
		return t.idx.Pos(len(t.src))
	}
	return syntax.Pos{Line: 1, Col: 1}
}

func blank(line []byte) bool { return len(bytes.TrimFunc(line, unicode.IsSpace)) == 0 }

// yaml parses lines [from, to) as one YAML document whose root is a
// mapping (null is {} when nullIsMap; text that is all white space is {}).
func (t *rustText) yaml(from, to int, what string, nullIsMap bool) (*syntax.Node, *syntax.Error) {
	var text []byte
	starts := make([]int, 0, to-from)
	empty := true
	for i := from; i < to; i++ {
		text = append(append(text, t.lines[i]...), '\n')
		starts = append(starts, t.starts[i])
		empty = empty && blank(t.lines[i])
	}
	if empty {
		return syntax.NewMap(t.pos(from, 0)), nil
	}
	return parseMapping(&yamlText{text: text, lineStart: starts, src: t.src, idx: t.idx}, what, nullIsMap)
}

// parseMapping parses y as one YAML document whose root must be a
// mapping: a YAML error is parse/yaml, another root parse/not-mapping.
func parseMapping(y *yamlText, what string, nullIsMap bool) (*syntax.Node, *syntax.Error) {
	dec := yaml.NewDecoder(bytes.NewReader(y.text))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			if nullIsMap {
				return syntax.NewMap(y.pos(1, 1)), nil
			}
			return nil, &syntax.Error{Rule: "parse/not-mapping", Pos: y.pos(1, 1), Msg: what + " holds no YAML mapping"}
		}
		e := y.syntaxError(what, err)
		e.Rule = "parse/yaml"
		return nil, e
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, &syntax.Error{Rule: "parse/yaml", Pos: y.pos(extra.Line, extra.Column), Msg: what + " holds more than one YAML document"}
	} else if !errors.Is(err, io.EOF) {
		e := y.syntaxError(what, err)
		e.Rule = "parse/yaml"
		return nil, e
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) > 0 {
		root = root.Content[0]
	}
	switch {
	case root.Kind == yaml.MappingNode:
	case nullIsMap && (root.Kind == yaml.DocumentNode || root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null"):
		return syntax.NewMap(y.pos(1, 1)), nil
	default:
		return nil, &syntax.Error{Rule: "parse/not-mapping", Pos: y.pos(root.Line, root.Column), Msg: what + " must be a YAML mapping of keys to values"}
	}
	conv := &yamlConverter{y: y}
	n, err := conv.node(root, false)
	if err != nil {
		e, ok := err.(*syntax.Error)
		if !ok {
			e = &syntax.Error{Msg: err.Error()}
		}
		e.Rule = "parse/yaml"
		return nil, e
	}
	return n, nil
}

// directive reads a directive's header and body (markdown/directive, spec
// 7.2.2): --- front matter at the very start of the text, or a ```yaml
// block as its first non-blank line.
func (t *rustText) directive() (*syntax.Node, *syntax.Error) {
	type header struct{ from, to, body int }
	var found []header
	var unclosed *syntax.Error
	// Front matter: the text starts with "---" and a line ending (after a
	// byte-order mark), and closes at the next line that is "---".
	if len(t.lines) > 1 || (len(t.lines) == 1 && t.nl) {
		first := bytes.TrimPrefix(t.lines[0], []byte("\ufeff"))
		if string(first) == "---" {
			closed := false
			for i := 1; i < len(t.lines); i++ {
				if string(t.lines[i]) == "---" {
					found = append(found, header{1, i, i + 1})
					closed = true
					break
				}
			}
			if !closed {
				unclosed = &syntax.Error{Rule: "parse/unclosed", Pos: t.pos(0, 0), Msg: "the --- front matter is never closed", Fix: "add a line --- after the header"}
			}
		}
	}
	if from, to, ok, err := t.fence(); err != nil {
		unclosed = err
	} else if ok {
		found = append(found, header{from, to, to + 1})
	}
	switch {
	case unclosed != nil:
		return nil, unclosed
	case len(found) > 1:
		return nil, &syntax.Error{Rule: "parse/ambiguous", Pos: t.pos(0, 0), Msg: "the directive has both --- front matter and a ```yaml header"}
	case len(found) == 0:
		return nil, &syntax.Error{Rule: "parse/no-header", Pos: t.pos(0, 0), Msg: "no header: a RyeOS 0.2+ directive starts with --- front matter on the line right after the signature line (no blank line before it), or with a ```yaml block",
			Fix: "remove what comes between the signature line and ---"}
	}
	h := found[0]
	v, err := t.yaml(h.from, h.to, "the directive header", true)
	if err != nil {
		return nil, err
	}
	// The body: the lines after the header, leading line breaks removed.
	var body []byte
	bodyLine := h.body
	for i := h.body; i < len(t.lines); i++ {
		if len(body) == 0 && len(t.lines[i]) == 0 {
			bodyLine = i + 1
			continue
		}
		if len(body) > 0 {
			body = append(body, '\n')
		}
		body = append(body, t.lines[i]...)
	}
	if len(body) > 0 && t.nl {
		body = append(body, '\n')
	}
	v.Set("body", syntax.Pos{}, syntax.NewString(string(body), t.pos(bodyLine, 0)))
	return v, nil
}

// fence finds a ```yaml block that is the text's first non-blank line:
// its YAML lines [from, to), to being the closing ``` line.
func (t *rustText) fence() (from, to int, ok bool, err *syntax.Error) {
	i := 0
	for i < len(t.lines) && blank(t.lines[i]) {
		i++
	}
	if i == len(t.lines) || string(bytes.TrimRightFunc(t.lines[i], unicode.IsSpace)) != "```yaml" {
		return 0, 0, false, nil
	}
	for j := i + 1; j < len(t.lines); j++ {
		if string(bytes.TrimFunc(t.lines[j], unicode.IsSpace)) == "```" {
			return i + 1, j, true, nil
		}
	}
	return 0, 0, false, &syntax.Error{Rule: "parse/unclosed", Pos: t.pos(i, 0), Msg: "the ```yaml header is never closed", Fix: "add a line ``` after it"}
}

// fencedKnowledge is the engine's parser of knowledge pages
// (markdown/frontmatter, spec 7.2.2): a ```yaml block that is the first
// non-blank line, else no metadata. --- front matter is not read here.
func (t *rustText) fencedKnowledge() (*syntax.Node, *syntax.Error) {
	from, to, ok, err := t.fence()
	if err != nil {
		return nil, err
	}
	if !ok {
		return syntax.NewMap(t.pos(0, 0)), nil
	}
	return t.yaml(from, to, "the ```yaml header", true)
}

// toolHeader reads a Python tool's "# ryeos-tool:" header
// (python/tool-header, spec 7.2.2).
func (t *rustText) toolHeader() (*syntax.Node, *syntax.Error) {
	lines := t.lines
	if t.nl {
		lines = append(lines[:len(lines):len(lines)], nil)
	}
	i := 0
	if len(lines) > 0 && bytes.HasPrefix(lines[0], []byte("#!")) {
		i = 1
	}
	for i < len(lines) && blank(lines[i]) {
		i++
	}
	content := func(j int) (int, bool) { // the offset in line j after '#' and one space
		l := lines[j]
		if len(l) == 0 || l[0] != '#' {
			return 0, false
		}
		if len(l) > 1 && l[1] == ' ' {
			return 2, true
		}
		return 1, true
	}
	if i == len(lines) {
		return nil, noToolHeader(t.pos(min(i, len(t.lines)), 0))
	}
	if c, ok := content(i); !ok || string(bytes.TrimFunc(lines[i][c:], unicode.IsSpace)) != "ryeos-tool:" {
		return nil, noToolHeader(t.pos(i, 0))
	}
	var text []byte
	var starts []int
	j := i
	for ; j < len(lines); j++ {
		c, ok := content(j)
		if !ok {
			break
		}
		if j > i && string(bytes.TrimFunc(lines[j][c:], unicode.IsSpace)) == "ryeos-tool:" {
			return nil, &syntax.Error{Rule: "parse/header-shape", Pos: t.pos(j, 0), Msg: "a second ryeos-tool: line in the header"}
		}
		text = append(append(text, lines[j][c:]...), '\n')
		starts = append(starts, t.starts[j]+c)
	}
	v, err := parseMapping(&yamlText{text: text, lineStart: starts, src: t.src, idx: t.idx}, "the # ryeos-tool: header", false)
	if err != nil {
		if err.Rule == "parse/yaml" {
			err.Fix = "every # line right below the header is part of it: separate other comments from it with a blank line"
		}
		return nil, err
	}
	if len(v.Fields) != 1 || v.Fields[0].Key != "ryeos-tool" {
		for _, f := range v.Fields {
			if f.Key != "ryeos-tool" {
				return nil, &syntax.Error{Rule: "parse/header-shape", Pos: f.KeyPos, Field: f.Key, Msg: "the header holds " + strconv.Quote(f.Key) + " beside ryeos-tool: every # line right below the header is part of it",
					Fix: "indent it under ryeos-tool:, or separate the comment from the header with a blank line"}
			}
		}
	}
	meta := v.Fields[0].Value
	if meta.Kind != syntax.MapNode {
		return nil, &syntax.Error{Rule: "parse/header-shape", Pos: meta.Pos, Field: "ryeos-tool", Msg: "ryeos-tool: must hold a mapping of the tool's metadata"}
	}
	return meta, nil
}

func noToolHeader(pos syntax.Pos) *syntax.Error {
	return &syntax.Error{Rule: "parse/no-header", Pos: pos, Msg: "no # ryeos-tool: header: RyeOS 0.2+ reads a Python tool's metadata only from a comment block that starts with # ryeos-tool: (module variables such as __version__ are not read)"}
}

// jsDunder is the javascript/javascript parser's pattern (spec 7.2.2).
var jsDunder = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^const\s+(__\w+__)\s*=\s*"([^"]+)"`) })

// javascript reads a JavaScript tool's const __name__ = "value" lines: a
// flat map keyed by the dunder name.
func (t *rustText) javascript() *syntax.Node {
	var text []byte
	var starts []int // the text offset of each line
	for i, l := range t.lines {
		starts = append(starts, len(text))
		text = append(text, l...)
		if i < len(t.lines)-1 || t.nl {
			text = append(text, '\n')
		}
	}
	at := func(off int) syntax.Pos {
		i := sort.Search(len(starts), func(i int) bool { return starts[i] > off }) - 1
		return t.pos(max(i, 0), off-starts[max(i, 0)])
	}
	out := syntax.NewMap(t.pos(0, 0))
	for _, m := range jsDunder().FindAllSubmatchIndex(text, -1) {
		out.Set(string(text[m[2]:m[3]]), at(m[2]), syntax.NewString(string(text[m[4]:m[5]]), at(m[4])))
	}
	return out
}

// readFront reads a knowledge page's front matter as the knowledge
// runtime does (spec 7.2.3), from the file's own text: after white space,
// an HTML comment (the signature line) and a "# ryeos:signed:" line, a ---
// block or a ```yaml block; otherwise none, and nothing further down is
// metadata. For a YAML page it is the whole (signature-stripped) document.
func (d *RyeOSDoc) readFront(t *rustText) {
	if d.Ext != ".md" {
		d.Front = d.Value
		if d.Refusal != nil {
			d.FrontProblem = &syntax.Error{Rule: "knowledge/yaml", Pos: d.Refusal.Pos, Msg: d.Refusal.Msg}
		}
		return
	}
	s := d.src
	skip := func(off int) int {
		for off < len(s) {
			r, size := utf8.DecodeRune(s[off:])
			if !unicode.IsSpace(r) {
				break
			}
			off += size
		}
		return off
	}
	off := skip(0)
	if bytes.HasPrefix(s[off:], []byte("<!--")) {
		end := bytes.Index(s[off:], []byte("-->"))
		if end < 0 {
			d.FrontBody = ""
			return
		}
		off = skip(off + end + 3)
	}
	if bytes.HasPrefix(s[off:], []byte("# ryeos:signed:")) || bytes.HasPrefix(s[off:], []byte("# ryeos: cas:")) {
		off = skip(lineEnd(s, off))
	}
	var open, closer string
	switch {
	case bytes.HasPrefix(s[off:], []byte("---")):
		open, closer = "---", "\n---"
	case bytes.HasPrefix(s[off:], []byte("```yaml")):
		open, closer = "```yaml", "\n```"
	default:
		d.FrontBody = string(s[off:])
		return
	}
	from := off + len(open)
	for from < len(s) && (s[from] == '\r' || s[from] == '\n') {
		from++
	}
	to, bodyAt := -1, len(s)
	if i := bytes.Index(s[from:], []byte(closer)); i >= 0 {
		to = from + i
		bodyAt = lineEnd(s, to+1)
	} else if bytes.HasSuffix(s[from:], []byte(strings.TrimPrefix(closer, "\n"))) {
		to = len(s) - len(closer) + 1
	}
	d.FrontAt = d.idx.Pos(off)
	if to < 0 {
		d.FrontProblem = &syntax.Error{Rule: "knowledge/unclosed", Pos: d.idx.Pos(off), Msg: "the " + open + " front matter is never closed", Fix: "add a line " + strings.TrimPrefix(closer, "\n") + " after it"}
		return
	}
	fm, err := parseMapping(sliceYAML(s, d.idx, from, to), "the front matter", true)
	if err != nil {
		d.FrontProblem = &syntax.Error{Rule: "knowledge/yaml", Pos: err.Pos, Msg: err.Msg}
		return
	}
	d.Front = fm
	d.FrontBody = strings.TrimLeft(string(s[bodyAt:]), "\r\n")
}

// anchor applies the kind's metadata rules (spec 7.3) in field order; the
// first that fails refuses the item.
func (d *RyeOSDoc) anchor() *syntax.Error {
	stem, dir := d.ID.Name(), d.ID.Dir()
	d.Identity = identity{Name: stem}
	switch d.Kind {
	case Node:
		d.Identity.Section, _, _ = strings.Cut(string(d.ID), "/")
		if !strings.Contains(string(d.ID), "/") {
			d.Identity.Section = ""
		}
		return nil
	case Runtime, View:
		return nil
	}
	rk := ryeosKinds[d.Kind]
	if rk == nil {
		return nil
	}
	for _, r := range rk.rules {
		var v string
		var at *syntax.Node
		present := true
		switch r.from {
		case "filename":
			v = stem
		case "relative_dir":
			v = dir
		default:
			at = d.Value.Get(r.field)
			v, present = scalarString(at)
		}
		if r.required && !present {
			e := &syntax.Error{Rule: "metadata/required", Pos: d.Value.Pos, Field: r.field, Msg: "RyeOS refuses the item without it"}
			switch {
			case r.field == "category":
				e.Fix = "add " + r.field + ": " + strconv.Quote(dir) + " (the folder below " + rk.folder + "/)"
			case r.field == "name":
				e.Fix = "add name: " + strconv.Quote(stem) + " (the file name)"
			}
			if form, _ := ryeosFormOf(d.Kind, d.Ext); form.parser == parseJavaScript {
				e.Msg += ", and RyeOS 0.2+ reads no category from JavaScript tools (its parser yields __category__, which no rule reads): no such tool loads"
				e.Fix = ""
			}
			return e
		}
		switch {
		case r.match == "filename" && present && v != stem:
			return &syntax.Error{Rule: "metadata/match_filename", Pos: at.Pos, Field: r.field, Value: at, Want: stem,
				Msg: strconv.Quote(v) + " is not the file's name " + strconv.Quote(stem) + ": RyeOS refuses the item", Fix: "set it to " + strconv.Quote(stem) + ", or rename the file"}
		case r.match == "path" && present && v != dir:
			return &syntax.Error{Rule: "metadata/match_path", Pos: at.Pos, Field: r.field, Value: at, Want: dir,
				Msg: strconv.Quote(v) + " is not the item's folder " + strconv.Quote(dir) + " (below " + rk.folder + "/): RyeOS refuses the item", Fix: "set it to " + strconv.Quote(dir) + ", or move the file"}
		}
		switch r.field {
		case "name":
			d.Identity.Name = v
		case "category":
			d.Identity.Category = v
		}
	}
	return nil
}

// scalarString is a scalar's value as RyeOS's path rules read it: strings
// as they are, numbers and booleans as text; nothing else is present.
func scalarString(n *syntax.Node) (string, bool) {
	if n == nil {
		return "", false
	}
	switch n.Kind {
	case syntax.StringNode:
		return n.Str, true
	case syntax.IntNode:
		return strconv.FormatInt(n.Int, 10), true
	case syntax.FloatNode:
		return strconv.FormatFloat(n.Float, 'g', -1, 64), true
	case syntax.BoolNode:
		return strconv.FormatBool(n.Bool), true
	}
	return "", false
}

// Metadata is what RyeOS shows of the item: its identity (name and
// category, or a node item's section) over the parser's top-level fields
// (a directive's body left out).
func (d *RyeOSDoc) Metadata() map[string]any {
	out := map[string]any{}
	for _, f := range d.Value.MapFields() {
		if f.Key != "body" || d.Kind != Directive {
			out[f.Key] = f.Value.Plain()
		}
	}
	if d.Refusal != nil {
		return out
	}
	out["name"] = d.Identity.Name
	switch d.Kind {
	case Node:
		out["section"] = d.Identity.Section
		delete(out, "category")
	case Runtime, View, BundleManifest:
	default:
		out["category"] = d.Identity.Category
	}
	return out
}
