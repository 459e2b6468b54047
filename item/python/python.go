package python

// Reading the metadata of a Python tool without running it (spec 1.5).
//
// Read tokenizes the whole file (python_tokens.go), keeps the logical
// lines that start at column 0, splits them into statements at ";" and looks
// at each statement:
//
//   - NAME = expr and NAME: annotation = expr record a Assign whose value
//     is evaluated by a literal evaluator (python_eval.go) that accepts what
//     ast.literal_eval accepts, plus bare names of earlier module-level
//     literals;
//   - any other statement that binds or changes a name at module level
//     (chained or unpacking assignments, augmented assignments, assignments
//     to an item or attribute, del, def, class, import, type) records a
//     Assign without a value, so that a later Lookup does not return an
//     earlier value that running the file would have replaced;
//   - the first statement gives the docstring when it is a string.
//
// Statements in blocks (the body of an if, try, def or class, even on the
// same line as its header) are not module level and are not looked at.
// Names bound by for and with statements and by star imports are not
// tracked either; neither are changes made by method calls
// (CONFIG.update(...)): spotting those would need running the file.

import (
	"strings"

	"github.com/ryekit/rye/item/syntax"
)

// module is what Read finds at module level.
type module struct {
	Docstring *syntax.Node // the module docstring (a StringNode), nil when there is none
	Assigns   []assign     // every module-level assignment to a single plain name, in source order (and every other module-level binding of a name, without a value)
}

// assign is one module-level `NAME = expr` (or `NAME: annotation = expr`),
// or another statement that binds or changes NAME (then Value is nil).
type assign struct {
	Name    string
	NamePos syntax.Pos
	Value   *syntax.Node // the evaluated literal, nil when the expression is not a literal
	ExprPos syntax.Pos   // where the expression (or the binding statement) starts
	Reason  string       // when Value is nil: why, and what was found
}

// Read scans Python source (bytes of the whole file, possibly starting
// with a UTF-8 BOM, a #! line, a signature comment line, possibly CRLF,
// possibly not UTF-8 when a coding cookie says so) without running it.
// It returns an *Error (with Pos) only when the file cannot be tokenized
// (unterminated string or triple-quoted string, unbalanced brackets,
// inconsistent dedent, invalid character outside strings/comments); it
// never panics on any input.
func Read(src []byte) (*module, error) {
	r := &pyReader{
		src:    src,
		lines:  syntax.NewLineIndex(src),
		mod:    &module{Assigns: make([]assign, 0, 16)},
		bound:  map[string]int{},
		meta:   make([]pyVal, 0, 16),
		budget: pyMaxCopiedNodes,
		line:   make([]pyToken, 0, 128),
	}
	if err := r.read(); err != nil {
		return nil, err
	}
	return r.mod, nil
}

// Lookup returns the last assignment to name (Python semantics: a later
// binding wins), or nil.
func (m *module) Lookup(name string) *assign {
	if m == nil {
		return nil
	}
	for i := len(m.Assigns) - 1; i >= 0; i-- {
		if m.Assigns[i].Name == name {
			return &m.Assigns[i]
		}
	}
	return nil
}

// pyMaxCopiedNodes bounds the nodes copied by name references in one file:
// `b = [a, a]; c = [b, b]; ...` doubles at each line. Tool metadata is a
// few hundred nodes.
const pyMaxCopiedNodes = 1 << 16

// pyReader reads the module-level statements of one file.
type pyReader struct {
	src    []byte
	lines  *syntax.LineIndex
	enc    string // the source encoding, from the coding cookie
	mod    *module
	bound  map[string]int // name -> index of its last binding in mod.Assigns
	meta   []pyVal        // what the evaluator knows of each mod.Assigns value
	budget int            // nodes that name references may still copy
	line   []pyToken      // the tokens of the current logical line (reused)
	slab   []syntax.Node  // nodes allocated ahead (see newNode)
}

