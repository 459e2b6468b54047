// Package item is the model of a RYE item: its Kind, its ID, the Item
// (bytes and where they came from), and the metadata readers of every file
// form (spec 1.4-1.6): a directive's XML block, knowledge front matter and
// fences, Python tools (through item/python), YAML, TOML, and the comment
// headers of JS, TS and shell tools. Every value carries its position
// (item/syntax), so that lint, sign and verify can say where a problem is.
//
// It also holds the rule engine (spec 1.7) that checks metadata against
// the extractor rule files of the system bundle.
package item
