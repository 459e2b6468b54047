package lint

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/ryekit/rye/internal/jsonschema"
	"github.com/ryekit/rye/internal/paramschema"
	"github.com/ryekit/rye/item/syntax"
)

// schemaProblem is a problem found in a tool's parameter schema.
type schemaProblem struct {
	Node *syntax.Node // the value the problem is about (its Pos/End locate it); never nil
	Msg  string       // what is wrong and what is expected, one line, no trailing period
}

// checkParamSchema checks a tool's parameter schema (the config_schema
// node; nil means none and gives no problems):
//  1. it is a valid JSON Schema (meta-validation against draft 2020-12, the default when
//     "$schema" is absent; honour "$schema" when it names draft-07, 2019-09 or 2020-12;
//     an unknown "$schema" is a problem);
//  2. when the schema compiles, every "default" validates against the schema of the property
//     it sits in (at any depth: properties of properties, items, etc.; at least top-level
//     properties and nested "properties" objects); the defaults of a schema that does not
//     compile are not judged;
//  3. every name listed in a "required" array is a property declared for the same value: in
//     the sibling "properties" or in those of the $ref targets and allOf/anyOf/oneOf/if/then/
//     else/not/dependentSchemas branches that apply with it (paramschema.Declare, which also
//     gives rye execute its parameters); a "required" without "properties" is a problem too;
//  4. the top level must be an object schema: "type": "object" (or no type) — a tool's
//     parameters are named; a schema whose top-level type is something else is a problem.
//
// Problems are returned in source order (by Node.Pos.Offset), each at the most precise node:
// for a meta-validation error, the node at the error's instance location inside the schema
// (walk the Node tree along the JSON pointer); for a bad default, the default's node; for an
// unknown required name, the string node in the required list.
func checkParamSchema(schema *syntax.Node) []schemaProblem {
	if schema.IsNull() {
		return nil
	}
	c := &schemaChecker{root: schema, res: paramschema.NewResolver(schema)}
	c.check()
	sort.SliceStable(c.problems, func(i, j int) bool {
		return c.problems[i].Node.Pos.Offset < c.problems[j].Node.Pos.Offset
	})
	if n := len(c.problems); n > maxSchemaProblems {
		c.problems = c.problems[:maxSchemaProblems]
		c.problems = append(c.problems, schemaProblem{
			Node: c.problems[maxSchemaProblems-1].Node,
			Msg:  fmt.Sprintf("%d more problems in this parameter schema are not shown", n-maxSchemaProblems),
		})
	}
	return c.problems
}

// maxSchemaProblems bounds what one schema reports.
const maxSchemaProblems = 100

type schemaChecker struct {
	root     *syntax.Node
	res      *paramschema.Resolver
	problems []schemaProblem
	seen     map[schemaProblem]bool
}

func (c *schemaChecker) add(n *syntax.Node, msg string) {
	if n == nil {
		n = c.root
	}
	p := schemaProblem{Node: n, Msg: scOneLine(msg)}
	if c.seen == nil {
		c.seen = map[schemaProblem]bool{}
	}
	if c.seen[p] {
		return
	}
	c.seen[p] = true
	c.problems = append(c.problems, p)
}

func (c *schemaChecker) check() {
	root := c.root
	if root.Kind != syntax.MapNode {
		c.add(root, `a parameter schema must be an object ({"type": "object", "properties": ...}), found `+scDescribeNode(root))
		return
	}
	// The validator cannot represent infinities and NaN (JSON has none), it
	// slows down on deep nesting and on huge schemas (Doc refuses these),
	// and an unsupported "$schema" decides nothing about the rest: in these
	// cases stop before compiling.
	doc, refused := paramschema.Doc(root)
	for _, p := range refused {
		c.add(p.Node, scLocationPrefix(p.Ptr)+p.Text())
	}
	c.checkTopLevel()
	c.checkRequired()
	if len(refused) > 0 || !c.checkSchemaURI() {
		return
	}
	comp := paramschema.Compile(doc)
	if comp.Err != nil { // the defaults cannot be judged
		var pe *paramschema.PanicError
		if errors.As(comp.Err, &pe) {
			c.add(root, "the schema could not be checked: "+pe.Error())
			return
		}
		for _, p := range scCompileProblems(comp.Err, doc) {
			c.add(c.nodeAt(p.ptr), p.msg)
		}
		return
	}
	c.checkDefaults(comp)
}