func (r *pyReader) read() *syntax.Error {
	start := 0
	if len(r.src) >= 3 && r.src[0] == 0xEF && r.src[1] == 0xBB && r.src[2] == 0xBF {
		start = 3 // the BOM says UTF-8; positions still count its bytes
	}
	r.enc = pyEncoding(r.src[start:])
	sc := newPyScanner(r.src, start, r.lines)
	first := true
	for {
		tok, err := sc.next()
		if err != nil {
			return err
		}
		if tok.kind == pyEOF {
			return nil
		}
		module := sc.level() == 0
		r.line = r.line[:0]
		for tok.kind != pyNewline {
			if module {
				r.line = append(r.line, tok)
			}
			if tok, err = sc.next(); err != nil {
				return err
			}
		}
		if module {
			r.logicalLine(r.line, first)
		}
		first = false
	}
}

// text returns the source text of a token.
func (r *pyReader) text(t pyToken) string { return string(r.src[t.start:t.end]) }

// is reports whether t is the name or operator s. The conversion does not
// allocate.
func (r *pyReader) is(t pyToken, s string) bool {
	return (t.kind == pyOp || t.kind == pyName) && string(r.src[t.start:t.end]) == s
}

func (r *pyReader) pos(off int) syntax.Pos { return r.lines.Pos(off) }

// logicalLine handles one logical line at module level.
func (r *pyReader) logicalLine(toks []pyToken, first bool) {
	if len(toks) == 0 {
		return
	}
	if r.compound(toks) {
		return
	}
	depth, from := 0, 0
	for i, t := range toks {
		if t.kind != pyOp {
			continue
		}
		switch r.src[t.start] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case ';':
			if depth == 0 {
				r.statement(toks[from:i], first && from == 0)
				from = i + 1
			}
		}
	}
	r.statement(toks[from:], first && from == 0)
}

// compound handles a line that starts a compound statement (or a
// decorator): it reports whether it did. Such a line may hold its body
// after the colon, which is not module level; only def and class bind a
// name here.
func (r *pyReader) compound(toks []pyToken) bool {
	t := toks[0]
	if r.is(t, "@") {
		return true
	}
	if t.kind != pyName {
		return false
	}
	switch r.text(t) {
	case "def", "class":
		r.bindName(toks, 1, t.start, "not a literal: bound by a "+r.text(t)+" statement")
	case "async":
		if len(toks) > 1 && r.is(toks[1], "def") {
			r.bindName(toks, 2, t.start, "not a literal: bound by a def statement")
		}
	case "if", "elif", "else", "while", "for", "try", "except", "finally", "with":
	default:
		return false
	}
	return true
}

// bindName records toks[i], when it is a name, as bound to something that
// is not a literal.
func (r *pyReader) bindName(toks []pyToken, i, stmt int, reason string) {
	if i < len(toks) && toks[i].kind == pyName {
		r.bind(toks[i], stmt, reason)
	}
}

// bind records a binding of the name t without a value.
func (r *pyReader) bind(t pyToken, exprOff int, reason string) {
	r.record(assign{
		Name:    r.text(t),
		NamePos: r.pos(t.start),
		ExprPos: r.pos(exprOff),
		Reason:  reason,
	}, pyVal{})
}

func (r *pyReader) record(a assign, v pyVal) {
	r.bound[a.Name] = len(r.mod.Assigns)
	r.mod.Assigns = append(r.mod.Assigns, a)
	r.meta = append(r.meta, v)
}

