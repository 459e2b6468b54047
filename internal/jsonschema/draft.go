package jsonschema

import (
	"slices"
	"strings"
)

// A Draft is a JSON Schema specification version: which keywords a
// schema has and what its "$schema" names.
type draft struct {
	version       int
	url           string     // of its meta-schema, as "$schema" writes it
	subschemas    []position // where a schema object holds subschemas
	defaultVocabs []string   // the vocabularies in force (2019-09 and later)
}

// The drafts rye reads. Draft 2020-12 is the default (a schema without
// "$schema"); draft-07 and 2019-09 are honoured when "$schema" names them.
var (
	draft7 = &draft{
		version: 7,
		url:     "http://json-schema.org/draft-07/schema#",
		subschemas: []position{
			{kwDefinitions, inMap}, {kwNot, single}, {kwAllOf, inList}, {kwAnyOf, inList}, {kwOneOf, inList},
			{kwProperties, inMap}, {kwAdditionalProperties, single}, {kwPatternProperties, inMap},
			{kwItems, single}, {kwItems, inList}, {kwAdditionalItems, single}, {kwDependencies, inMap},
			{kwPropertyNames, single}, {kwContains, single},
			{kwIf, single}, {kwThen, single}, {kwElse, single},
		},
	}
	draft2019 = &draft{
		version: 2019,
		url:     "https://json-schema.org/draft/2019-09/schema",
		subschemas: []position{
			{kwDefinitions, inMap}, {kwNot, single}, {kwAllOf, inList}, {kwAnyOf, inList}, {kwOneOf, inList},
			{kwProperties, inMap}, {kwAdditionalProperties, single}, {kwPatternProperties, inMap},
			{kwItems, single}, {kwItems, inList}, {kwAdditionalItems, single}, {kwDependencies, inMap},
			{kwPropertyNames, single}, {kwContains, single},
			{kwIf, single}, {kwThen, single}, {kwElse, single},
			{kwDefs, inMap}, {kwDependentSchemas, inMap}, {kwUnevaluatedProperties, single},
			{kwUnevaluatedItems, single}, {kwContentSchema, single},
		},
		defaultVocabs: []string{"core", "applicator", "validation"},
	}
	Draft2020 = &draft{
		version: 2020,
		url:     "https://json-schema.org/draft/2020-12/schema",
		subschemas: []position{
			{kwDefinitions, inMap}, {kwNot, single}, {kwAllOf, inList}, {kwAnyOf, inList}, {kwOneOf, inList},
			{kwProperties, inMap}, {kwAdditionalProperties, single}, {kwPatternProperties, inMap},
			{kwItems, single}, {kwItems, inList}, {kwAdditionalItems, single}, {kwDependencies, inMap},
			{kwPropertyNames, single}, {kwContains, single},
			{kwIf, single}, {kwThen, single}, {kwElse, single},
			{kwDefs, inMap}, {kwDependentSchemas, inMap}, {kwUnevaluatedProperties, single},
			{kwUnevaluatedItems, single}, {kwContentSchema, single},
			{kwPrefixItems, inList},
		},
		defaultVocabs: []string{"core", "applicator", "unevaluated", "validation"},
	}
)

// String is the URL of the draft's meta-schema.
func (d *draft) String() string { return d.url }

// hasVocab says whether the keywords of a vocabulary are in force: all of
// them before 2019-09, the default ones (not format assertion, content or
// meta-data, which are annotations) after.
func (d *draft) hasVocab(name string) bool {
	return d.version < 2019 || slices.Contains(d.defaultVocabs, name)
}

// assertsFormat says whether "format" is an assertion: in draft-07 it is;
// in 2019-09 and 2020-12 it is an annotation unless the compiler asserts
// formats (as the meta-schemas are applied).
func (d *draft) assertsFormat(always bool) bool { return always || d.version < 2019 }

// idKeyword is the keyword that gives a schema its base URI.
func idKeyword(version int) string {
	if version == 4 {
		return "id"
	}
	return "$id"
}

// draftOf reads a "$schema" value: the draft it names (nil for none rye
// supports) and the version of a draft it knows but does not support (4
// and 6), which still decides which keyword is the $id.
func draftOf(s string) (d *draft, version int) {
	u, frag := split(s)
	if frag != "" {
		return nil, 0
	}
	if rest, ok := strings.CutPrefix(u, "http://"); ok {
		u = rest
	} else {
		u = strings.TrimPrefix(u, "https://")
	}
	switch u {
	case "json-schema.org/schema", "json-schema.org/draft/2020-12/schema":
		return Draft2020, 2020
	case "json-schema.org/draft/2019-09/schema":
		return draft2019, 2019
	case "json-schema.org/draft-07/schema":
		return draft7, 7
	case "json-schema.org/draft-06/schema":
		return nil, 6
	case "json-schema.org/draft-04/schema":
		return nil, 4
	}
	return nil, 0
}

// getID is the base URI a schema object sets, without its fragment ("" for
// none). Before 2019-09 an object with "$ref" sets none: its other
// keywords are ignored.
func getID(obj map[string]any, version int) string {
	if version < 2019 {
		if _, ok := obj["$ref"]; ok {
			return ""
		}
	}
	id, ok := obj[idKeyword(version)].(string)
	if !ok {
		return ""
	}
	id, _ = split(id)
	return id
}

// A position is where a schema keeps subschemas: the value of a keyword,
// the values of an object keyword, the items of a list keyword.
type position struct {
	kw    int // index in keywordNames
	shape int
}

const (
	single = iota
	inMap
	inList
)
