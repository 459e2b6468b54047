package jsonschema

import (
	"encoding/json"
	"maps"
	"math"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"sync"
)

// A Document is a schema document, checked against its draft's
// meta-schema and compiled. Its subschemas are compiled when asked for.
// It is safe for concurrent use.
type Document struct {
	mu   sync.Mutex
	c    *compiler
	url  string
	root *Schema
}

// Compile checks a schema document against the meta-schema of its draft
// (defaultDraft unless its "$schema" names another) and compiles it. The
// document is a plain JSON value (map[string]any, []any, string,
// json.Number or another number type, bool, nil); url is its base URI,
// against which its references resolve. Nothing is loaded: a reference
// resolves inside the document, or to one of the draft meta-schemas.
//
// The errors: *SchemaValidationError for a schema its meta-schema rejects
// (the document itself, or a place a reference names that is not a
// subschema), *NotLoadedError, *PointerNotFoundError,
// *InvalidPointerError, *AnchorNotFoundError for references that do not
// resolve, *DuplicateIDError, *DuplicateAnchorError, *InvalidRegexError,
// *ParseURLError, *UnsupportedDraftError.
func Compile(url string, doc any, defaultDraft *draft) (*Document, error) {
	c := newCompiler(false)
	if _, err := c.addRoot(url, doc, defaultDraft); err != nil {
		return nil, err
	}
	s, err := c.compile(url, "")
	if err != nil {
		return nil, err
	}
	return &Document{c: c, url: url, root: s}, nil
}

// Schema is the document's root schema.
func (d *Document) Schema() *Schema { return d.root }

// Subschema compiles the value at a JSON pointer (tokens) of the document
// as a schema in its place: its references resolve as they do there. A
// value that is not at a place the draft keeps subschemas is checked
// against the meta-schema first.
func (d *Document) Subschema(ptr []string) (*Schema, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.c.compile(d.url, pointer(ptr))
}

type compiler struct {
	registry     bool // the meta-schemas' own compiler (metaReg)
	assertFormat bool
	roots        map[string]*root
	schemas      map[schemaKey]*Schema
	bases        map[string]*baseURL // parsed, for join
}

type schemaKey struct{ url, ptr string }

func newCompiler(assertFormat bool) *compiler {
	return &compiler{assertFormat: assertFormat, roots: map[string]*root{}, schemas: map[schemaKey]*Schema{}, bases: map[string]*baseURL{}}
}

// addRoot records a document: its resources and anchors, then (unless it
// is a json-schema.org meta-schema) its check against its meta-schema.
func (c *compiler) addRoot(u string, doc any, defaultDraft *draft) (*root, error) {
	r := &root{url: u, doc: doc, resources: map[string]*resource{}, processed: map[string]bool{}}
	if err := c.collect(r, doc, u, "", defaultDraft); err != nil {
		return nil, err
	}
	if !isMetaURL(u) {
		if err := c.metaValidate(r, doc, ""); err != nil {
			return nil, err
		}
	}
	c.roots[u] = r
	return r, nil
}

// root is the document at a URL: one compiled already, or an embedded
// meta-schema. Nothing else is ever loaded.
func (c *compiler) root(u string) (*root, error) {
	if r := c.roots[u]; r != nil {
		return r, nil
	}
	doc, ok, err := loadMeta(u)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, &NotLoadedError{URL: u}
	}
	return c.addRoot(u, doc, Draft2020)
}

// metaValidate checks the value at ptr of a document against the
// meta-schema of the resource it is in.
func (c *compiler) metaValidate(r *root, v any, ptr string) error {
	meta, err := metaSchema(r.resource(ptr).draft)
	if err != nil {
		return err
	}
	if verr := validateMeta(meta, v, r.resources, ptr); verr != nil {
		return &SchemaValidationError{URL: location(r.url, ptr), Err: verr}
	}
	return nil
}