// scValue is a node's plain value, for showing.
func scValue(n *syntax.Node) any {
	v, _ := paramschema.Doc(n)
	return v
}

// --- 4. the top level ---

func (c *schemaChecker) checkTopLevel() {
	t := c.root.Get("type")
	if t == nil {
		return
	}
	switch t.Kind {
	case syntax.StringNode:
		if t.Str == "object" || !scIsTypeName(t.Str) { // a bad name is a meta-validation problem
			return
		}
	case syntax.ListNode:
		if len(t.Items) == 0 {
			return // meta-validation reports it
		}
		ok := true
		for _, it := range t.Items {
			if it == nil || it.Kind != syntax.StringNode || !scIsTypeName(it.Str) {
				return // meta-validation reports it
			}
			ok = ok && it.Str == "object"
		}
		if ok {
			return
		}
	default:
		return // meta-validation reports it
	}
	c.add(t, `the top level of a parameter schema must be "type": "object", found `+paramschema.Compact(scValue(t)))
}

func scIsTypeName(s string) bool {
	switch s {
	case "array", "boolean", "integer", "null", "number", "object", "string":
		return true
	}
	return false
}

// --- 1. "$schema" ---

var schemaDrafts = []struct {
	uri string // as shown in messages
	key string // without scheme and trailing '#'
}{
	{"https://json-schema.org/draft/2020-12/schema", "json-schema.org/draft/2020-12/schema"},
	{"https://json-schema.org/draft/2019-09/schema", "json-schema.org/draft/2019-09/schema"},
	{"http://json-schema.org/draft-07/schema#", "json-schema.org/draft-07/schema"},
}

// checkSchemaURI reports a top-level "$schema" that names no supported
// draft, and says whether the schema can be compiled.
func (c *schemaChecker) checkSchemaURI() bool {
	s := c.root.Get("$schema")
	if s == nil || s.Kind != syntax.StringNode {
		return true // absent: draft 2020-12; not a string: meta-validation says so
	}
	u := strings.TrimSuffix(s.Str, "#")
	if rest, ok := strings.CutPrefix(u, "https://"); ok {
		u = rest
	} else {
		u = strings.TrimPrefix(u, "http://")
	}
	for _, d := range schemaDrafts {
		if u == d.key {
			return true
		}
	}
	c.add(s, `"$schema": found `+paramschema.Quote(s.Str)+", expected one of "+scDraftList())
	return false
}

// scDraftList names the drafts a "$schema" may name.
func scDraftList() string {
	want := make([]string, len(schemaDrafts))
	for i, d := range schemaDrafts {
		want[i] = d.uri
	}
	return strings.Join(want, ", ")
}

// --- walking the subschemas of the Node tree ---

// maxSchemaDepth bounds recursion over hostile input.
const maxSchemaDepth = 256

// schemaAt is one schema object met while walking the tree.
type schemaAt struct {
	node   *syntax.Node
	ptr    []string  // JSON pointer tokens from the root schema
	via    string    // the keyword that led here ("" at the root)
	parent *schemaAt // the schema holding that keyword
}

var (
	schemaMapKeywords    = []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"}
	schemaSingleKeywords = []string{"additionalProperties", "items", "additionalItems", "contains", "propertyNames", "not", "if", "then", "else", "unevaluatedProperties", "unevaluatedItems", "contentSchema"}
	schemaListKeywords   = []string{"allOf", "anyOf", "oneOf", "prefixItems", "items"}
)

// sameInstance are the keywords whose subschemas apply to the value the
// schema holding them applies to (so they share its properties).
var sameInstance = map[string]bool{"allOf": true, "anyOf": true, "oneOf": true, "not": true, "if": true, "then": true, "else": true, "dependentSchemas": true, "dependencies": true}

// walkSchemas calls fn for s and every schema object below it.
func walkSchemas(s *schemaAt, fn func(*schemaAt)) {
	if s.node == nil || s.node.Kind != syntax.MapNode || len(s.ptr) > maxSchemaDepth {
		return
	}
	fn(s)
	child := func(n *syntax.Node, via string, toks ...string) {
		if n == nil || n.Kind != syntax.MapNode {
			return
		}
		ptr := make([]string, 0, len(s.ptr)+len(toks))
		ptr = append(append(ptr, s.ptr...), toks...)
		walkSchemas(&schemaAt{node: n, ptr: ptr, via: via, parent: s}, fn)
	}
	for _, kw := range schemaMapKeywords {
		m := s.node.Get(kw)
		if m == nil || m.Kind != syntax.MapNode {
			continue
		}
		for _, f := range m.EffectiveFields() {
			child(f.Value, kw, kw, f.Key)
		}
	}
	for _, kw := range schemaSingleKeywords {
		child(s.node.Get(kw), kw, kw)
	}
	for _, kw := range schemaListKeywords {
		l := s.node.Get(kw)
		if l == nil || l.Kind != syntax.ListNode {
			continue
		}
		for i, it := range l.Items {
			child(it, kw, kw, strconv.Itoa(i))
		}
	}
}

