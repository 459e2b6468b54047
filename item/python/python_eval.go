package python

// The literal evaluator: turns the tokens of one module-level expression
// into a Node tree when the expression is what Python's ast.literal_eval
// accepts (strings, bytes, numbers, True, False, None, tuples, lists,
// dicts, sets, set(), a unary sign on a number, a real plus or minus an
// imaginary number), plus a bare name that refers to an earlier
// module-level literal. Anything else stops it with a pyFail that says what
// was found and where, which becomes the Assign's Reason.
//
// Python values map to Nodes as follows: str and bytes become StringNodes
// (bytes hold the raw decoded bytes), int an IntNode (a FloatNode when it
// does not fit in int64), float a FloatNode, complex numbers a StringNode
// holding their source text, tuples, lists and sets ListNodes and dicts
// MapNodes whose keys are the strings for str keys and the source text for
// other keys. The Ellipsis constant, which literal_eval accepts, has no
// Node shape and is reported as not a literal.

import (
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/ryekit/rye/item/syntax"
)

// pyType is the Python type of an evaluated value.
type pyType uint8

const (
	pyTNone pyType = iota + 1
	pyTBool
	pyTInt
	pyTFloat
	pyTComplex
	pyTStr
	pyTBytes
	pyTTuple
	pyTList
	pyTDict
	pyTSet
)

// pyForm says how a value was written, for the checks literal_eval makes
// on the operands of unary and binary operators.
type pyForm uint8

const (
	pyOther    pyForm = iota // a container, a sum, a name reference
	pyConstant               // a single number or string (maybe in parentheses)
	pySigned                 // a unary + or - applied to a numeric constant
)

// pyVal is an evaluated value and what the evaluator knows of it.
type pyVal struct {
	n          *syntax.Node
	t          pyType
	form       pyForm
	hashable   bool // may be a dict key or a set element
	height     int  // container nesting: 0 for a scalar
	size       int  // nodes in the tree
	start, end int  // source offsets of the expression as written, parentheses included
}

// pyFail says why an expression is not a literal.
type pyFail struct {
	found string // what was found, e.g. "a call to os.getenv"
	note  string // more about it, e.g. "which is not an earlier module-level literal"
	why   string // a specific explanation replacing the generic one
	off   int    // where
}

func (f *pyFail) message(r *pyReader) string {
	at := r.pos(f.off).String()
	if f.why != "" {
		return "not a literal: " + f.why + " (at " + at + ")"
	}
	msg := "not a literal: the value is not visible without running the file (found " + f.found + " at " + at
	if f.note != "" {
		msg += ", " + f.note
	}
	return msg + ")"
}

// pyEval evaluates one expression, given as its tokens.
type pyEval struct {
	r    *pyReader
	toks []pyToken
	p    int // the next token
	end  int // offset of the end of the expression, for failures there
	fail *pyFail
}

// evaluate evaluates the expression toks; end is where it ends (for an
// empty expression, where it should have been).
func (r *pyReader) evaluate(toks []pyToken, end int) (pyVal, *pyFail) {
	e := &pyEval{r: r, toks: toks, end: end}
	var v pyVal
	if e.constructs(); e.fail == nil {
		v, _ = e.testlist()
	}
	if e.fail == nil && e.p < len(toks) {
		e.unexpected()
	}
	if e.fail != nil {
		return pyVal{}, e.fail
	}
	return v, nil
}

func (e *pyEval) at(s string) bool { return e.p < len(e.toks) && e.r.is(e.toks[e.p], s) }

func (e *pyEval) failFound(off int, found string) {
	if e.fail == nil {
		e.fail = &pyFail{found: found, off: off}
	}
}

func (e *pyEval) failWhy(off int, why string) {
	if e.fail == nil {
		e.fail = &pyFail{why: why, off: off}
	}
}

// unexpected fails on the current token, which no literal can hold.
func (e *pyEval) unexpected() {
	if e.p >= len(e.toks) {
		if len(e.toks) == 0 {
			e.failWhy(e.end, "the assignment has no value")
		} else {
			e.failFound(e.end, "an incomplete expression")
		}
		return
	}
	t := e.toks[e.p]
	e.failFound(t.start, e.describe(t))
}