// ensureSubschema makes sure the value at ptr, about to be compiled, had
// its resources and anchors collected; one that had not (it is not at a
// place the draft keeps subschemas) is checked against the meta-schema.
func (c *compiler) ensureSubschema(r *root, ptr string) error {
	if r.processed[ptr] {
		return nil
	}
	v, err := lookup(r.doc, r.url, ptr)
	if err != nil {
		return err
	}
	rc := r.clone()
	res := rc.resource(ptr)
	if err := c.collect(rc, v, res.id, ptr, res.draft); err != nil {
		return err
	}
	// Even in a meta-schema document: a reference may name any place in
	// one. (The meta-schemas' own references all name subschemas: the
	// registry, which compiles them, never comes here.)
	if !c.registry {
		if err := c.metaValidate(rc, v, ptr); err != nil {
			return err
		}
	}
	c.roots[r.url] = rc
	return nil
}

// A queue is one compilation: the schemas met, compiled in order, kept
// only if all compile.
type queue struct {
	c       *compiler
	list    []*Schema
	pending map[schemaKey]*Schema
}

func (q *queue) enqueue(u, ptr string) *Schema {
	k := schemaKey{u, ptr}
	if s := q.c.schemas[k]; s != nil {
		return s
	}
	if s := q.pending[k]; s != nil {
		return s
	}
	s := &Schema{url: u, ptr: ptr, loc: location(u, ptr)}
	q.pending[k] = s
	q.list = append(q.list, s)
	return s
}

// compile compiles the schema at ptr of the document at u and every
// schema it leads to.
func (c *compiler) compile(u, ptr string) (*Schema, error) {
	if s := c.schemas[schemaKey{u, ptr}]; s != nil {
		return s, nil
	}
	if _, err := c.root(u); err != nil {
		return nil, err
	}
	q := &queue{c: c, pending: map[schemaKey]*Schema{}}
	q.enqueue(u, ptr)
	for i := 0; i < len(q.list); i++ {
		s := q.list[i]
		r, err := c.root(s.url)
		if err != nil {
			return nil, err
		}
		if err := c.ensureSubschema(r, s.ptr); err != nil {
			return nil, err
		}
		r = c.roots[s.url]
		v, err := lookup(r.doc, r.url, s.ptr)
		if err != nil {
			return nil, err
		}
		if err := c.compileValue(q, r, s, v); err != nil {
			return nil, err
		}
	}
	for _, s := range q.list {
		c.schemas[schemaKey{s.url, s.ptr}] = s
	}
	return c.schemas[schemaKey{u, ptr}], nil
}

func (c *compiler) compileValue(q *queue, r *root, s *Schema, v any) error {
	res := r.resource(s.ptr)
	s.version = res.draft.version
	s.resource = q.enqueue(r.url, res.ptr)
	s.minProperties, s.maxProperties = -1, -1
	s.minItems, s.maxItems, s.minContains, s.maxContains = -1, -1, -1, -1
	s.minLength, s.maxLength = -1, -1
	if s.version >= 2020 && s.ptr == res.ptr {
		for _, name := range slices.Sorted(maps.Keys(res.anchors)) {
			if slices.Contains(res.dynamicAnchors, name) {
				if s.dynamicAnchors == nil {
					s.dynamicAnchors = map[string]*Schema{}
				}
				s.dynamicAnchors[name] = q.enqueue(r.url, res.anchors[name])
			}
		}
	}
	switch v := v.(type) {
	case bool:
		s.boolean = &v
	case map[string]any:
		if len(v) == 0 {
			t := true
			s.boolean = &t
		} else {
			oc := objCompiler{c: c, q: q, r: r, res: res, s: s}
			oc.kw.read(v)
			if err := oc.compile(); err != nil {
				return err
			}
		}
	}
	s.allPropsEvaluated = s.hasAdditional
	if s.version < 2020 {
		s.allItemsEvaluated = s.hasAdditionalItems || s.items != nil
		if s.hasItemsList {
			s.numItemsEvaluated = len(s.itemsList)
		}
	} else {
		s.allItemsEvaluated = s.items2020 != nil
		s.numItemsEvaluated = len(s.prefixItems)
	}
	return nil
}

// An objCompiler compiles one schema object.
type objCompiler struct {
	c   *compiler
	q   *queue
	r   *root
	res *resource
	s   *Schema
	kw  keywords
}