// --- 3. "required" ---

func (c *schemaChecker) checkRequired() {
	// The properties known for a value are gathered from the schema that
	// first applies to it (the root, a property's schema, "items", ...)
	// through all its alternatives, once per such schema.
	known := map[*syntax.Node]*paramschema.Declared{}
	walkSchemas(&schemaAt{node: c.root}, func(s *schemaAt) {
		req := s.node.Get("required")
		if req == nil || req.Kind != syntax.ListNode {
			return // not a list: meta-validation reports it
		}
		var names []*syntax.Node
		for _, it := range req.Items {
			if it != nil && it.Kind == syntax.StringNode {
				names = append(names, it)
			}
		}
		if len(names) == 0 {
			return
		}
		top := s
		for sameInstance[top.via] && top.parent != nil {
			top = top.parent
		}
		props := known[top.node]
		if props == nil {
			props = c.res.Declare(top.node)
			known[top.node] = props
		}
		if props.Open {
			return
		}
		if !props.Any {
			quoted := make([]string, len(names))
			for i, n := range names {
				quoted[i] = paramschema.Quote(n.Str)
			}
			c.add(req, `required: found `+strings.Join(quoted, ", ")+` but no "properties", expected the required names to be declared in "properties"`)
			return
		}
		for _, n := range names {
			if !props.Has(n.Str) {
				c.add(n, "required: "+paramschema.Quote(n.Str)+" is not a property (properties: "+scPropList(props)+")")
			}
		}
	})
}

// scPropList names the declared properties for a message.
func scPropList(d *paramschema.Declared) string {
	if len(d.Props) == 0 {
		return "none"
	}
	names := make([]string, 0, len(d.Props))
	for _, p := range d.Props {
		names = append(names, p.Name)
	}
	const most = 12
	if len(names) > most {
		return strings.Join(names[:most], ", ") + fmt.Sprintf(" and %d more", len(names)-most)
	}
	return strings.Join(names, ", ")
}

// nodeAt walks the tree along ptr as far as it goes and returns the last
// node reached (the root if none).
func (c *schemaChecker) nodeAt(ptr []string) *syntax.Node {
	n := c.root
	for _, t := range ptr {
		next := c.res.Child(n, t)
		if next == nil {
			break
		}
		n = next
	}
	return n
}

// --- 2. defaults ---

type defaultAt struct {
	ptr   []string // of the schema holding "default"
	value *syntax.Node
}

func (c *schemaChecker) defaultLocations() []defaultAt {
	var out []defaultAt
	walkSchemas(&schemaAt{node: c.root}, func(s *schemaAt) {
		if d := s.node.Get("default"); d != nil {
			out = append(out, defaultAt{ptr: s.ptr, value: d})
		}
	})
	return out
}

func (c *schemaChecker) checkDefaults(comp *paramschema.Compiled) {
	for _, d := range c.defaultLocations() {
		sch, err := comp.At(d.ptr)
		if err == nil {
			err = paramschema.Validate(sch, scValue(d.value))
		} else if !errors.As(err, new(*paramschema.PanicError)) {
			continue // not a schema the validator compiles on its own
		}
		if err == nil {
			continue
		}
		var verr *jsonschema.ValidationError
		var what string
		if errors.As(err, &verr) {
			var parts []string
			for _, l := range paramschema.Explain(verr, scValue(d.value), paramschema.Style{Typed: true}) {
				if len(l.Loc) > 0 {
					parts = append(parts, "at "+scValuePath(l.Loc)+": "+l.Text())
				} else {
					parts = append(parts, l.Text())
				}
			}
			if len(parts) > 3 {
				parts = append(parts[:3], fmt.Sprintf("and %d more", len(parts)-3))
			}
			what = strings.Join(parts, "; ")
		} else {
			what = "cannot be checked: " + err.Error()
		}
		c.add(d.value, scDefaultName(d.ptr)+": "+what)
	}
}