// describe names a token that cannot be part of a literal.
func (e *pyEval) describe(t pyToken) string {
	text := e.r.text(t)
	switch t.kind {
	case pyString:
		switch {
		case t.flags&pyFormat != 0:
			return "an f-string"
		case t.flags&pyTemplate != 0:
			return "a t-string"
		}
		return "a string"
	case pyNumber:
		return "the number " + text
	case pyName:
		switch text {
		case "lambda":
			return "a lambda"
		case "for", "async":
			return "a comprehension"
		case "if":
			return "a conditional expression (if/else)"
		case "and", "or", "not", "in", "is":
			return "the operator " + text
		case "await":
			return "an await expression"
		case "yield":
			return "a yield expression"
		}
		if pyKeywords[text] {
			return "the keyword " + text
		}
		return "the name " + text
	}
	switch text {
	case "(":
		return "a call"
	case "[":
		return "a subscript"
	case ".":
		return "an attribute access"
	case ":=":
		return "an assignment expression (:=)"
	case "...":
		return "an Ellipsis (...)"
	}
	return "the operator " + text
}

// constructs fails on the first comprehension, lambda, conditional
// expression, assignment expression, yield or await: naming it says more
// than naming the first name inside it, which is where the evaluation
// would stop.
func (e *pyEval) constructs() {
	for _, t := range e.toks {
		switch {
		case t.kind == pyName:
			switch e.r.text(t) {
			case "for", "lambda", "if", "yield", "await":
				e.failFound(t.start, e.describe(t))
				return
			}
		case e.r.is(t, ":="):
			e.failFound(t.start, e.describe(t))
			return
		}
	}
}

// testlist evaluates items separated by commas: a tuple when there is a
// comma (tuple true), else the single item.
func (e *pyEval) testlist() (pyVal, bool) {
	first := e.item()
	if e.fail != nil || !e.at(",") {
		return first, false
	}
	v := e.container(syntax.ListNode, pyTTuple, first.start)
	v.hashable = true
	e.addItem(&v, first)
	for e.at(",") {
		v.end = e.toks[e.p].end
		e.p++
		if e.p >= len(e.toks) || e.at(")") {
			break
		}
		it := e.item()
		if e.fail != nil {
			return pyVal{}, false
		}
		e.addItem(&v, it)
		v.end = it.end
	}
	v.n.End = e.r.pos(v.end)
	return v, true
}

// container starts a container value at offset start.
func (e *pyEval) container(kind syntax.NodeKind, t pyType, start int) pyVal {
	return pyVal{n: e.r.newNode(syntax.Node{Kind: kind, Pos: e.r.pos(start)}), t: t, height: 1, size: 1, start: start}
}

// addItem appends an item to a tuple, list or set.
func (e *pyEval) addItem(v *pyVal, it pyVal) {
	v.n.Items = append(v.n.Items, it.n)
	e.grow(v, it)
}

// grow accounts for a child of a container.
func (e *pyEval) grow(v *pyVal, child pyVal) {
	v.hashable = v.hashable && child.hashable
	v.size += child.size
	if child.height+1 > v.height {
		v.height = child.height + 1
		if v.height > pyMaxNesting {
			e.failWhy(child.start, "the value is nested too deeply")
		}
	}
}

// finish closes a container at the closing bracket t.
func (e *pyEval) finish(v *pyVal, t pyToken) {
	v.end = t.end
	v.n.End = e.r.pos(t.end)
}

// item evaluates one element: a signed number, a real plus or minus an
// imaginary number (the only binary operation literal_eval accepts), or an
// atom.
func (e *pyEval) item() pyVal {
	left := e.unary()
	if e.fail != nil || !(e.at("+") || e.at("-")) {
		return left
	}
	op := e.toks[e.p]
	if left.form == pyOther || left.t != pyTInt && left.t != pyTFloat {
		e.failFound(op.start, e.describe(op))
		return pyVal{}
	}
	e.p++
	right := e.atom()
	if e.fail != nil {
		return pyVal{}
	}
	if right.form != pyConstant || right.t != pyTComplex {
		e.failFound(op.start, e.describe(op))
		return pyVal{}
	}
	text := string(e.r.src[left.start:right.end])
	n := e.r.newNode(syntax.Node{Kind: syntax.StringNode, Str: text, Raw: text, Pos: e.r.pos(left.start), End: e.r.pos(right.end)})
	return pyVal{n: n, t: pyTComplex, hashable: true, size: 1, start: left.start, end: right.end}
}

