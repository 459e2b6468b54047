package lint

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/ryekit/rye/internal/schemamsg"
	"github.com/ryekit/rye/item"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// SchemaProblem is a problem found in a tool's parameter schema.
type SchemaProblem struct {
	Node *item.Node // the value the problem is about (its Pos/End locate it); never nil
	Msg  string     // what is wrong and what is expected, one line, no trailing period
}

// CheckParamSchema checks a tool's parameter schema (the config_schema
// node; nil means none and gives no problems):
//  1. it is a valid JSON Schema (meta-validation against draft 2020-12, the default when
//     "$schema" is absent; honour "$schema" when it names draft-07, 2019-09 or 2020-12;
//     an unknown "$schema" is a problem);
//  2. every "default" validates against the schema of the property it sits in (at any depth:
//     properties of properties, items, etc.; at least top-level properties and nested
//     "properties" objects);
//  3. every name listed in a "required" array exists in the sibling "properties" (at every
//     level where both appear; a "required" without "properties" is a problem too);
//  4. the top level must be an object schema: "type": "object" (or no type) — a tool's
//     parameters are named; a schema whose top-level type is something else is a problem.
//
// Problems are returned in source order (by Node.Pos.Offset), each at the most precise node:
// for a meta-validation error, the node at the error's instance location inside the schema
// (walk the Node tree along the JSON pointer); for a bad default, the default's node; for an
// unknown required name, the string node in the required list.
func CheckParamSchema(schema *item.Node) []SchemaProblem {
	if schema.IsNull() {
		return nil
	}
	c := &schemaChecker{root: schema}
	c.check()
	sort.SliceStable(c.problems, func(i, j int) bool {
		return c.problems[i].Node.Pos.Offset < c.problems[j].Node.Pos.Offset
	})
	if n := len(c.problems); n > maxSchemaProblems {
		c.problems = c.problems[:maxSchemaProblems]
		c.problems = append(c.problems, SchemaProblem{
			Node: c.problems[maxSchemaProblems-1].Node,
			Msg:  fmt.Sprintf("%d more problems in this parameter schema are not shown", n-maxSchemaProblems),
		})
	}
	return c.problems
}

// maxSchemaProblems bounds what one schema reports.
const maxSchemaProblems = 100

type schemaChecker struct {
	root     *item.Node
	problems []SchemaProblem
	seen     map[SchemaProblem]bool
	index    map[*item.Node]map[string]*item.Node // keys of large maps
	values   int                                  // counted by scanValues
}

func (c *schemaChecker) add(n *item.Node, msg string) {
	if n == nil {
		n = c.root
	}
	p := SchemaProblem{Node: n, Msg: scOneLine(msg)}
	if c.seen == nil {
		c.seen = map[SchemaProblem]bool{}
	}
	if c.seen[p] {
		return
	}
	c.seen[p] = true
	c.problems = append(c.problems, p)
}

func (c *schemaChecker) check() {
	root := c.root
	if root.Kind != item.MapNode {
		c.add(root, `a parameter schema must be an object ({"type": "object", "properties": ...}), found `+scDescribeNode(root))
		return
	}
	// The library cannot represent infinities and NaN (JSON has none), it
	// slows down on deep nesting and on huge schemas, and an unsupported
	// "$schema" decides nothing about the rest: in these cases stop before
	// compiling.
	stop := c.scanValues(root, nil)
	c.checkTopLevel()
	c.checkRequired()
	if stop {
		return
	}
	if !c.checkSchemaURI() {
		return
	}

	doc := scNodeValue(root)
	key, err := json.Marshal(doc)
	if err != nil { // cannot happen: nodeValue only builds JSON values
		c.add(root, "the schema cannot be written as JSON: "+err.Error())
		return
	}
	defaults := c.defaultLocations()
	entry := cachedSchema(string(key), doc, defaults)
	for _, p := range entry.problems {
		c.add(c.nodeAt(p.ptr), p.msg)
	}
	if len(entry.problems) == 0 { // else the defaults cannot be judged
		c.checkDefaults(entry, defaults)
	}
}

// --- 4. the top level ---