// scDefaultName names the property a default belongs to: `default of
// "opts.depth"`, `default of "files[]"`, or the JSON pointer of its schema.
func scDefaultName(ptr []string) string {
	if len(ptr) == 0 {
		return "default"
	}
	var b strings.Builder
	for i := 0; i < len(ptr); i++ {
		switch {
		case ptr[i] == "properties" && i+1 < len(ptr):
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(ptr[i+1])
			i++
		case ptr[i] == "prefixItems" && i+1 < len(ptr), ptr[i] == "items" && i+1 < len(ptr) && paramschema.IsIndex(ptr[i+1]):
			b.WriteString("[" + ptr[i+1] + "]")
			i++
		case ptr[i] == "items" || ptr[i] == "additionalItems":
			b.WriteString("[]")
		default:
			return "default at " + paramschema.JSONPointer(ptr)
		}
	}
	return "default of " + paramschema.Quote(b.String())
}

// scValuePath shows a place inside a value the jq way: .opts.port, [0].name.
func scValuePath(loc []string) string {
	var b strings.Builder
	for _, t := range loc {
		if paramschema.IsIndex(t) {
			b.WriteString("[" + t + "]")
		} else if scIdentRE().MatchString(t) {
			b.WriteString("." + t)
		} else {
			b.WriteString("[" + strconv.Quote(t) + "]")
		}
	}
	return b.String()
}

