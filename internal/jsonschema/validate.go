package jsonschema

import (
	"maps"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Validate validates a plain value (map[string]any, []any, string,
// json.Number or another number type, bool, nil) against the schema. A
// value the schema rejects comes back as a *ValidationError whose Kind is
// *Root.
func (s *Schema) Validate(v any) error {
	if err := s.validateTop(v, nil); err != nil {
		return err
	}
	return nil
}

// validateMeta checks a schema (the value at base of a document whose
// resources are given) against a meta-schema.
func validateMeta(meta *Schema, v any, resources map[string]*resource, base string) *ValidationError {
	return meta.validateTop(v, &metaState{sch: meta, resources: resources, base: base})
}

// A metaState is what the validator needs while it checks a schema
// against a meta-schema: a schema with an $id and its own "$schema"
// inside the one checked is checked against its own draft's meta-schema.
type metaState struct {
	sch       *Schema              // the meta-schema in force
	resources map[string]*resource // of the document checked, by JSON pointer
	base      string               // JSON pointer of the value checked in its document
}

func (s *Schema) validateTop(v any, m *metaState) *ValidationError {
	vd := validator{v: v, vloc: make([]string, 0, 8), sch: s, scp: &scope{sch: s}, meta: m}
	vd.ue = unevalFrom(v, s, false)
	err := vd.validate()
	if err == nil {
		return nil
	}
	causes := []*ValidationError{err}
	if _, ok := err.Kind.(*Group); ok {
		causes = err.Causes
	}
	return &ValidationError{SchemaLocation: s.loc, Kind: &Root{Location: s.loc}, Causes: causes}
}

// A validator applies one schema to one value. quick: only whether the
// value is valid matters (inside "not", "if", a "oneOf" already matched),
// so it stops at the first failure and words none.
type validator struct {
	v     any
	vloc  []string
	sch   *Schema
	scp   *scope
	ue    uneval
	errs  []*ValidationError
	quick bool
	meta  *metaState
}

// A scope is the chain of schemas applied to reach the current one: the
// dynamic scope $recursiveRef and $dynamicRef resolve in, and what finds
// references that loop without moving to a value below.
type scope struct {
	sch    *Schema
	refKw  string // the reference keyword that led here, if one did
	vid    int    // depth of the value: equal along a chain that stays on one value
	parent *scope
}

func (sc *scope) cycle() *scope {
	for p := sc.parent; p != nil && p.vid == sc.vid; p = p.parent {
		if p.sch == sc.sch {
			return p
		}
	}
	return nil
}

// kwLoc is the keyword path from the first schema to this one.
func (sc *scope) kwLoc() string {
	loc := ""
	for ; sc.parent != nil; sc = sc.parent {
		if sc.refKw != "" {
			loc = "/" + escape(sc.refKw) + loc
		} else if cur, par := sc.sch.loc, sc.parent.sch.loc; strings.HasPrefix(cur, par) {
			loc = cur[len(par):] + loc
		} else {
			loc = cur + loc
		}
	}
	return loc
}

func (vd *validator) validate() *ValidationError {
	s := vd.sch
	if s.boolean != nil {
		if *s.boolean {
			return nil
		}
		return vd.error(&FalseSchema{})
	}
	if c := vd.scp.cycle(); c != nil {
		return vd.error(&RefCycle{Target: s.loc, Location1: vd.scp.kwLoc(), Location2: c.kwLoc()})
	}
	t := typeOf(vd.v)
	if t == 0 || (t == numberType && !finite(vd.v)) {
		return vd.error(&InvalidValue{Value: vd.v})
	}
	if s.types != 0 && s.types&t == 0 && (s.types&integerType == 0 || t != numberType || !isInteger(vd.v)) {
		return vd.error(&Type{Got: t.String(), Want: s.types.names()})
	}
	if s.hasConst && !equal(vd.v, s.constant) {
		return vd.error(&Const{Got: vd.v, Want: s.constant})
	}
	if s.hasEnum && (s.enumTypes&t == 0 || !slices.ContainsFunc(s.enum, func(w any) bool { return equal(vd.v, w) })) {
		return vd.error(&Enum{Got: vd.v, Want: s.enum})
	}
	if s.format != nil {
		if err := s.format.check(vd.v); err != nil {
			return vd.error(&Format{Got: vd.v, Want: s.format.name, Err: err})
		}
	}
	if s.ref != nil {
		err := vd.validateRef(s.ref, "$ref")
		if s.version < 2019 {
			return err // the other keywords are ignored
		}
		vd.addErr(err)
	}
	switch x := vd.v.(type) {
	case map[string]any:
		vd.object(x)
	case []any:
		vd.array(x)
	case string:
		vd.str(x)
	case nil, bool:
	default:
		vd.num()
	}
	if len(vd.errs) == 0 || !vd.quick {
		if s.version >= 2019 {
			vd.dynamicRefs()
		}
		vd.conditions()
		if s.version >= 2019 {
			vd.unevaluated()
		}
	}
	switch len(vd.errs) {
	case 0:
		return nil
	case 1:
		return vd.errs[0]
	}
	e := vd.error(&Group{})
	e.Causes = vd.errs
	return e
}

func (vd *validator) object(obj map[string]any) {
	s := vd.sch
	if s.minProperties >= 0 && len(obj) < s.minProperties {
		vd.addError(&MinProperties{Got: len(obj), Want: s.minProperties})
	}
	if s.maxProperties >= 0 && len(obj) > s.maxProperties {
		vd.addError(&MaxProperties{Got: len(obj), Want: s.maxProperties})
	}
	if missing := vd.missing(obj, s.required); missing != nil {
		vd.addError(&Required{Missing: missing})
	}
	if vd.quick && len(vd.errs) > 0 {
		return
	}
	for _, dep := range s.dependencies {
		if _, ok := obj[dep.name]; !ok {
			continue
		}
		if dep.sch != nil {
			vd.addErr(vd.validateSelf(dep.sch, "", false))
		} else if missing := vd.missing(obj, dep.required); missing != nil {
			vd.addError(&Dependency{Prop: dep.name, Missing: missing})
		}
	}
	var names []string
	if len(s.properties) > 0 || len(s.patternProperties) > 0 || s.hasAdditional || s.propertyNames != nil {
		names = sortedKeys(obj)
	}
	var additional []string
	for _, name := range names {
		if vd.quick && len(vd.errs) > 0 {
			return
		}
		pv := obj[name]
		evaluated := false
		if sch, ok := s.properties[name]; ok {
			evaluated = true
			vd.addErr(vd.validateVal(sch, pv, name))
		}
		for _, pp := range s.patternProperties {
			if pp.re.MatchString(name) {
				evaluated = true
				vd.addErr(vd.validateVal(pp.sch, pv, name))
			}
		}
		if !evaluated && s.hasAdditional {
			evaluated = true
			if s.additionalFalse {
				additional = append(additional, name)
			} else if s.additionalSchema != nil {
				vd.addErr(vd.validateVal(s.additionalSchema, pv, name))
			}
		}
		if evaluated {
			delete(vd.ue.props, name)
		}
	}
	if len(additional) > 0 {
		vd.addError(&AdditionalProperties{Properties: additional})
	}
	if s.propertyNames != nil {
		for _, name := range names {
			sch, m := s.propertyNames, vd.meta
			if m != nil {
				// A name is no place in the document: no resource starts there.
				m = &metaState{sch: m.sch}
			}
			if err := sch.validateTop(name, m); err != nil {
				err.SchemaLocation = sch.loc
				err.InstanceLocation = slices.Clone(vd.vloc)
				err.Kind = &PropertyNames{Property: name}
				vd.addErr(err)
			}
		}
	}
	for _, ds := range s.dependentSchemas {
		if _, ok := obj[ds.name]; ok {
			vd.addErr(vd.validateSelf(ds.sch, "", false))
		}
	}
	for _, dep := range s.dependentRequired {
		if _, ok := obj[dep.name]; ok {
			if missing := vd.missing(obj, dep.required); missing != nil {
				vd.addError(&DependentRequired{Prop: dep.name, Missing: missing})
			}
		}
	}
}

func (vd *validator) array(arr []any) {
	s := vd.sch
	if s.minItems >= 0 && len(arr) < s.minItems {
		vd.addError(&MinItems{Got: len(arr), Want: s.minItems})
	}
	if s.maxItems >= 0 && len(arr) > s.maxItems {
		vd.addError(&MaxItems{Got: len(arr), Want: s.maxItems})
	}
	if s.uniqueItems && len(arr) > 1 {
		if j, i := duplicates(arr); i >= 0 {
			vd.addError(&UniqueItems{Duplicates: [2]int{j, i}})
		}
	}
	if s.version < 2020 {
		evaluated := 0
		if s.items != nil {
			for i, it := range arr {
				vd.addErr(vd.validateVal(s.items, it, strconv.Itoa(i)))
			}
			evaluated = len(arr)
		} else if s.hasItemsList {
			evaluated = min(len(arr), len(s.itemsList))
			for i, it := range arr[:evaluated] {
				vd.addErr(vd.validateVal(s.itemsList[i], it, strconv.Itoa(i)))
			}
		}
		if s.additionalItemsFalse && evaluated != len(arr) {
			vd.addError(&AdditionalItems{Count: len(arr) - evaluated})
		} else if s.additionalItemsSchema != nil {
			for i := evaluated; i < len(arr); i++ {
				vd.addErr(vd.validateVal(s.additionalItemsSchema, arr[i], strconv.Itoa(i)))
			}
		}
	} else {
		n := min(len(arr), len(s.prefixItems))
		for i, it := range arr[:n] {
			vd.addErr(vd.validateVal(s.prefixItems[i], it, strconv.Itoa(i)))
		}
		if s.items2020 != nil {
			for i := n; i < len(arr); i++ {
				vd.addErr(vd.validateVal(s.items2020, arr[i], strconv.Itoa(i)))
			}
		}
	}
	if s.contains != nil {
		var errs []*ValidationError
		var matched []int
		for i, it := range arr {
			if err := vd.validateVal(s.contains, it, strconv.Itoa(i)); err != nil {
				errs = append(errs, err)
			} else {
				matched = append(matched, i)
				if s.version >= 2020 {
					delete(vd.ue.items, i)
				}
			}
		}
		if s.minContains >= 0 {
			if len(matched) < s.minContains {
				vd.addErrors(errs, &MinContains{Got: matched, Want: s.minContains})
			}
		} else if len(matched) == 0 {
			vd.addErrors(errs, &Contains{})
		}
		if s.maxContains >= 0 && len(matched) > s.maxContains {
			vd.addError(&MaxContains{Got: matched, Want: s.maxContains})
		}
	}
}

func (vd *validator) str(str string) {
	s := vd.sch
	if s.minLength >= 0 || s.maxLength >= 0 {
		n := utf8.RuneCountInString(str)
		if s.minLength >= 0 && n < s.minLength {
			vd.addError(&MinLength{Got: n, Want: s.minLength})
		}
		if s.maxLength >= 0 && n > s.maxLength {
			vd.addError(&MaxLength{Got: n, Want: s.maxLength})
		}
	}
	if s.pattern != nil && !s.pattern.MatchString(str) {
		vd.addError(&Pattern{Got: str, Want: s.pattern.String()})
	}
}

func (vd *validator) num() {
	s := vd.sch
	if s.minimum == nil && s.maximum == nil && s.exclusiveMinimum == nil && s.exclusiveMaximum == nil && s.multipleOf == nil {
		return
	}
	v := vd.v
	var r *big.Rat
	rat := func() *big.Rat {
		if r == nil {
			r, _ = ratOf(v)
		}
		return r
	}
	if s.minimum != nil && compare(v, s.minimum) < 0 {
		vd.addError(&Minimum{Got: rat(), Want: s.minimum.rat})
	}
	if s.maximum != nil && compare(v, s.maximum) > 0 {
		vd.addError(&Maximum{Got: rat(), Want: s.maximum.rat})
	}
	if s.exclusiveMinimum != nil && compare(v, s.exclusiveMinimum) <= 0 {
		vd.addError(&ExclusiveMinimum{Got: rat(), Want: s.exclusiveMinimum.rat})
	}
	if s.exclusiveMaximum != nil && compare(v, s.exclusiveMaximum) >= 0 {
		vd.addError(&ExclusiveMaximum{Got: rat(), Want: s.exclusiveMaximum.rat})
	}
	if m := s.multipleOf; m != nil && m.rat.Sign() != 0 {
		var ok bool
		if i, isInt := asInt64(v); isInt && m.isInt {
			ok = i%m.i == 0
		} else {
			ok = new(big.Rat).Quo(rat(), m.rat).IsInt()
		}
		if !ok {
			vd.addError(&MultipleOf{Got: rat(), Want: m.rat})
		}
	}
}

// compare compares a (finite) number with a bound.
func compare(v any, n *number) int {
	if n.isInt {
		if i, ok := asInt64(v); ok {
			switch {
			case i < n.i:
				return -1
			case i > n.i:
				return 1
			}
			return 0
		}
	}
	r, _ := ratOf(v)
	return r.Cmp(n.rat)
}

func finite(v any) bool {
	switch x := v.(type) {
	case float64:
		return !math.IsInf(x, 0) && !math.IsNaN(x)
	case float32:
		return !math.IsInf(float64(x), 0) && !math.IsNaN(float64(x))
	}
	return true // integers, and json.Number (JSON has no infinity)
}

func (vd *validator) conditions() {
	s := vd.sch
	if s.not != nil && vd.validateSelf(s.not, "", true) == nil {
		vd.addError(&Not{})
	}
	if len(s.allOf) > 0 {
		var errs []*ValidationError
		for _, sch := range s.allOf {
			if err := vd.validateSelf(sch, "", false); err != nil {
				errs = append(errs, err)
				if vd.quick {
					break
				}
			}
		}
		if len(errs) > 0 {
			vd.addErrors(errs, &AllOf{})
		}
	}
	if len(s.anyOf) > 0 {
		matched := false
		var errs []*ValidationError
		for _, sch := range s.anyOf {
			if err := vd.validateSelf(sch, "", false); err != nil {
				errs = append(errs, err)
			} else {
				matched = true
				if vd.ue.isEmpty() { // else every alternative counts for what is evaluated
					break
				}
			}
		}
		if !matched {
			vd.addErrors(errs, &AnyOf{})
		}
	}
	if len(s.oneOf) > 0 {
		matched := -1
		var errs []*ValidationError
		for i, sch := range s.oneOf {
			if err := vd.validateSelf(sch, "", matched != -1); err != nil {
				if matched == -1 {
					errs = append(errs, err)
				}
			} else if matched == -1 {
				matched = i
			} else {
				vd.addError(&OneOf{Matched: []int{matched, i}})
				break
			}
		}
		if matched == -1 {
			vd.addErrors(errs, &OneOf{})
		}
	}
	if s.ifSchema != nil {
		if vd.validateSelf(s.ifSchema, "", true) == nil {
			if s.thenSchema != nil {
				vd.addErr(vd.validateSelf(s.thenSchema, "", false))
			}
		} else if s.elseSchema != nil {
			vd.addErr(vd.validateSelf(s.elseSchema, "", false))
		}
	}
}

func (vd *validator) unevaluated() {
	s := vd.sch
	if obj, ok := vd.v.(map[string]any); ok && s.unevaluatedProperties != nil {
		for _, name := range slices.Sorted(maps.Keys(vd.ue.props)) {
			if pv, ok := obj[name]; ok {
				vd.addErr(vd.validateVal(s.unevaluatedProperties, pv, name))
			}
		}
		vd.ue.props = nil
	}
	if arr, ok := vd.v.([]any); ok && s.unevaluatedItems != nil {
		for _, i := range slices.Sorted(maps.Keys(vd.ue.items)) {
			vd.addErr(vd.validateVal(s.unevaluatedItems, arr[i], strconv.Itoa(i)))
		}
		vd.ue.items = nil
	}
}

// dynamicRefs applies $recursiveRef and $dynamicRef, which resolve in the
// dynamic scope: to the outermost schema met that has the anchor.
func (vd *validator) dynamicRefs() {
	s := vd.sch
	if sch := s.recursiveRef; sch != nil {
		if sch.recursiveAnchor {
			for sc := vd.scp; sc != nil; sc = sc.parent {
				if sc.sch.resource.recursiveAnchor {
					sch = sc.sch
				}
			}
		}
		vd.addErr(vd.validateRef(sch, "$recursiveRef"))
	}
	if sch := s.dynamicRef; sch != nil {
		if name := s.dynamicRefName; name != "" && sch.dynamicAnchor == name {
			for sc := vd.scp; sc != nil; sc = sc.parent {
				if d, ok := sc.sch.resource.dynamicAnchors[name]; ok {
					sch = d
				}
			}
		}
		vd.addErr(vd.validateRef(sch, "$dynamicRef"))
	}
}

// validateSelf applies another schema to the same value; what it
// evaluates counts for this schema when it passes.
func (vd *validator) validateSelf(sch *Schema, refKw string, quick bool) *ValidationError {
	sub := validator{v: vd.v, vloc: vd.vloc, sch: sch, scp: &scope{sch, refKw, vd.scp.vid, vd.scp}, quick: vd.quick || quick, meta: vd.meta}
	sub.ue = unevalFrom(vd.v, sch, !vd.ue.isEmpty())
	sub.switchMeta()
	err := sub.validate()
	if err == nil {
		vd.ue.merge(&sub.ue)
	}
	return err
}

// validateVal applies a schema to a value below this one (tok is its key
// or index).
func (vd *validator) validateVal(sch *Schema, v any, tok string) *ValidationError {
	sub := validator{v: v, vloc: append(vd.vloc, tok), sch: sch, scp: &scope{sch, "", vd.scp.vid + 1, vd.scp}, quick: vd.quick, meta: vd.meta}
	sub.ue = unevalFrom(v, sch, false)
	sub.switchMeta()
	return sub.validate()
}

// switchMeta: where the meta-schema is about to be applied to a schema
// that starts a resource of another draft, that draft's meta-schema is
// applied instead.
func (vd *validator) switchMeta() {
	m := vd.meta
	if m == nil || vd.sch != m.sch || len(m.resources) <= 1 { // the document alone: no resource starts below it
		return
	}
	res := m.resources[m.base+pointer(vd.vloc)]
	if res == nil {
		return
	}
	ms, err := metaSchema(res.draft)
	if err != nil {
		return
	}
	vd.meta = &metaState{sch: ms, resources: m.resources, base: m.base}
	vd.sch = ms
}

// validateRef applies the schema a reference keyword resolved to; its
// failure is a Reference holding why.
func (vd *validator) validateRef(sch *Schema, kw string) *ValidationError {
	err := vd.validateSelf(sch, kw, false)
	if err == nil {
		return nil
	}
	r := vd.error(&Reference{Ref: kw, Target: sch.loc})
	if _, ok := err.Kind.(*Group); ok {
		r.Causes = err.Causes
	} else {
		r.Causes = []*ValidationError{err}
	}
	return r
}

func (vd *validator) error(k ErrorKind) *ValidationError {
	if vd.quick {
		return &ValidationError{}
	}
	return &ValidationError{SchemaLocation: vd.sch.loc, InstanceLocation: slices.Clone(vd.vloc), Kind: k}
}

func (vd *validator) addErr(err *ValidationError) {
	if err != nil {
		vd.errs = append(vd.errs, err)
	}
}

func (vd *validator) addError(k ErrorKind) { vd.errs = append(vd.errs, vd.error(k)) }

func (vd *validator) addErrors(causes []*ValidationError, k ErrorKind) {
	e := vd.error(k)
	e.Causes = causes
	vd.errs = append(vd.errs, e)
}

// missing are the names not in obj (nil when none is missing).
func (vd *validator) missing(obj map[string]any, names []string) []string {
	var out []string
	for _, n := range names {
		if _, ok := obj[n]; !ok {
			if vd.quick {
				return []string{}
			}
			out = append(out, n)
		}
	}
	return out
}

// An uneval is what of a value no keyword has evaluated yet, for
// "unevaluatedProperties" and "unevaluatedItems". Nil maps: nothing is
// left (or nothing is tracked).
type uneval struct {
	props map[string]struct{}
	items map[int]struct{}
}

// unevalFrom starts the tracking for a schema applied to a value, when
// the schema or its caller needs it.
func unevalFrom(v any, s *Schema, callerNeeds bool) uneval {
	var ue uneval
	switch x := v.(type) {
	case map[string]any:
		if !s.allPropsEvaluated && (callerNeeds || s.unevaluatedProperties != nil) {
			ue.props = make(map[string]struct{}, len(x))
			for k := range x {
				ue.props[k] = struct{}{}
			}
		}
	case []any:
		if !s.allItemsEvaluated && (callerNeeds || s.unevaluatedItems != nil) && s.numItemsEvaluated < len(x) {
			ue.items = map[int]struct{}{}
			for i := s.numItemsEvaluated; i < len(x); i++ {
				ue.items[i] = struct{}{}
			}
		}
	}
	return ue
}

// merge keeps unevaluated only what other left unevaluated too.
func (ue *uneval) merge(other *uneval) {
	for k := range ue.props {
		if _, ok := other.props[k]; !ok {
			delete(ue.props, k)
		}
	}
	for i := range ue.items {
		if _, ok := other.items[i]; !ok {
			delete(ue.items, i)
		}
	}
}

func (ue *uneval) isEmpty() bool { return len(ue.props) == 0 && len(ue.items) == 0 }