// unary evaluates an atom, or a unary + or - applied to a numeric constant.
func (e *pyEval) unary() pyVal {
	if !(e.at("-") || e.at("+")) {
		return e.atom()
	}
	op := e.toks[e.p]
	e.p++
	x := e.atom()
	if e.fail != nil {
		return pyVal{}
	}
	if x.form != pyConstant || x.t != pyTInt && x.t != pyTFloat && x.t != pyTComplex {
		e.failFound(op.start, "the unary operator "+e.r.text(op)+" on something that is not a number")
		return pyVal{}
	}
	raw := string(e.r.src[op.start:x.end])
	num, _, _ := pyNumberNode(x.n.Raw, e.r.src[op.start] == '-')
	n := e.r.newNode(num)
	n.Raw, n.Pos, n.End = raw, e.r.pos(op.start), e.r.pos(x.end)
	if n.Kind == syntax.StringNode {
		n.Str = raw
	}
	x.n, x.form, x.start = n, pySigned, op.start
	return x
}

// atom evaluates a string, number, name or bracketed display. Trailers
// (calls, subscripts, attributes) make it not a literal.
func (e *pyEval) atom() pyVal {
	if e.p >= len(e.toks) {
		e.unexpected()
		return pyVal{}
	}
	t := e.toks[e.p]
	var v pyVal
	switch {
	case t.kind == pyString:
		v = e.strings()
	case t.kind == pyNumber:
		v = e.number()
	case t.kind == pyName:
		v = e.name()
	case e.r.is(t, "("):
		v = e.paren()
	case e.r.is(t, "["):
		v = e.list()
	case e.r.is(t, "{"):
		v = e.brace()
	case e.r.is(t, "*"):
		e.failFound(t.start, "a starred expression (*)")
	case e.r.is(t, "**"):
		e.failFound(t.start, "a dict unpacking (**)")
	default:
		e.unexpected()
	}
	if e.fail == nil {
		e.trailer()
	}
	return v
}

// trailer fails on a call, subscript or attribute after an atom.
func (e *pyEval) trailer() {
	switch {
	case e.at("(") || e.at("["):
		e.unexpected()
	case e.at("."):
		t := e.toks[e.p]
		if e.p+1 >= len(e.toks) || e.toks[e.p+1].kind != pyName {
			e.unexpected()
			return
		}
		name := e.r.text(e.toks[e.p+1])
		if e.p+2 < len(e.toks) && e.r.is(e.toks[e.p+2], "(") {
			e.failFound(t.start, "a call to the method ."+name)
		} else {
			e.failFound(t.start, "the attribute ."+name)
		}
	}
}

// strings evaluates adjacent string literals, which Python concatenates.
func (e *pyEval) strings() pyVal {
	first := e.p
	for e.p < len(e.toks) && e.toks[e.p].kind == pyString {
		t := e.toks[e.p]
		if t.flags&(pyFormat|pyTemplate) != 0 {
			e.failFound(t.start, e.describe(t))
			return pyVal{}
		}
		if t.flags&pyBytes != e.toks[first].flags&pyBytes {
			e.failWhy(t.start, "bytes and str literals cannot be concatenated")
			return pyVal{}
		}
		e.p++
	}
	parts := e.toks[first:e.p]
	start, end := parts[0].start, parts[len(parts)-1].end
	raw := string(e.r.src[start:end])
	str, ok := e.decodeStrings(raw, start, parts)
	if !ok {
		return pyVal{}
	}
	typ := pyTStr
	if parts[0].flags&pyBytes != 0 {
		typ = pyTBytes
	}
	n := e.r.newNode(syntax.Node{Kind: syntax.StringNode, Str: str, Raw: raw, Pos: e.r.pos(start), End: e.r.pos(end)})
	return pyVal{n: n, t: typ, form: pyConstant, hashable: true, size: 1, start: start, end: end}
}

// decodeStrings decodes adjacent literals, whose source text raw starts at
// offset start, and joins them. The value of a single literal without
// escapes stays a substring of raw.
func (e *pyEval) decodeStrings(raw string, start int, parts []pyToken) (string, bool) {
	var first string
	var b strings.Builder
	for i, t := range parts {
		s, why := e.r.decodeString(raw[t.start-start:t.end-start], t.flags)
		if why != "" {
			e.failWhy(t.start, why)
			return "", false
		}
		switch i {
		case 0:
			first = s
		case 1:
			b.WriteString(first)
			fallthrough
		default:
			b.WriteString(s)
		}
	}
	if len(parts) == 1 {
		return first, true
	}
	return b.String(), true
}

