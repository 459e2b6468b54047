package jsonschema

// The keywords the compiler reads, by index: an object's keywords are
// found in one pass over its keys (keywords lets the compiler test and
// read each one without hashing its name again).
const (
	kwRef = iota
	kwRecursiveRef
	kwRecursiveAnchor
	kwDynamicRef
	kwDynamicAnchor
	kwAllOf
	kwAnyOf
	kwOneOf
	kwNot
	kwItems
	kwAdditionalItems
	kwProperties
	kwPatternProperties
	kwAdditionalProperties
	kwDependencies
	kwType
	kwEnum
	kwMultipleOf
	kwMaximum
	kwExclusiveMaximum
	kwMinimum
	kwExclusiveMinimum
	kwMinLength
	kwMaxLength
	kwPattern
	kwMinItems
	kwMaxItems
	kwUniqueItems
	kwMinProperties
	kwMaxProperties
	kwRequired
	kwFormat
	kwContains
	kwPropertyNames
	kwConst
	kwIf
	kwThen
	kwElse
	kwMinContains
	kwMaxContains
	kwDependentRequired
	kwDependentSchemas
	kwUnevaluatedItems
	kwUnevaluatedProperties
	kwPrefixItems
	kwDefinitions
	kwDefs
	kwContentSchema
	kwSchema
	kwID
	kwAnchor
	numKeywords
)

// keywordNames are the keywords' names, by index.
var keywordNames = [numKeywords]string{
	kwDefinitions:           "definitions",
	kwDefs:                  "$defs",
	kwContentSchema:         "contentSchema",
	kwSchema:                "$schema",
	kwID:                    "$id",
	kwAnchor:                "$anchor",
	kwRef:                   "$ref",
	kwRecursiveRef:          "$recursiveRef",
	kwRecursiveAnchor:       "$recursiveAnchor",
	kwDynamicRef:            "$dynamicRef",
	kwDynamicAnchor:         "$dynamicAnchor",
	kwAllOf:                 "allOf",
	kwAnyOf:                 "anyOf",
	kwOneOf:                 "oneOf",
	kwNot:                   "not",
	kwItems:                 "items",
	kwAdditionalItems:       "additionalItems",
	kwProperties:            "properties",
	kwPatternProperties:     "patternProperties",
	kwAdditionalProperties:  "additionalProperties",
	kwDependencies:          "dependencies",
	kwType:                  "type",
	kwEnum:                  "enum",
	kwMultipleOf:            "multipleOf",
	kwMaximum:               "maximum",
	kwExclusiveMaximum:      "exclusiveMaximum",
	kwMinimum:               "minimum",
	kwExclusiveMinimum:      "exclusiveMinimum",
	kwMinLength:             "minLength",
	kwMaxLength:             "maxLength",
	kwPattern:               "pattern",
	kwMinItems:              "minItems",
	kwMaxItems:              "maxItems",
	kwUniqueItems:           "uniqueItems",
	kwMinProperties:         "minProperties",
	kwMaxProperties:         "maxProperties",
	kwRequired:              "required",
	kwFormat:                "format",
	kwContains:              "contains",
	kwPropertyNames:         "propertyNames",
	kwConst:                 "const",
	kwIf:                    "if",
	kwThen:                  "then",
	kwElse:                  "else",
	kwMinContains:           "minContains",
	kwMaxContains:           "maxContains",
	kwDependentRequired:     "dependentRequired",
	kwDependentSchemas:      "dependentSchemas",
	kwUnevaluatedItems:      "unevaluatedItems",
	kwUnevaluatedProperties: "unevaluatedProperties",
	kwPrefixItems:           "prefixItems",
}

// keywordIndex is the index of a keyword the compiler reads, or -1.
func keywordIndex(name string) int {
	switch name {
	case "definitions":
		return kwDefinitions
	case "$defs":
		return kwDefs
	case "contentSchema":
		return kwContentSchema
	case "$schema":
		return kwSchema
	case "$id":
		return kwID
	case "$anchor":
		return kwAnchor
	case "$ref":
		return kwRef
	case "$recursiveRef":
		return kwRecursiveRef
	case "$recursiveAnchor":
		return kwRecursiveAnchor
	case "$dynamicRef":
		return kwDynamicRef
	case "$dynamicAnchor":
		return kwDynamicAnchor
	case "allOf":
		return kwAllOf
	case "anyOf":
		return kwAnyOf
	case "oneOf":
		return kwOneOf
	case "not":
		return kwNot
	case "items":
		return kwItems
	case "additionalItems":
		return kwAdditionalItems
	case "properties":
		return kwProperties
	case "patternProperties":
		return kwPatternProperties
	case "additionalProperties":
		return kwAdditionalProperties
	case "dependencies":
		return kwDependencies
	case "type":
		return kwType
	case "enum":
		return kwEnum
	case "multipleOf":
		return kwMultipleOf
	case "maximum":
		return kwMaximum
	case "exclusiveMaximum":
		return kwExclusiveMaximum
	case "minimum":
		return kwMinimum
	case "exclusiveMinimum":
		return kwExclusiveMinimum
	case "minLength":
		return kwMinLength
	case "maxLength":
		return kwMaxLength
	case "pattern":
		return kwPattern
	case "minItems":
		return kwMinItems
	case "maxItems":
		return kwMaxItems
	case "uniqueItems":
		return kwUniqueItems
	case "minProperties":
		return kwMinProperties
	case "maxProperties":
		return kwMaxProperties
	case "required":
		return kwRequired
	case "format":
		return kwFormat
	case "contains":
		return kwContains
	case "propertyNames":
		return kwPropertyNames
	case "const":
		return kwConst
	case "if":
		return kwIf
	case "then":
		return kwThen
	case "else":
		return kwElse
	case "minContains":
		return kwMinContains
	case "maxContains":
		return kwMaxContains
	case "dependentRequired":
		return kwDependentRequired
	case "dependentSchemas":
		return kwDependentSchemas
	case "unevaluatedItems":
		return kwUnevaluatedItems
	case "unevaluatedProperties":
		return kwUnevaluatedProperties
	case "prefixItems":
		return kwPrefixItems
	}
	return -1
}

// keywords are the keywords of one schema object the compiler reads.
type keywords struct {
	has  uint64 // bit i: keyword i is present
	vals [numKeywords]any
}

func (kw *keywords) read(obj map[string]any) {
	for k, v := range obj {
		if i := keywordIndex(k); i >= 0 {
			kw.has |= 1 << i
			kw.vals[i] = v
		}
	}
}

// get is keyword i's value, and whether it is present.
func (kw *keywords) get(i int) (any, bool) {
	if kw.has&(1<<i) == 0 {
		return nil, false
	}
	return kw.vals[i], true
}