// statement handles one simple statement at module level. doc tells
// whether it is the first statement of the file.
func (r *pyReader) statement(toks []pyToken, doc bool) {
	if len(toks) == 0 {
		return
	}
	if t := toks[0]; t.kind == pyName {
		switch r.text(t) {
		case "import", "from":
			r.imports(toks)
			return
		case "del":
			r.targets(toks[1:], t.start, "not a literal: deleted by a del statement",
				"not a literal: changed in place by a del statement")
			return
		case "type":
			// type X = ... and type X[T] = ... (Python 3.12); "type = 1" and
			// "type(x)" are not type statements.
			if len(toks) > 2 && toks[1].kind == pyName && (r.is(toks[2], "=") || r.is(toks[2], "[")) {
				r.bind(toks[1], t.start, "not a literal: bound by a type statement")
				return
			}
		}
	}
	r.assignment(toks, doc)
}

// imports records the names bound by an import or from-import statement.
func (r *pyReader) imports(toks []pyToken) {
	const reason = "not a literal: bound by an import statement"
	i := 1
	if r.is(toks[0], "from") {
		for i < len(toks) && !r.is(toks[i], "import") {
			i++
		}
		i++
	}
	for i < len(toks) {
		t := toks[i]
		if t.kind != pyName {
			i++ // "(", ")", ",", "*"
			continue
		}
		// NAME(.NAME)* [as NAME]: "import a.b" binds a.
		name := t
		j := i + 1
		for j+1 < len(toks) && r.is(toks[j], ".") {
			j += 2
		}
		if j+1 < len(toks) && r.is(toks[j], "as") && toks[j+1].kind == pyName {
			name = toks[j+1]
			j += 2
		}
		r.bind(name, toks[0].start, reason)
		i = j
	}
}

// assignment handles an assignment statement, or an expression statement,
// which may be the docstring.
func (r *pyReader) assignment(toks []pyToken, doc bool) {
	eqs := r.assignOps(toks)
	if len(eqs) == 0 {
		if k := r.augmentedOp(toks); k > 0 {
			how := "an augmented assignment (" + r.text(toks[k]) + ")"
			r.targets(toks[:k], pyExprStart(toks, k+1), "not a literal: bound by "+how,
				"not a literal: changed in place by "+how)
		} else if doc {
			r.docstring(toks)
		}
		return
	}
	value := toks[eqs[len(eqs)-1]+1:]
	exprOff := pyExprStart(toks, eqs[len(eqs)-1]+1)
	if len(eqs) > 1 {
		from := 0
		for _, eq := range eqs {
			r.targets(toks[from:eq], exprOff, "not a literal: bound by a chained assignment (a = b = ...)",
				"not a literal: changed in place by a chained assignment (a[0] = b = ...)")
			from = eq + 1
		}
		return
	}
	target := toks[:eqs[0]]
	if name, ok := r.plainTarget(target); ok {
		r.assign(name, value, exprOff)
		return
	}
	r.targets(target, exprOff, "not a literal: bound by an unpacking assignment (a, b = ...)",
		"not a literal: changed in place by an assignment to one of its items or attributes")
}

// pyExprStart returns the offset where the expression starting at toks[i]
// begins (the end of the statement when it is empty).
func pyExprStart(toks []pyToken, i int) int {
	if i < len(toks) {
		return toks[i].start
	}
	return toks[len(toks)-1].end
}

// assignOps returns the indexes of the "=" tokens that separate the
// targets of an assignment: outside brackets and outside the parameters of
// a lambda ("f = lambda x=1: x").
func (r *pyReader) assignOps(toks []pyToken) []int {
	var eqs []int
	depth, lambdas := 0, 0
	for i, t := range toks {
		switch {
		case t.kind == pyName:
			if depth == 0 && r.is(t, "lambda") {
				lambdas++
			}
		case t.kind != pyOp:
		case r.is(t, "="):
			if depth == 0 && lambdas == 0 {
				eqs = append(eqs, i)
			}
		case r.is(t, ":"):
			if depth == 0 && lambdas > 0 {
				lambdas--
			}
		default:
			switch r.src[t.start] {
			case '(', '[', '{':
				depth++
			case ')', ']', '}':
				depth--
			}
		}
	}
	return eqs
}