// number evaluates a numeric literal.
func (e *pyEval) number() pyVal {
	t := e.toks[e.p]
	e.p++
	text := e.r.text(t)
	num, typ, ok := pyNumberNode(text, false)
	if !ok {
		e.failWhy(t.start, "the number "+text+" is not valid Python")
		return pyVal{}
	}
	n := e.r.newNode(num)
	n.Raw, n.Pos, n.End = text, e.r.pos(t.start), e.r.pos(t.end)
	return pyVal{n: n, t: typ, form: pyConstant, hashable: true, size: 1, start: t.start, end: t.end}
}

// scalar makes a value of one name token (True, False, None).
func (e *pyEval) scalar(t pyToken, node syntax.Node, typ pyType) pyVal {
	e.p++
	n := e.r.newNode(node)
	n.Raw, n.Pos, n.End = e.r.text(t), e.r.pos(t.start), e.r.pos(t.end)
	return pyVal{n: n, t: typ, form: pyConstant, hashable: true, size: 1, start: t.start, end: t.end}
}

// name evaluates True, False, None, set() or a reference to an earlier
// module-level literal.
func (e *pyEval) name() pyVal {
	t := e.toks[e.p]
	word := e.r.text(t)
	switch word {
	case "True", "False":
		return e.scalar(t, syntax.Node{Kind: syntax.BoolNode, Bool: word == "True"}, pyTBool)
	case "None":
		return e.scalar(t, syntax.Node{Kind: syntax.NullNode}, pyTNone)
	case "set":
		// literal_eval accepts set() for the empty set (Python 3.9+).
		if e.p+2 < len(e.toks) && e.r.is(e.toks[e.p+1], "(") && e.r.is(e.toks[e.p+2], ")") {
			v := e.container(syntax.ListNode, pyTSet, t.start)
			e.p += 3
			e.finish(&v, e.toks[e.p-1])
			return v
		}
	}
	if pyKeywords[word] {
		e.unexpected()
		return pyVal{}
	}
	if found := e.trailers(); found != "" {
		e.failFound(t.start, found)
		return pyVal{}
	}
	e.p++
	return e.reference(t, word)
}

// trailers describes the dotted name, call or subscript that starts at the
// current name token, "" when the name stands alone.
func (e *pyEval) trailers() string {
	path := e.r.text(e.toks[e.p])
	j := e.p + 1
	for j+1 < len(e.toks) && e.r.is(e.toks[j], ".") && e.toks[j+1].kind == pyName {
		path += "." + e.r.text(e.toks[j+1])
		j += 2
	}
	switch {
	case j < len(e.toks) && e.r.is(e.toks[j], "("):
		return "a call to " + path
	case j < len(e.toks) && e.r.is(e.toks[j], "["):
		return "a subscript of " + path
	case j > e.p+1:
		return "the attribute " + path
	}
	return ""
}

// reference evaluates a bare name: a copy of the value of an earlier
// module-level literal. The copy keeps the positions of the definition.
func (e *pyEval) reference(t pyToken, name string) pyVal {
	i, ok := e.r.bound[name]
	if !ok || e.r.mod.Assigns[i].Value == nil {
		note := "which is not an earlier module-level literal"
		if ok {
			note = "which is bound at " + e.r.mod.Assigns[i].NamePos.String() + " to something that is not a literal"
		}
		if e.fail == nil {
			e.fail = &pyFail{found: "the name " + name, note: note, off: t.start}
		}
		return pyVal{}
	}
	a := &e.r.mod.Assigns[i]
	v := e.r.meta[i]
	if v.size > e.r.budget {
		e.failWhy(t.start, "the value is too large: names of earlier values copy more than "+
			strconv.Itoa(pyMaxCopiedNodes)+" nodes")
		return pyVal{}
	}
	e.r.budget -= v.size
	v.n = pyCopyNode(a.Value)
	v.form, v.start, v.end = pyOther, t.start, t.end
	return v
}

// newNode allocates a node. Nodes are allocated in blocks: a tool file
// has tens of them, and one allocation each would dominate reading time.
func (r *pyReader) newNode(n syntax.Node) *syntax.Node {
	if len(r.slab) == 0 {
		r.slab = make([]syntax.Node, 32)
	}
	p := &r.slab[0]
	*p = n
	r.slab = r.slab[1:]
	return p
}