// scIdentRE is compiled on first use: lint does nothing at package init.
var scIdentRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`) })

// ptrProblem is a problem at a JSON pointer of the schema (so it applies
// to any tree with the same JSON).
type ptrProblem struct {
	ptr []string
	msg string
}

// scCompileProblems turns a compile error into problems at JSON pointers.
func scCompileProblems(err error, doc any) []ptrProblem {
	var (
		sve   *jsonschema.SchemaValidationError
		load  *jsonschema.NotLoadedError
		noPtr *jsonschema.PointerNotFoundError
		badP  *jsonschema.InvalidPointerError
		noAnc *jsonschema.AnchorNotFoundError
		dupID *jsonschema.DuplicateIDError
		dupA  *jsonschema.DuplicateAnchorError
		badRe *jsonschema.InvalidRegexError
		draft *jsonschema.UnsupportedDraftError
	)
	switch {
	case errors.As(err, &sve):
		base, _ := scURLPointer(sve.URL)
		var out []ptrProblem
		for _, l := range paramschema.Explain(sve.Err, paramschema.ValueAt(doc, base), paramschema.Style{Typed: true, Keywords: true}) {
			loc := append(append([]string(nil), base...), l.Loc...)
			out = append(out, ptrProblem{ptr: loc, msg: scLocationPrefix(loc) + l.Text()})
		}
		return out
	case errors.As(err, &load):
		return scRefProblem(doc, load.URL, "cannot be resolved: rye loads no schemas from files or the network, expected a reference inside this schema (\"#/$defs/...\")")
	case errors.As(err, &noPtr):
		return scRefProblem(doc, noPtr.URL, "points at nothing in this schema")
	case errors.As(err, &badP):
		return scRefProblem(doc, badP.URL, "is not a valid JSON pointer")
	case errors.As(err, &noAnc):
		return scRefProblem(doc, noAnc.Reference, "names an anchor that is not defined in this schema")
	case errors.As(err, &dupID):
		p1, p2 := paramschema.SplitPointer(dupID.Ptr1), paramschema.SplitPointer(dupID.Ptr2)
		if paramschema.JSONPointer(p2) < paramschema.JSONPointer(p1) { // deterministic whatever the order met
			p1, p2 = p2, p1
		}
		return []ptrProblem{{ptr: append(p2, "$id"), msg: `"$id": found ` + paramschema.Quote(dupID.ID) + " again (first at " + paramschema.JSONPointer(p1) + "), expected each $id to be unique"}}
	case errors.As(err, &dupA):
		p1, p2 := paramschema.SplitPointer(dupA.Ptr1), paramschema.SplitPointer(dupA.Ptr2)
		if paramschema.JSONPointer(p2) < paramschema.JSONPointer(p1) {
			p1, p2 = p2, p1
		}
		return []ptrProblem{{ptr: p2, msg: "found the anchor " + paramschema.Quote(dupA.Anchor) + " again (first at " + paramschema.JSONPointer(p1) + "), expected each anchor to be unique"}}
	case errors.As(err, &badRe):
		ptr, _ := scURLPointer(badRe.URL)
		return []ptrProblem{{ptr: ptr, msg: scLocationPrefix(ptr) + "found " + paramschema.Quote(badRe.Regex) + ", expected a regular expression Go can compile (" + paramschema.RegexpReason(badRe.Err) + ")"}}
	case errors.As(err, &draft):
		ptr, _ := scURLPointer(draft.URL)
		return []ptrProblem{{ptr: append(ptr, "$schema"), msg: `"$schema": found ` + paramschema.Quote(draft.Schema) + ", expected one of " + scDraftList()}}
	}
	return []ptrProblem{{msg: "the schema cannot be compiled: " + paramschema.StripBase(err.Error())}}
}

// scURLPointer gives the JSON pointer of a URL in the parameter schema.
func scURLPointer(u string) ([]string, bool) {
	rest, ok := strings.CutPrefix(u, paramschema.BaseURL)
	if !ok {
		return nil, false
	}
	toks, ok := paramschema.PointerTokens(strings.TrimPrefix(rest, "#"))
	return toks, ok
}

// scRefProblem places a reference problem at the first "$ref" (or
// "$dynamicRef", "$recursiveRef", "$schema") whose value names target.
func scRefProblem(doc any, target, what string) []ptrProblem {
	target = strings.TrimPrefix(target, paramschema.BaseURL)
	var found []string
	var value string
	var search func(v any, ptr []string) bool
	search = func(v any, ptr []string) bool {
		if len(ptr) > maxSchemaDepth {
			return false
		}
		switch v := v.(type) {
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(v)) {
				if s, ok := v[k].(string); ok && (k == "$ref" || k == "$dynamicRef" || k == "$recursiveRef" || k == "$schema") {
					ref := s
					if k == "$schema" {
						ref = strings.TrimSuffix(ref, "#")
					}
					if scRefMatches(ref, target) {
						found = append(append([]string(nil), ptr...), k)
						value = s
						return true
					}
				}
				if search(v[k], append(ptr, k)) {
					return true
				}
			}
		case []any:
			for i, it := range v {
				if search(it, append(ptr, strconv.Itoa(i))) {
					return true
				}
			}
		}
		return false
	}
	if search(doc, nil) {
		return []ptrProblem{{ptr: found, msg: paramschema.Quote(found[len(found)-1]) + ": " + paramschema.Quote(value) + " " + what}}
	}
	return []ptrProblem{{msg: "a reference to " + paramschema.Quote(target) + " " + what}}
}

// scRefMatches says whether a reference as written (ref) is the one the
// validator failed to resolve (target, the base URL of the schema removed).
func scRefMatches(ref, target string) bool {
	rBase, rFrag, _ := strings.Cut(ref, "#")
	tBase, tFrag, _ := strings.Cut(target, "#")
	if rBase == "" { // "#/$defs/x", "#anchor": relative to the schema or to an enclosing $id
		return rFrag == tFrag
	}
	return strings.HasSuffix(tBase, rBase) && (tFrag == "" || rFrag == tFrag)
}

// --- messages ---

// scLocationPrefix names the place of a value in the schema for a message:
// `"type": `, `property "a": `, `"required"[0]: `.
func scLocationPrefix(ptr []string) string {
	n := len(ptr)
	switch {
	case n == 0:
		return ""
	case n >= 2 && ptr[n-2] == "properties":
		return "property " + paramschema.Quote(ptr[n-1]) + ": "
	case n >= 2 && paramschema.IsIndex(ptr[n-1]):
		return paramschema.Quote(ptr[n-2]) + "[" + ptr[n-1] + "]: "
	}
	return paramschema.Quote(ptr[n-1]) + ": "
}

// scDescribeNode shows a node's value for a message: `"x" (a string)`, `true`.
func scDescribeNode(n *syntax.Node) string {
	v := scValue(n)
	if n.Kind == syntax.BoolNode {
		return paramschema.Describe(v)
	}
	return paramschema.Describe(v) + paramschema.TypeNote(v)
}

// scOneLine keeps a message on one line without a trailing period.
func scOneLine(s string) string {
	s = strings.TrimSpace(strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s))
	if strings.HasSuffix(s, ".") && !strings.HasSuffix(s, "..") {
		s = s[:len(s)-1]
	}
	return s
}
