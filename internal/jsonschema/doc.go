// Package jsonschema is the JSON Schema validator of tools' parameter
// schemas: drafts 2020-12 (the default), 2019-09 and draft-07, every
// keyword as the official test suite has them, with the meta-schemas of
// the three drafts embedded so that a schema is checked before it is
// used. It loads nothing from files or the network, and does nothing at
// package initialisation: a process that never validates pays nothing,
// and the first validation compiles the one meta-schema it needs.
//
// It replaces github.com/santhosh-tekuri/jsonschema/v6, which compiled
// the meta-schemas of five drafts in its package init (3 ms of every rye
// process), and keeps its verdicts and the shape of its errors: rye's
// messages (internal/paramschema's Explain) are built from the error tree
// (ValidationError, its ErrorKind), which is why the kinds and what each
// container holds follow the former library's. Where the former library
// put a failure at the wrong place in the value (the items after
// "prefixItems", the "additionalItems" of a draft-07 schema, a
// "propertyNames" failure below the top), this one gives the right one.
//
// "format" asserts in draft-07 and is an annotation in 2019-09 and
// 2020-12, as each draft says by default; the meta-schemas are applied
// with format assertions on in every draft ("$ref" must be a URI
// reference, "pattern" a regular expression Go compiles).
package jsonschema