// pyCopyNode returns a deep copy of n. Its depth is bounded by pyMaxNesting.
func pyCopyNode(n *syntax.Node) *syntax.Node {
	c := *n
	if n.Items != nil {
		c.Items = make([]*syntax.Node, len(n.Items))
		for i, it := range n.Items {
			c.Items[i] = pyCopyNode(it)
		}
	}
	if n.Fields != nil {
		c.Fields = make([]*syntax.Field, len(n.Fields))
		for i, f := range n.Fields {
			c.Fields[i] = &syntax.Field{Key: f.Key, KeyPos: f.KeyPos, Value: pyCopyNode(f.Value)}
		}
	}
	return &c
}

// paren evaluates a parenthesised expression or a tuple.
func (e *pyEval) paren() pyVal {
	open := e.toks[e.p]
	e.p++
	if e.at(")") {
		v := e.container(syntax.ListNode, pyTTuple, open.start)
		v.hashable = true
		e.p++
		e.finish(&v, e.toks[e.p-1])
		return v
	}
	v, tuple := e.testlist()
	if e.fail != nil {
		return pyVal{}
	}
	if !e.at(")") {
		e.unexpected()
		return pyVal{}
	}
	e.p++
	if tuple {
		v.n.Pos = e.r.pos(open.start)
		e.finish(&v, e.toks[e.p-1])
	}
	v.start, v.end = open.start, e.toks[e.p-1].end
	return v
}

// list evaluates a list display.
func (e *pyEval) list() pyVal {
	v := e.container(syntax.ListNode, pyTList, e.toks[e.p].start)
	e.p++
	for !e.at("]") {
		it := e.item()
		if e.fail != nil {
			return pyVal{}
		}
		e.addItem(&v, it)
		if !e.at(",") {
			break
		}
		e.p++
	}
	if !e.at("]") {
		e.unexpected()
		return pyVal{}
	}
	e.p++
	e.finish(&v, e.toks[e.p-1])
	return v
}

// brace evaluates a dict or set display.
func (e *pyEval) brace() pyVal {
	open := e.toks[e.p]
	e.p++
	if e.at("}") {
		v := e.container(syntax.MapNode, pyTDict, open.start)
		e.p++
		e.finish(&v, e.toks[e.p-1])
		return v
	}
	if e.at("**") {
		e.failFound(e.toks[e.p].start, "a dict unpacking (**)")
		return pyVal{}
	}
	first := e.item()
	if e.fail != nil {
		return pyVal{}
	}
	if e.at(":") {
		return e.dict(open, first)
	}
	return e.set(open, first)
}

// dict evaluates the rest of a dict display whose first key is key.
func (e *pyEval) dict(open pyToken, key pyVal) pyVal {
	v := e.container(syntax.MapNode, pyTDict, open.start)
	for {
		if !key.hashable {
			e.failWhy(key.start, "a dict key must be hashable, and "+pyTypeName(key.t)+" is not")
			return pyVal{}
		}
		if !e.at(":") {
			e.unexpected()
			return pyVal{}
		}
		e.p++
		val := e.item()
		if e.fail != nil {
			return pyVal{}
		}
		v.n.Fields = append(v.n.Fields, &syntax.Field{Key: e.keyText(key), KeyPos: key.n.Pos, Value: val.n})
		e.grow(&v, val)
		if !e.at(",") {
			break
		}
		e.p++
		if e.at("}") {
			break
		}
		if e.at("**") {
			e.failFound(e.toks[e.p].start, "a dict unpacking (**)")
			return pyVal{}
		}
		if key = e.item(); e.fail != nil {
			return pyVal{}
		}
	}
	if !e.at("}") {
		e.unexpected()
		return pyVal{}
	}
	e.p++
	e.finish(&v, e.toks[e.p-1])
	return v
}

// keyText is the map key for a dict key: the string itself for a str,
// else its source text (the text of the definition for a name reference).
// It also tells set elements apart (so 1 and 1.0, equal in Python, stay
// two elements).
func (e *pyEval) keyText(key pyVal) string {
	if key.t == pyTStr {
		return key.n.Str
	}
	return string(e.r.src[key.n.Pos.Offset:key.n.End.Offset])
}