func (oc *objCompiler) compile() error {
	s, d := oc.s, oc.res.draft
	var err error
	if s.ref, err = oc.ref(kwRef); err != nil {
		return err
	}
	// Before 2019-09 the keywords beside "$ref" are ignored; those of
	// draft-06 and draft-07 ("const", "contains", "propertyNames",
	// "if") were still compiled, and "const" checked, by the validator
	// rye used before this one: so they are here.
	if s.version >= 2019 || s.ref == nil {
		if err := oc.compileCore(d); err != nil {
			return err
		}
	}
	if d.hasVocab("applicator") {
		s.contains = oc.sub(kwContains)
		s.propertyNames = oc.sub(kwPropertyNames)
	}
	if d.hasVocab("validation") {
		if v, ok := oc.kw.get(kwConst); ok {
			s.hasConst, s.constant = true, v
		}
	}
	if d.hasVocab("applicator") {
		s.ifSchema = oc.sub(kwIf)
		if s.ifSchema != nil {
			b, isBool := oc.kwVal(kwIf).(bool)
			if !isBool || b {
				s.thenSchema = oc.sub(kwThen)
			}
			if !isBool || !b {
				s.elseSchema = oc.sub(kwElse)
			}
		}
	}
	if s.version >= 2019 {
		if s.recursiveRef, err = oc.ref(kwRecursiveRef); err != nil {
			return err
		}
		s.recursiveAnchor, _ = oc.kwVal(kwRecursiveAnchor).(bool)
		if d.hasVocab("validation") {
			if s.contains != nil {
				s.minContains = oc.intVal(kwMinContains)
				s.maxContains = oc.intVal(kwMaxContains)
			}
			if m, ok := oc.kwVal(kwDependentRequired).(map[string]any); ok {
				for _, k := range slices.Sorted(maps.Keys(m)) {
					if l, ok := m[k].([]any); ok {
						s.dependentRequired = append(s.dependentRequired, dependency{name: k, required: toStrings(l)})
					}
				}
			}
		}
		if d.hasVocab("applicator") {
			for _, k := range oc.mapKeys(kwDependentSchemas) {
				s.dependentSchemas = append(s.dependentSchemas, namedSchema{k, oc.at(kwDependentSchemas, k)})
			}
		}
		if (s.version == 2019 && d.hasVocab("applicator")) || (s.version >= 2020 && d.hasVocab("unevaluated")) {
			s.unevaluatedItems = oc.sub(kwUnevaluatedItems)
			s.unevaluatedProperties = oc.sub(kwUnevaluatedProperties)
		}
	}
	if s.version >= 2020 {
		if s.dynamicRef, err = oc.ref(kwDynamicRef); err != nil {
			return err
		}
		if s.dynamicRef != nil {
			_, frag, err := splitFragment(oc.kwVal(kwDynamicRef).(string))
			if err != nil {
				return err
			}
			if !isPointer(frag) {
				s.dynamicRefName = frag
			}
		}
		s.dynamicAnchor, _ = oc.kwVal(kwDynamicAnchor).(string)
		if d.hasVocab("applicator") {
			s.prefixItems = oc.list(kwPrefixItems)
			s.items2020 = oc.sub(kwItems)
		}
	}
	return nil
}