func (c *schemaChecker) checkTopLevel() {
	t := c.root.Get("type")
	if t == nil {
		return
	}
	switch t.Kind {
	case item.StringNode:
		if t.Str == "object" || !scIsTypeName(t.Str) { // a bad name is a meta-validation problem
			return
		}
	case item.ListNode:
		if len(t.Items) == 0 {
			return // meta-validation reports it
		}
		ok := true
		for _, it := range t.Items {
			if it == nil || it.Kind != item.StringNode || !scIsTypeName(it.Str) {
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
	c.add(t, `the top level of a parameter schema must be "type": "object", found `+scCompactJSON(scNodeValue(t)))
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
	uri   string // as shown in messages
	key   string // without scheme and trailing '#'
	draft *jsonschema.Draft
}{
	{"https://json-schema.org/draft/2020-12/schema", "json-schema.org/draft/2020-12/schema", jsonschema.Draft2020},
	{"https://json-schema.org/draft/2019-09/schema", "json-schema.org/draft/2019-09/schema", jsonschema.Draft2019},
	{"http://json-schema.org/draft-07/schema#", "json-schema.org/draft-07/schema", jsonschema.Draft7},
}

// checkSchemaURI reports a top-level "$schema" that names no supported
// draft, and says whether the schema can be compiled.
func (c *schemaChecker) checkSchemaURI() bool {
	s := c.root.Get("$schema")
	if s == nil || s.Kind != item.StringNode {
		return true // absent: draft 2020-12; not a string: meta-validation says so
	}
	u := strings.TrimSuffix(s.Str, "#")
	if rest, ok := strings.CutPrefix(u, "https://"); ok {
		u = rest
	} else {
		u = strings.TrimPrefix(u, "http://")
	}
	var want []string
	for _, d := range schemaDrafts {
		if u == d.key {
			return true
		}
		want = append(want, d.uri)
	}
	c.add(s, `"$schema": found `+scQuote(s.Str)+", expected one of "+strings.Join(want, ", "))
	return false
}

// --- values the library cannot take ---

// maxValueDepth bounds the nesting of a schema given to the library, whose
// meta-validation time grows with the square of the depth. Parameter
// schemas nest a dozen levels at most.
const maxValueDepth = 128

// maxValues bounds the size of a schema given to the library, whose
// compile time grows with the square of the number of subschemas.
const maxValues = 20000

// scanValues reports numbers JSON cannot represent, nesting deeper than
// maxValueDepth and more than maxValues values, and says whether it found
// any.
func (c *schemaChecker) scanValues(n *item.Node, ptr []string) bool {
	if n == nil {
		return false
	}
	if c.values++; c.values > maxValues {
		if c.values == maxValues+1 {
			c.add(c.root, fmt.Sprintf("found a parameter schema of more than %d values, expected a smaller one", maxValues))
		}
		return true
	}
	if len(ptr) > maxValueDepth {
		c.add(n, scLocationPrefix(ptr)+fmt.Sprintf("found a value nested more than %d levels deep, expected a shallower schema", maxValueDepth))
		return true
	}
	found := false
	switch n.Kind {
	case item.FloatNode:
		if math.IsInf(n.Float, 0) || math.IsNaN(n.Float) {
			raw := n.Raw
			if raw == "" {
				raw = strconv.FormatFloat(n.Float, 'g', -1, 64)
			}
			c.add(n, scLocationPrefix(ptr)+"found "+raw+", expected a finite number (JSON has no infinity or NaN)")
			return true
		}
	case item.ListNode:
		for i, it := range n.Items {
			if c.scanValues(it, append(ptr, strconv.Itoa(i))) {
				found = true
				if len(ptr) >= maxValueDepth {
					break // one report of deep nesting is enough
				}
			}
		}
	case item.MapNode:
		for _, f := range n.EffectiveFields() {
			if c.scanValues(f.Value, append(ptr, f.Key)) {
				found = true
				if len(ptr) >= maxValueDepth {
					break
				}
			}
		}
	}
	return found
}

// --- walking the subschemas of the Node tree ---

// maxSchemaDepth bounds recursion over hostile input.
const maxSchemaDepth = 256

// schemaAt is one schema object met while walking the tree.
type schemaAt struct {
	node   *item.Node
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
	if s.node == nil || s.node.Kind != item.MapNode || len(s.ptr) > maxSchemaDepth {
		return
	}
	fn(s)
	child := func(n *item.Node, via string, toks ...string) {
		if n == nil || n.Kind != item.MapNode {
			return
		}
		ptr := make([]string, 0, len(s.ptr)+len(toks))
		ptr = append(append(ptr, s.ptr...), toks...)
		walkSchemas(&schemaAt{node: n, ptr: ptr, via: via, parent: s}, fn)
	}
	for _, kw := range schemaMapKeywords {
		m := s.node.Get(kw)
		if m == nil || m.Kind != item.MapNode {
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
		if l == nil || l.Kind != item.ListNode {
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
	known := map[*item.Node]*knownProps{}
	walkSchemas(&schemaAt{node: c.root}, func(s *schemaAt) {
		req := s.node.Get("required")
		if req == nil || req.Kind != item.ListNode {
			return // not a list: meta-validation reports it
		}
		var names []*item.Node
		for _, it := range req.Items {
			if it != nil && it.Kind == item.StringNode {
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
			props = &knownProps{c: c, seen: map[*item.Node]bool{}, names: map[string]bool{}}
			props.collect(top.node, 0)
			known[top.node] = props
		}
		if props.open {
			return
		}
		if !props.any {
			quoted := make([]string, len(names))
			for i, n := range names {
				quoted[i] = scQuote(n.Str)
			}
			c.add(req, `required: found `+strings.Join(quoted, ", ")+` but no "properties", expected the required names to be declared in "properties"`)
			return
		}
		for _, n := range names {
			if !props.has(n.Str) {
				c.add(n, "required: "+scQuote(n.Str)+" is not a property (properties: "+props.list()+")")
			}
		}
	})
}

// knownProps gathers the property names a schema declares for its value:
// its own "properties", those of its allOf/anyOf/oneOf/if/then/else/not
// branches and of the schemas it references within the document.
type knownProps struct {
	c        *schemaChecker
	seen     map[*item.Node]bool
	names    map[string]bool
	order    []string
	patterns []*regexp.Regexp
	any      bool // some "properties" or "patternProperties" was found
	open     bool // the names cannot be known (a reference leaves the document, a "properties" is malformed)
}

func (k *knownProps) collect(n *item.Node, depth int) {
	if n == nil || n.Kind != item.MapNode || k.seen[n] || depth > maxSchemaDepth {
		return
	}
	k.seen[n] = true
	if p := n.Get("properties"); p != nil {
		if p.Kind != item.MapNode {
			k.open = true
			return
		}
		k.any = true
		for _, f := range p.EffectiveFields() {
			if !k.names[f.Key] {
				k.names[f.Key] = true
				k.order = append(k.order, f.Key)
			}
		}
	}
	if p := n.Get("patternProperties"); p != nil {
		if p.Kind != item.MapNode {
			k.open = true
			return
		}
		k.any = k.any || len(p.Fields) > 0
		for _, f := range p.EffectiveFields() {
			re, err := regexp.Compile(f.Key)
			if err != nil {
				k.open = true
				return
			}
			k.patterns = append(k.patterns, re)
		}
	}
	for _, kw := range []string{"$dynamicRef", "$recursiveRef"} {
		if n.Get(kw) != nil {
			k.open = true
		}
	}
	if ref := n.Get("$ref"); ref != nil {
		target := k.c.localRef(ref)
		if target == nil {
			k.open = true
		}
		k.collect(target, depth+1)
	}
	for _, kw := range []string{"allOf", "anyOf", "oneOf"} {
		if l := n.Get(kw); l != nil && l.Kind == item.ListNode {
			for _, it := range l.Items {
				k.collect(it, depth+1)
			}
		}
	}
	for _, kw := range []string{"if", "then", "else", "not"} {
		k.collect(n.Get(kw), depth+1)
	}
	for _, kw := range []string{"dependentSchemas", "dependencies"} {
		if m := n.Get(kw); m != nil && m.Kind == item.MapNode {
			for _, f := range m.EffectiveFields() {
				k.collect(f.Value, depth+1)
			}
		}
	}
}

func (k *knownProps) has(name string) bool {
	if k.names[name] {
		return true
	}
	for _, re := range k.patterns {
		if re.MatchString(name) {
			return true
		}
	}
	return false
}

func (k *knownProps) list() string {
	if len(k.order) == 0 {
		return "none"
	}
	const most = 12
	if len(k.order) > most {
		return strings.Join(k.order[:most], ", ") + fmt.Sprintf(" and %d more", len(k.order)-most)
	}
	return strings.Join(k.order, ", ")
}

// localRef resolves a "$ref" of the form "#/json/pointer" inside the
// document; anything else gives nil.
func (c *schemaChecker) localRef(ref *item.Node) *item.Node {
	if ref.Kind != item.StringNode {
		return nil
	}
	frag, ok := strings.CutPrefix(ref.Str, "#")
	if !ok {
		return nil
	}
	toks, ok := scPointerTokens(frag)
	if !ok {
		return nil
	}
	n := c.root
	for _, t := range toks {
		n = c.child(n, t)
		if n == nil {
			return nil
		}
	}
	return n
}

// scPointerTokens splits a URI-fragment JSON pointer ("/a~1b/0").
func scPointerTokens(frag string) ([]string, bool) {
	frag, err := url.PathUnescape(frag)
	if err != nil || (frag != "" && frag[0] != '/') {
		return nil, false
	}
	return scSplitPointer(frag), true
}

// scSplitPointer splits a JSON pointer ("/a~1b/0") into its tokens.
func scSplitPointer(p string) []string {
	if p == "" {
		return nil
	}
	toks := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for i, t := range toks {
		toks[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
	}
	return toks
}

// child is the value under one JSON pointer token, or nil.
func (c *schemaChecker) child(n *item.Node, tok string) *item.Node {
	switch n.Kind {
	case item.MapNode:
		if len(n.Fields) <= 16 {
			return n.Get(tok)
		}
		m := c.index[n]
		if m == nil {
			m = make(map[string]*item.Node, len(n.Fields))
			for _, f := range n.Fields {
				m[f.Key] = f.Value // the last duplicate wins, as in Get
			}
			if c.index == nil {
				c.index = map[*item.Node]map[string]*item.Node{}
			}
			c.index[n] = m
		}
		return m[tok]
	case item.ListNode:
		i, err := strconv.Atoi(tok)
		if err != nil || i < 0 || i >= len(n.Items) || tok != strconv.Itoa(i) {
			return nil
		}
		return n.Items[i]
	}
	return nil
}

// nodeAt walks the tree along ptr as far as it goes and returns the last
// node reached (the root if none).
func (c *schemaChecker) nodeAt(ptr []string) *item.Node {
	n := c.root
	for _, t := range ptr {
		next := c.child(n, t)
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
	key   string   // ptr as a JSON pointer
	value *item.Node
}

func (c *schemaChecker) defaultLocations() []defaultAt {
	var out []defaultAt
	walkSchemas(&schemaAt{node: c.root}, func(s *schemaAt) {
		if d := s.node.Get("default"); d != nil {
			out = append(out, defaultAt{ptr: s.ptr, key: scJSONPointer(s.ptr), value: d})
		}
	})
	return out
}

func (c *schemaChecker) checkDefaults(entry *compiledSchema, defaults []defaultAt) {
	for _, d := range defaults {
		sch := entry.defaults[d.key]
		if sch == nil {
			continue
		}
		v := scNodeValue(d.value)
		err := scValidateValue(sch, v)
		if err == nil {
			continue
		}
		var verr *jsonschema.ValidationError
		var what string
		if errors.As(err, &verr) {
			var parts []string
			for _, l := range scExplain(verr, v, false) {
				if len(l.loc) > 0 {
					parts = append(parts, "at "+scValuePath(l.loc)+": "+l.text())
				} else {
					parts = append(parts, l.text())
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
		case ptr[i] == "prefixItems" && i+1 < len(ptr), ptr[i] == "items" && i+1 < len(ptr) && scIsIndex(ptr[i+1]):
			b.WriteString("[" + ptr[i+1] + "]")
			i++
		case ptr[i] == "items" || ptr[i] == "additionalItems":
			b.WriteString("[]")
		default:
			return "default at " + scJSONPointer(ptr)
		}
	}
	return "default of " + scQuote(b.String())
}

// scValuePath shows a place inside a value the jq way: .opts.port, [0].name.
func scValuePath(loc []string) string {
	var b strings.Builder
	for _, t := range loc {
		if scIsIndex(t) {
			b.WriteString("[" + t + "]")
		} else if scIdentRE.MatchString(t) {
			b.WriteString("." + t)
		} else {
			b.WriteString("[" + strconv.Quote(t) + "]")
		}
	}
	return b.String()
}

var scIdentRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)

func scIsIndex(s string) bool {
	i, err := strconv.Atoi(s)
	return err == nil && i >= 0 && strconv.Itoa(i) == s
}

func scJSONPointer(ptr []string) string {
	var b strings.Builder
	for _, t := range ptr {
		b.WriteByte('/')
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1"))
	}
	return b.String()
}

// --- compiling, cached ---

// schemaBaseURL is where a parameter schema is placed for the compiler;
// nothing is ever loaded from it.
const schemaBaseURL = "mem://rye/param-schema.json"

// compiledSchema is what compiling one schema gave: its problems (as JSON
// pointers, so they apply to any tree with the same JSON) or the compiled
// subschemas that hold a "default", by JSON pointer.
type compiledSchema struct {
	problems []ptrProblem
	defaults map[string]*jsonschema.Schema
}

type ptrProblem struct {
	ptr []string
	msg string
}

const maxCachedSchemas = 512

var schemaCache = struct {
	sync.Mutex
	m map[string]*compiledSchema
}{m: map[string]*compiledSchema{}}

// schemaCatchPanics turns a panic of the validator library into a problem.
// The fuzz test clears it so that such panics surface.
var schemaCatchPanics = true

func cachedSchema(key string, doc any, defaults []defaultAt) *compiledSchema {
	schemaCache.Lock()
	e := schemaCache.m[key]
	schemaCache.Unlock()
	if e != nil {
		return e
	}
	e = compileSchema(doc, defaults)
	schemaCache.Lock()
	if len(schemaCache.m) >= maxCachedSchemas {
		for k := range schemaCache.m { // drop one, any one
			delete(schemaCache.m, k)
			break
		}
	}
	schemaCache.m[key] = e
	schemaCache.Unlock()
	return e
}

func resetSchemaCache() {
	schemaCache.Lock()
	clear(schemaCache.m)
	schemaCache.Unlock()
}

func compileSchema(doc any, defaults []defaultAt) (e *compiledSchema) {
	e = &compiledSchema{}
	if schemaCatchPanics {
		defer func() {
			if r := recover(); r != nil {
				e = &compiledSchema{problems: []ptrProblem{{msg: fmt.Sprintf("the schema could not be checked: the validator failed (%v)", r)}}}
			}
		}()
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(nil) // never read files or the network
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(schemaBaseURL, doc); err != nil {
		e.problems = []ptrProblem{{msg: "the schema cannot be compiled: " + scStripBase(err.Error())}}
		return e
	}
	if _, err := c.Compile(schemaBaseURL); err != nil {
		e.problems = scCompileProblems(err, doc)
		return e
	}
	e.defaults = map[string]*jsonschema.Schema{}
	for _, d := range defaults {
		if _, ok := e.defaults[d.key]; ok {
			continue
		}
		frag := ""
		for _, t := range d.ptr {
			frag += "/" + url.PathEscape(strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1"))
		}
		sch, err := c.Compile(schemaBaseURL + "#" + frag)
		if err != nil {
			continue
		}
		e.defaults[d.key] = sch
	}
	return e
}

func scValidateValue(sch *jsonschema.Schema, v any) (err error) {
	if schemaCatchPanics {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("the validator failed (%v)", r)
			}
		}()
	}
	return sch.Validate(v)
}

// scCompileProblems turns a compile error into problems at JSON pointers.
func scCompileProblems(err error, doc any) []ptrProblem {
	var (
		sve   *jsonschema.SchemaValidationError
		load  *jsonschema.LoadURLError
		noPtr *jsonschema.JSONPointerNotFoundError
		badP  *jsonschema.InvalidJsonPointerError
		noAnc *jsonschema.AnchorNotFoundError
		dupID *jsonschema.DuplicateIDError
		dupA  *jsonschema.DuplicateAnchorError
		badRe *jsonschema.InvalidRegexError
		vocab *jsonschema.UnsupportedVocabularyError
	)
	switch {
	case errors.As(err, &sve):
		base, _ := scURLPointer(sve.URL)
		verr, ok := sve.Err.(*jsonschema.ValidationError)
		if !ok {
			return []ptrProblem{{ptr: base, msg: "the schema is not valid: " + scStripBase(sve.Err.Error())}}
		}
		var out []ptrProblem
		for _, l := range scExplain(verr, schemamsg.ValueAt(doc, base), true) {
			loc := append(append([]string(nil), base...), l.loc...)
			out = append(out, ptrProblem{ptr: loc, msg: scLocationPrefix(loc) + l.text()})
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
		p1, p2 := scSplitPointer(dupID.Ptr1), scSplitPointer(dupID.Ptr2)
		if scJSONPointer(p2) < scJSONPointer(p1) { // deterministic whatever the map order
			p1, p2 = p2, p1
		}
		return []ptrProblem{{ptr: append(p2, "$id"), msg: `"$id": found ` + scQuote(dupID.ID) + " again (first at " + scJSONPointer(p1) + "), expected each $id to be unique"}}
	case errors.As(err, &dupA):
		p1, p2 := scSplitPointer(dupA.Ptr1), scSplitPointer(dupA.Ptr2)
		if scJSONPointer(p2) < scJSONPointer(p1) {
			p1, p2 = p2, p1
		}
		return []ptrProblem{{ptr: p2, msg: "found the anchor " + scQuote(dupA.Anchor) + " again (first at " + scJSONPointer(p1) + "), expected each anchor to be unique"}}
	case errors.As(err, &badRe):
		ptr, _ := scURLPointer(badRe.URL)
		return []ptrProblem{{ptr: ptr, msg: scLocationPrefix(ptr) + "found " + scQuote(badRe.Regex) + ", expected a regular expression Go can compile (" + scRegexpReason(badRe.Err) + ")"}}
	case errors.As(err, &vocab):
		return []ptrProblem{{ptr: []string{"$vocabulary"}, msg: `"$vocabulary": found ` + scQuote(vocab.Vocabulary) + ", which is not supported"}}
	}
	return []ptrProblem{{msg: "the schema cannot be compiled: " + scStripBase(err.Error())}}
}

// scURLPointer gives the JSON pointer of a URL in the parameter schema.
func scURLPointer(u string) ([]string, bool) {
	rest, ok := strings.CutPrefix(u, schemaBaseURL)
	if !ok {
		return nil, false
	}
	toks, ok := scPointerTokens(strings.TrimPrefix(rest, "#"))
	return toks, ok
}

// scRefProblem places a reference problem at the first "$ref" (or
// "$dynamicRef", "$recursiveRef", "$schema") whose value names target.
func scRefProblem(doc any, target, what string) []ptrProblem {
	target = strings.TrimPrefix(target, schemaBaseURL)
	var found []string
	var value string
	var search func(v any, ptr []string) bool
	search = func(v any, ptr []string) bool {
		if len(ptr) > maxSchemaDepth {
			return false
		}
		switch v := v.(type) {
		case map[string]any:
			for _, k := range scSortedKeys(v) {
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
		return []ptrProblem{{ptr: found, msg: scQuote(found[len(found)-1]) + ": " + scQuote(value) + " " + what}}
	}
	return []ptrProblem{{msg: "a reference to " + scQuote(target) + " " + what}}
}

// scRefMatches says whether a reference as written (ref) is the one the
// library failed to resolve (target, the base URL of the schema removed).
func scRefMatches(ref, target string) bool {
	rBase, rFrag, _ := strings.Cut(ref, "#")
	tBase, tFrag, _ := strings.Cut(target, "#")
	if rBase == "" { // "#/$defs/x", "#anchor": relative to the schema or to an enclosing $id
		return rFrag == tFrag
	}
	return strings.HasSuffix(tBase, rBase) && (tFrag == "" || rFrag == tFrag)
}

func scSortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func scStripBase(s string) string {
	s = strings.ReplaceAll(s, `"`+schemaBaseURL+`#"`, "the schema")
	return strings.ReplaceAll(s, schemaBaseURL, "")
}

func scRegexpReason(err error) string {
	if err == nil {
		return "invalid"
	}
	return strings.TrimPrefix(err.Error(), "error parsing regexp: ")
}

// --- converting nodes ---

// scNodeValue converts a node to the values the validator library expects:
// numbers as json.Number, so that 5 is an integer and 5.5 is not. Later
// duplicate keys win, as in Node.Get.
func scNodeValue(n *item.Node) any {
	if n == nil {
		return nil
	}
	switch n.Kind {
	case item.StringNode:
		return n.Str
	case item.IntNode:
		return json.Number(strconv.FormatInt(n.Int, 10))
	case item.FloatNode:
		if math.IsInf(n.Float, 0) || math.IsNaN(n.Float) {
			return strconv.FormatFloat(n.Float, 'g', -1, 64) // refused before compiling
		}
		return json.Number(strconv.FormatFloat(n.Float, 'g', -1, 64))
	case item.BoolNode:
		return n.Bool
	case item.ListNode:
		out := make([]any, len(n.Items))
		for i, it := range n.Items {
			out[i] = scNodeValue(it)
		}
		return out
	case item.MapNode:
		out := make(map[string]any, len(n.Fields))
		for _, f := range n.Fields {
			out[f.Key] = scNodeValue(f.Value)
		}
		return out
	}
	return nil
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
		return "property " + scQuote(ptr[n-1]) + ": "
	case n >= 2 && scIsIndex(ptr[n-1]):
		return scQuote(ptr[n-2]) + "[" + ptr[n-1] + "]: "
	}
	return scQuote(ptr[n-1]) + ": "
}

// scLeaf is one explained validation failure.
type scLeaf struct {
	loc      []string
	found    string // "found X" part, without "found "
	expected string // "expected Y" part, without "expected "
	other    string // a whole message when found/expected do not fit
	typeMiss bool   // the value is of a type the failing schema does not take
}

func (l scLeaf) text() string {
	if l.other != "" {
		return l.other
	}
	return "found " + l.found + ", expected " + l.expected
}

// scExplain flattens a validation error tree into plain-word failures. The
// containers (groups, allOf, references) are looked through; for anyOf and
// oneOf the alternative the value came closest to is kept. meta says the
// value is a schema being meta-validated (enum values are then keywords and
// shown without quotes).
func scExplain(e *jsonschema.ValidationError, doc any, meta bool) []scLeaf {
	var out []scLeaf
	seen := map[string]bool{}
	for _, l := range scExplainErr(e, doc, meta, 0) {
		k := scJSONPointer(l.loc) + "\x00" + l.text()
		if !seen[k] {
			seen[k] = true
			out = append(out, l)
		}
	}
	return out
}

func scExplainErr(e *jsonschema.ValidationError, doc any, meta bool, depth int) []scLeaf {
	if e == nil || depth > 64 {
		return nil
	}
	loc := e.InstanceLocation
	v := schemamsg.ValueAt(doc, loc)
	causes := func() []scLeaf {
		var out []scLeaf
		for _, c := range e.Causes {
			out = append(out, scExplainErr(c, doc, meta, depth+1)...)
		}
		return out
	}
	switch k := e.ErrorKind.(type) {
	case *kind.Schema, *kind.Group, *kind.AllOf, *kind.Reference, nil:
		if len(e.Causes) > 0 {
			return causes()
		}
		return []scLeaf{{loc: loc, found: scDisplay(v), expected: "a value the schema accepts"}}
	case *kind.AnyOf:
		return scAlternatives(e, "anyOf", doc, v, meta, depth)
	case *kind.OneOf:
		if len(k.Subschemas) >= 2 {
			return []scLeaf{{loc: loc, found: scDisplay(v) + fmt.Sprintf(` matching more than one "oneOf" alternative (%d and %d)`, k.Subschemas[0], k.Subschemas[1]), expected: "exactly one"}}
		}
		return scAlternatives(e, "oneOf", doc, v, meta, depth)
	case *kind.Type:
		return []scLeaf{{loc: loc, found: scDisplay(v) + scTypeNote(v), expected: scWantTypes(k.Want), typeMiss: true}}
	case *kind.Enum:
		l := scLeaf{loc: loc, found: scDisplay(v), expected: scOneOf(k.Want, meta)}
		l.typeMiss = true
		for _, w := range k.Want {
			if scSameType(w, v) {
				l.typeMiss = false
			}
		}
		if l.typeMiss {
			l.found += scTypeNote(v)
		}
		return []scLeaf{l}
	case *kind.Const:
		return []scLeaf{{loc: loc, found: scDisplay(v), expected: scDisplay(k.Want), typeMiss: !scSameType(k.Want, v)}}
	case *kind.Minimum:
		return []scLeaf{{loc: loc, found: schemamsg.Rat(k.Got), expected: "at least " + schemamsg.Rat(k.Want)}}
	case *kind.Maximum:
		return []scLeaf{{loc: loc, found: schemamsg.Rat(k.Got), expected: "at most " + schemamsg.Rat(k.Want)}}
	case *kind.ExclusiveMinimum:
		return []scLeaf{{loc: loc, found: schemamsg.Rat(k.Got), expected: "more than " + schemamsg.Rat(k.Want)}}
	case *kind.ExclusiveMaximum:
		return []scLeaf{{loc: loc, found: schemamsg.Rat(k.Got), expected: "less than " + schemamsg.Rat(k.Want)}}
	case *kind.MultipleOf:
		return []scLeaf{{loc: loc, found: schemamsg.Rat(k.Got), expected: "a multiple of " + schemamsg.Rat(k.Want)}}
	case *kind.MinLength:
		return []scLeaf{{loc: loc, found: scDisplay(v) + " (" + schemamsg.Plural(k.Got, "character") + ")", expected: "at least " + schemamsg.Plural(k.Want, "character")}}
	case *kind.MaxLength:
		return []scLeaf{{loc: loc, found: scDisplay(v) + " (" + schemamsg.Plural(k.Got, "character") + ")", expected: "at most " + schemamsg.Plural(k.Want, "character")}}
	case *kind.Pattern:
		return []scLeaf{{loc: loc, found: scDisplay(v), expected: "a string matching " + scQuote(k.Want)}}
	case *kind.Format:
		exp := "a valid " + k.Want
		if k.Want == "regex" {
			exp = "a regular expression Go can compile"
		}
		if k.Err != nil {
			exp += " (" + scRegexpReason(k.Err) + ")"
		}
		return []scLeaf{{loc: loc, found: scDisplay(v), expected: exp}}
	case *kind.MinItems:
		return []scLeaf{{loc: loc, found: schemamsg.Plural(k.Got, "item"), expected: "at least " + schemamsg.Plural(k.Want, "item")}}
	case *kind.MaxItems:
		return []scLeaf{{loc: loc, found: schemamsg.Plural(k.Got, "item"), expected: "at most " + schemamsg.Plural(k.Want, "item")}}
	case *kind.UniqueItems:
		return []scLeaf{{loc: loc, found: fmt.Sprintf("equal items at %d and %d", k.Duplicates[0], k.Duplicates[1]), expected: "unique items"}}
	case *kind.MinProperties:
		return []scLeaf{{loc: loc, found: schemamsg.Plural(k.Got, "property"), expected: "at least " + schemamsg.Plural(k.Want, "property")}}
	case *kind.MaxProperties:
		return []scLeaf{{loc: loc, found: schemamsg.Plural(k.Got, "property"), expected: "at most " + schemamsg.Plural(k.Want, "property")}}
	case *kind.Required:
		return []scLeaf{{loc: loc, other: "missing required " + scQuoteList("property", k.Missing)}}
	case *kind.AdditionalProperties:
		return []scLeaf{{loc: loc, found: scQuoteList("property", k.Properties), expected: "only the properties the schema declares"}}
	case *kind.Dependency:
		return []scLeaf{{loc: loc, found: scQuoteList("property", []string{k.Prop}) + " without " + scQuoteList("property", k.Missing), expected: "them together"}}
	case *kind.DependentRequired:
		return []scLeaf{{loc: loc, found: scQuoteList("property", []string{k.Prop}) + " without " + scQuoteList("property", k.Missing), expected: "them together"}}
	case *kind.PropertyNames:
		l := scLeaf{loc: loc, found: "the property name " + scQuote(k.Property), expected: `a name "propertyNames" accepts`}
		if c := causes(); len(c) == 1 {
			l.expected = c[0].expected + ` (by "propertyNames")`
		}
		return []scLeaf{l}
	case *kind.AdditionalItems:
		return []scLeaf{{loc: loc, found: schemamsg.Plural(k.Count, "item") + " more than the schema lists", expected: "no additional items"}}
	case *kind.Contains:
		return []scLeaf{{loc: loc, found: `no item matching "contains"`, expected: "at least one"}}
	case *kind.MinContains:
		return []scLeaf{{loc: loc, found: schemamsg.Plural(len(k.Got), "item") + ` matching "contains"`, expected: "at least " + strconv.Itoa(k.Want)}}
	case *kind.MaxContains:
		return []scLeaf{{loc: loc, found: schemamsg.Plural(len(k.Got), "item") + ` matching "contains"`, expected: "at most " + strconv.Itoa(k.Want)}}
	case *kind.FalseSchema:
		return []scLeaf{{loc: loc, found: scDisplay(v), expected: "nothing here (the schema is false)", typeMiss: true}}
	case *kind.Not:
		return []scLeaf{{loc: loc, found: scDisplay(v), expected: `a value the "not" schema rejects`}}
	case *kind.RefCycle:
		return []scLeaf{{loc: loc, other: "the references loop (" + k.KeywordLocation1 + " and " + k.KeywordLocation2 + ")"}}
	case *kind.ContentEncoding:
		return []scLeaf{{loc: loc, found: scDisplay(v), expected: "a " + k.Want + " encoded string"}}
	case *kind.ContentMediaType:
		return []scLeaf{{loc: loc, found: scDisplay(v), expected: "content of media type " + k.Want}}
	}
	if len(e.Causes) > 0 {
		return causes()
	}
	kw := strings.Join(e.ErrorKind.KeywordPath(), "/")
	if kw == "" {
		kw = "the schema"
	} else {
		kw = scQuote(kw)
	}
	return []scLeaf{{loc: loc, found: scDisplay(v), expected: "a value " + kw + " accepts"}}
}

// scAlternatives explains a failed anyOf/oneOf: the alternatives that
// rejected the value only for its type are set aside; if one alternative
// is left, its failures are given, if none, the types they take.
func scAlternatives(e *jsonschema.ValidationError, kw string, doc, v any, meta bool, depth int) []scLeaf {
	var near [][]scLeaf
	var wants []string
	for _, c := range e.Causes {
		ls := scExplainErr(c, doc, meta, depth+1)
		if len(ls) == 1 && ls[0].typeMiss && scSlicesEqual(ls[0].loc, e.InstanceLocation) {
			wants = append(wants, ls[0].expected)
			continue
		}
		near = append(near, ls)
	}
	switch {
	case len(near) == 1:
		return near[0]
	case len(near) == 0 && len(wants) > 0:
		return []scLeaf{{loc: e.InstanceLocation, found: scDisplay(v) + scTypeNote(v), expected: schemamsg.JoinOr(wants), typeMiss: true}}
	}
	return []scLeaf{{loc: e.InstanceLocation, found: scDisplay(v), expected: fmt.Sprintf("a value matching one of the %q alternatives", kw)}}
}

func scSlicesEqual(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// scJSONTypeOf is the JSON type of a plain value, "integer" for whole numbers.
func scJSONTypeOf(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		if r, ok := new(big.Rat).SetString(string(v)); ok && r.IsInt() {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "value"
}

func scSameType(a, b any) bool {
	ta, tb := scJSONTypeOf(a), scJSONTypeOf(b)
	if ta == "integer" {
		ta = "number"
	}
	if tb == "integer" {
		tb = "number"
	}
	return ta == tb
}

func scWithArticle(t string) string {
	switch t {
	case "null":
		return "null"
	case "array", "object", "integer":
		return "an " + t
	}
	return "a " + t
}

// scTypeNote is " (a string)" for scalars; arrays and objects are already
// described by scDisplay.
func scTypeNote(v any) string {
	switch v.(type) {
	case []any, map[string]any, nil:
		return ""
	}
	return " (" + scWithArticle(scJSONTypeOf(v)) + ")"
}

func scWantTypes(want []string) string {
	w := append([]string(nil), want...)
	sort.Strings(w)
	if len(w) == 2 && w[0] == "boolean" && w[1] == "object" {
		return "a schema (an object or boolean)"
	}
	for i, t := range w {
		w[i] = scWithArticle(t)
	}
	return schemamsg.JoinOr(w)
}

func scOneOf(want []any, meta bool) string {
	if len(want) == 1 {
		return scDisplay(want[0])
	}
	parts := make([]string, len(want))
	for i, w := range want {
		if s, ok := w.(string); ok && meta {
			parts[i] = s
		} else {
			parts[i] = scDisplay(w)
		}
	}
	return "one of " + strings.Join(parts, ", ")
}

// scDisplay shows a value briefly: scalars as JSON, arrays and objects as
// "an array"/"an object" when long.
func scDisplay(v any) string {
	switch x := v.(type) {
	case string:
		return scQuote(x)
	case nil:
		return "null"
	case []any:
		if s := scCompactJSON(x); len(s) <= 40 {
			return s + " (an array)"
		}
		return "an array"
	case map[string]any:
		if s := scCompactJSON(x); len(s) <= 40 {
			return s + " (an object)"
		}
		return "an object"
	}
	return scCompactJSON(v)
}

func scCompactJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// scDescribeNode shows a node's value for a message: `"x" (a string)`, `true`.
func scDescribeNode(n *item.Node) string {
	v := scNodeValue(n)
	if n.Kind == item.BoolNode {
		return scDisplay(v)
	}
	return scDisplay(v) + scTypeNote(v)
}

// scQuote is a double-quoted, escaped, shortened string.
func scQuote(s string) string {
	const most = 60
	if len(s) > most {
		cut := most
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		return strconv.Quote(s[:cut] + "…")
	}
	return strconv.Quote(s)
}

func scQuoteList(what string, names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = scQuote(n)
	}
	if len(names) != 1 {
		what = schemamsg.PluralWord(what)
	}
	return what + " " + strings.Join(q, ", ")
}

// scOneLine keeps a message on one line without a trailing period.
func scOneLine(s string) string {
	s = strings.TrimSpace(strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s))
	if strings.HasSuffix(s, ".") && !strings.HasSuffix(s, "..") {
		s = s[:len(s)-1]
	}
	return s
}
