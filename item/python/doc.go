// Package python reads the metadata of a Python tool without running it
// (spec 1.5): a tokenizer for the whole language (strings, f-strings,
// numbers, indentation), and an evaluator of module-level literals that
// accepts what ast.literal_eval accepts, plus names of earlier literals.
//
// Running a file to learn its metadata would run code that nobody has
// verified yet; this package never does. It is tested on every Python file
// on the machine and fuzzed.
package python