// compileCore compiles the keywords draft-04 had.
func (oc *objCompiler) compileCore(d *draft) error {
	s := oc.s
	if d.hasVocab("applicator") {
		s.allOf = oc.list(kwAllOf)
		s.anyOf = oc.list(kwAnyOf)
		s.oneOf = oc.list(kwOneOf)
		s.not = oc.sub(kwNot)
		if s.version < 2020 {
			if items, ok := oc.kw.get(kwItems); ok {
				if _, isList := items.([]any); isList {
					s.itemsList, s.hasItemsList = oc.list(kwItems), true
					s.hasAdditionalItems, s.additionalItemsFalse, s.additionalItemsSchema = oc.additional(kwAdditionalItems)
				} else {
					s.items = oc.sub(kwItems)
				}
			}
		}
		if ks := oc.mapKeys(kwProperties); ks != nil {
			s.properties = make(map[string]*Schema, len(ks))
			for _, k := range ks {
				s.properties[k] = oc.at(kwProperties, k)
			}
		}
		for _, k := range oc.mapKeys(kwPatternProperties) {
			re, err := regexp.Compile(k)
			if err != nil {
				return &InvalidRegexError{URL: location(oc.r.url, oc.s.ptr+"/patternProperties"), Regex: k, Err: err}
			}
			s.patternProperties = append(s.patternProperties, patternSchema{re, oc.at(kwPatternProperties, k)})
		}
		s.hasAdditional, s.additionalFalse, s.additionalSchema = oc.additional(kwAdditionalProperties)
		if m, ok := oc.kwVal(kwDependencies).(map[string]any); ok {
			for _, k := range slices.Sorted(maps.Keys(m)) {
				if l, ok := m[k].([]any); ok {
					s.dependencies = append(s.dependencies, dependency{name: k, required: toStrings(l)})
				} else {
					s.dependencies = append(s.dependencies, dependency{name: k, sch: oc.at(kwDependencies, k)})
				}
			}
		}
	}
	if d.hasVocab("validation") {
		if t, ok := oc.kw.get(kwType); ok {
			s.types = typesOf(t)
		}
		if l, ok := oc.kwVal(kwEnum).([]any); ok {
			s.hasEnum, s.enum = true, l
			for _, v := range l {
				s.enumTypes |= typeOf(v)
			}
		}
		s.multipleOf = oc.numVal(kwMultipleOf)
		s.maximum = oc.numVal(kwMaximum)
		if b, _ := oc.kwVal(kwExclusiveMaximum).(bool); b { // draft-04's form
			s.exclusiveMaximum, s.maximum = s.maximum, nil
		} else {
			s.exclusiveMaximum = oc.numVal(kwExclusiveMaximum)
		}
		s.minimum = oc.numVal(kwMinimum)
		if b, _ := oc.kwVal(kwExclusiveMinimum).(bool); b {
			s.exclusiveMinimum, s.minimum = s.minimum, nil
		} else {
			s.exclusiveMinimum = oc.numVal(kwExclusiveMinimum)
		}
		s.minLength = oc.intVal(kwMinLength)
		s.maxLength = oc.intVal(kwMaxLength)
		if p, ok := oc.kwVal(kwPattern).(string); ok {
			re, err := regexp.Compile(p)
			if err != nil {
				return &InvalidRegexError{URL: location(oc.r.url, oc.s.ptr+"/pattern"), Regex: p, Err: err}
			}
			s.pattern = re
		}
		s.minItems = oc.intVal(kwMinItems)
		s.maxItems = oc.intVal(kwMaxItems)
		s.uniqueItems, _ = oc.kwVal(kwUniqueItems).(bool)
		s.minProperties = oc.intVal(kwMinProperties)
		s.maxProperties = oc.intVal(kwMaxProperties)
		if l, ok := oc.kwVal(kwRequired).([]any); ok {
			s.required = toStrings(l)
		}
	}
	if d.assertsFormat(oc.c.assertFormat) {
		if f, ok := oc.kwVal(kwFormat).(string); ok {
			s.format = formatNamed(f)
		}
	}
	return nil
}

// ref compiles the schema a reference keyword names (nil when absent).
// kwVal is the value of keyword i (nil when absent).
func (oc *objCompiler) kwVal(i int) any { return oc.kw.vals[i] }

func (oc *objCompiler) ref(kw int) (*Schema, error) {
	ref, ok := oc.kwVal(kw).(string)
	if !ok {
		return nil, nil
	}
	u, frag, err := join(oc.c.bases, oc.res.id, ref)
	if err != nil {
		return nil, err
	}
	r := oc.r
	var res *resource
	if u == r.url {
		res = r.resources[""]
	} else {
		res = r.byID(u)
	}
	if res == nil { // another document
		if r, err = oc.c.root(u); err != nil {
			return nil, err
		}
		res = r.resources[""]
	}
	ptr, err := resolveFragment(r, res, frag)
	if err != nil {
		return nil, err
	}
	return oc.q.enqueue(r.url, ptr), nil
}

// resolveFragment is the JSON pointer a fragment names in a resource: a
// pointer relative to it, or one of its anchors.
func resolveFragment(r *root, res *resource, frag string) (string, error) {
	if isPointer(frag) {
		return res.ptr + frag, nil
	}
	ptr, ok := res.anchors[frag]
	if !ok {
		return "", &AnchorNotFoundError{URL: r.url, Reference: res.id + "#" + encode(frag)}
	}
	return ptr, nil
}