// set evaluates the rest of a set display whose first element is first.
func (e *pyEval) set(open pyToken, first pyVal) pyVal {
	v := e.container(syntax.ListNode, pyTSet, open.start)
	seen := map[string]bool{} // a set holds each element once: keep the first
	it := first
	for {
		if !it.hashable {
			e.failWhy(it.start, "a set element must be hashable, and "+pyTypeName(it.t)+" is not")
			return pyVal{}
		}
		if key := string(rune(it.t)) + e.keyText(it); !seen[key] {
			seen[key] = true
			e.addItem(&v, it)
		}
		if !e.at(",") {
			break
		}
		e.p++
		if e.at("}") {
			break
		}
		if it = e.item(); e.fail != nil {
			return pyVal{}
		}
	}
	if !e.at("}") {
		e.unexpected()
		return pyVal{}
	}
	e.p++
	e.finish(&v, e.toks[e.p-1])
	return v
}

func pyTypeName(t pyType) string {
	switch t {
	case pyTList:
		return "a list"
	case pyTDict:
		return "a dict"
	case pyTSet:
		return "a set"
	}
	return "a tuple holding a list, dict or set"
}

// pyNumberNode parses a Python numeric literal (negated when neg): an
// IntNode, a FloatNode (also for integers beyond int64) or, for imaginary
// numbers, a StringNode holding the text. ok is false for text that is
// not a valid Python number (misplaced underscores, leading zeros).
func pyNumberNode(text string, neg bool) (n syntax.Node, t pyType, ok bool) {
	digits, ok := pyDigits(text)
	if !ok {
		return syntax.Node{}, 0, false
	}
	lower := strings.ToLower(digits)
	base := 10
	if len(lower) > 1 && lower[0] == '0' {
		switch lower[1] {
		case 'x':
			base = 16
		case 'o':
			base = 8
		case 'b':
			base = 2
		}
	}
	switch {
	case strings.HasSuffix(lower, "j") && base == 10:
		if _, err := strconv.ParseFloat(lower[:len(lower)-1], 64); err != nil && !pyIsRangeErr(err) {
			return syntax.Node{}, 0, false
		}
		return syntax.Node{Kind: syntax.StringNode, Str: text}, pyTComplex, true
	case base == 10 && strings.ContainsAny(lower, ".e"):
		f, err := strconv.ParseFloat(lower, 64)
		if err != nil && !pyIsRangeErr(err) {
			return syntax.Node{}, 0, false
		}
		if neg {
			f = -f
		}
		return syntax.Node{Kind: syntax.FloatNode, Float: f}, pyTFloat, true
	case base != 10:
		lower = lower[2:]
	case len(lower) > 1 && strings.Trim(lower, "0") != "":
		if lower[0] == '0' {
			return syntax.Node{}, 0, false // leading zeros are not allowed in Python 3
		}
	}
	return pyIntNode(lower, base, neg)
}

// pyIntNode converts the digits of an integer literal.
func pyIntNode(digits string, base int, neg bool) (syntax.Node, pyType, bool) {
	u, err := strconv.ParseUint(digits, base, 64)
	switch {
	case err == nil && !neg && u <= math.MaxInt64:
		return syntax.Node{Kind: syntax.IntNode, Int: int64(u)}, pyTInt, true
	case err == nil && neg && u <= 1<<63:
		return syntax.Node{Kind: syntax.IntNode, Int: int64(-u)}, pyTInt, true
	case err != nil && !pyIsRangeErr(err):
		return syntax.Node{}, 0, false
	}
	b, ok := new(big.Int).SetString(digits, base)
	if !ok {
		return syntax.Node{}, 0, false
	}
	f, _ := new(big.Float).SetInt(b).Float64()
	if neg {
		f = -f
	}
	return syntax.Node{Kind: syntax.FloatNode, Float: f}, pyTInt, true
}

func pyIsRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// pyDigits removes the underscores of a numeric literal after checking
// that each one sits between two digits (or after a base prefix), as
// Python requires.
func pyDigits(text string) (string, bool) {
	if strings.IndexByte(text, '_') < 0 {
		return text, true
	}
	digit, prefix := pyIsDigit, 0
	if len(text) > 1 && text[0] == '0' && strings.IndexByte("xXoObB", text[1]) >= 0 {
		prefix = 2
		if text[1]|0x20 == 'x' {
			digit = pyIsHexDigit
		}
	}
	b := make([]byte, 0, len(text))
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c != '_' {
			b = append(b, c)
			continue
		}
		if i+1 >= len(text) || !digit(text[i+1]) || i != prefix && (i == 0 || !digit(text[i-1])) {
			return "", false
		}
	}
	return string(b), true
}