// augmentedOp returns the index of the augmented assignment operator of
// the statement (x += 1), 0 when there is none.
func (r *pyReader) augmentedOp(toks []pyToken) int {
	depth := 0
	for i, t := range toks {
		if t.kind != pyOp {
			continue
		}
		switch r.text(t) {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			depth--
		case "+=", "-=", "*=", "/=", "//=", "%=", "@=", "&=", "|=", "^=", ">>=", "<<=", "**=":
			if depth == 0 {
				return i
			}
		}
	}
	return 0
}

// plainTarget returns the name of a single-name target: NAME, NAME:
// annotation, or a parenthesised NAME.
func (r *pyReader) plainTarget(t []pyToken) (pyToken, bool) {
	for i, tok := range t {
		if r.is(tok, ":") && i > 0 && (t[i-1].kind == pyName || r.is(t[i-1], ")")) {
			t = t[:i] // the annotation
			break
		}
	}
	for len(t) >= 3 && r.is(t[0], "(") && r.is(t[len(t)-1], ")") {
		t = t[1 : len(t)-1]
	}
	if len(t) == 1 && t[0].kind == pyName && !pyKeywords[r.text(t[0])] {
		return t[0], true
	}
	return pyToken{}, false
}

// targets records the names bound (bound) or changed in place (changed:
// x[0] = ..., x.a = ...) by a target list, stopping at an annotation.
func (r *pyReader) targets(t []pyToken, exprOff int, bound, changed string) {
	for i := 0; i < len(t); i++ {
		tok := t[i]
		if r.is(tok, ":") {
			return
		}
		if tok.kind != pyName || pyKeywords[r.text(tok)] {
			continue
		}
		end := r.skipTrailers(t, i+1)
		if end == i+1 {
			r.bind(tok, exprOff, bound)
		} else {
			r.bind(tok, exprOff, changed)
		}
		i = end - 1
	}
}

// skipTrailers returns the index past the attributes, subscripts and calls
// that follow a name from t[i] on.
func (r *pyReader) skipTrailers(t []pyToken, i int) int {
	for i < len(t) {
		switch {
		case r.is(t[i], "."):
			i += 2
		case r.is(t[i], "["), r.is(t[i], "("):
			i = pySkipGroup(r.src, t, i)
		default:
			return i
		}
	}
	return len(t)
}

// pySkipGroup returns the index past the bracket that closes t[i].
func pySkipGroup(src []byte, t []pyToken, i int) int {
	depth := 0
	for ; i < len(t); i++ {
		if t[i].kind != pyOp {
			continue
		}
		switch src[t[i].start] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return len(t)
}

// docstring sets the module docstring when the first statement is a
// string literal (possibly implicitly concatenated or parenthesised).
func (r *pyReader) docstring(toks []pyToken) {
	if toks[0].kind != pyString && !r.is(toks[0], "(") {
		return
	}
	v, fail := r.evaluate(toks, toks[len(toks)-1].end)
	if fail == nil && v.t == pyTStr {
		r.mod.Docstring = v.n
	}
}

// assign records NAME = value.
func (r *pyReader) assign(name pyToken, value []pyToken, exprOff int) {
	a := assign{Name: r.text(name), NamePos: r.pos(name.start), ExprPos: r.pos(exprOff)}
	end := exprOff
	if len(value) > 0 {
		end = value[len(value)-1].end
	}
	v, fail := r.evaluate(value, end)
	if fail != nil {
		a.Reason = fail.message(r)
		v = pyVal{}
	}
	a.Value = v.n
	r.record(a, v)
}

// pyKeywords are Python's hard keywords (soft keywords such as match, case,
// type and _ are names too).
var pyKeywords = func() map[string]bool {
	m := map[string]bool{}
	for _, k := range strings.Fields(`False None True and as assert async await break class
		continue def del elif else except finally for from global if import in is lambda
		nonlocal not or pass raise return try while with yield`) {
		m[k] = true
	}
	return m
}()