// sub is the subschema a keyword holds (nil when absent).
func (oc *objCompiler) sub(kw int) *Schema {
	if _, ok := oc.kw.get(kw); !ok {
		return nil
	}
	return oc.q.enqueue(oc.r.url, oc.s.ptr+"/"+keywordNames[kw])
}

// at is the subschema under a keyword's key.
func (oc *objCompiler) at(kw int, key string) *Schema {
	return oc.q.enqueue(oc.r.url, oc.s.ptr+"/"+keywordNames[kw]+"/"+escape(key))
}

// list is the subschemas a keyword lists (nil when not a list).
func (oc *objCompiler) list(kw int) []*Schema {
	l, ok := oc.kwVal(kw).([]any)
	if !ok {
		return nil
	}
	out := make([]*Schema, len(l))
	for i := range l {
		out[i] = oc.q.enqueue(oc.r.url, oc.s.ptr+"/"+keywordNames[kw]+"/"+strconv.Itoa(i))
	}
	return out
}

// mapKeys are the keys of an object keyword, sorted (nil when not an
// object).
func (oc *objCompiler) mapKeys(kw int) []string {
	m, ok := oc.kwVal(kw).(map[string]any)
	if !ok {
		return nil
	}
	return slices.Sorted(maps.Keys(m))
}

// additional reads "additionalProperties" or "additionalItems": whether
// it is present, whether it is false, and the schema it holds (nil for
// true and false).
func (oc *objCompiler) additional(kw int) (present, isFalse bool, sch *Schema) {
	v, ok := oc.kw.get(kw)
	if !ok {
		return false, false, nil
	}
	if b, isBool := v.(bool); isBool {
		return true, !b, nil
	}
	return true, false, oc.sub(kw)
}

func (oc *objCompiler) numVal(kw int) *number {
	r, ok := ratOf(oc.kwVal(kw))
	if !ok {
		return nil
	}
	return newNumber(r)
}

// intVal is a non-fractional number keyword as an int (-1 when absent or
// fractional); one beyond int's range is held at its bound.
func (oc *objCompiler) intVal(kw int) int {
	r, ok := ratOf(oc.kwVal(kw))
	if !ok || !r.IsInt() {
		return -1
	}
	n := r.Num()
	switch {
	case n.IsInt64() && n.Int64() <= math.MaxInt && n.Int64() >= math.MinInt:
		return int(n.Int64())
	case n.Sign() > 0:
		return math.MaxInt
	}
	return math.MinInt
}

func typesOf(v any) typeSet {
	var ts typeSet
	switch v := v.(type) {
	case string:
		ts = typeNamed(v)
	case []any:
		for _, it := range v {
			if s, ok := it.(string); ok {
				ts |= typeNamed(s)
			}
		}
	}
	return ts
}

func toStrings(l []any) []string {
	var out []string
	for _, it := range l {
		if s, ok := it.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// ratOf is a number's exact value; false for what is not a number (or not
// a finite one). A float is read as its shortest decimal form, so that
// 0.1 is 1/10 (as a schema author means it).
func ratOf(v any) (*big.Rat, bool) {
	switch x := v.(type) {
	case json.Number:
		return new(big.Rat).SetString(string(x))
	case int:
		return new(big.Rat).SetInt64(int64(x)), true
	case int8:
		return new(big.Rat).SetInt64(int64(x)), true
	case int16:
		return new(big.Rat).SetInt64(int64(x)), true
	case int32:
		return new(big.Rat).SetInt64(int64(x)), true
	case int64:
		return new(big.Rat).SetInt64(x), true
	case uint:
		return new(big.Rat).SetUint64(uint64(x)), true
	case uint8:
		return new(big.Rat).SetUint64(uint64(x)), true
	case uint16:
		return new(big.Rat).SetUint64(uint64(x)), true
	case uint32:
		return new(big.Rat).SetUint64(uint64(x)), true
	case uint64:
		return new(big.Rat).SetUint64(x), true
	case float32:
		if math.IsInf(float64(x), 0) || math.IsNaN(float64(x)) {
			return nil, false
		}
		return new(big.Rat).SetString(strconv.FormatFloat(float64(x), 'g', -1, 32))
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return nil, false
		}
		return new(big.Rat).SetString(strconv.FormatFloat(x, 'g', -1, 64))
	}
	return nil, false
}
