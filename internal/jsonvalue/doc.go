// Package jsonvalue is the one way the executor reads and writes the plain
// values it passes around (parameters, tool output, HTTP bodies, template
// values): Decode reads exactly one JSON value with exact integers, Text
// writes a value as a command-line argument or variable, Marshal writes
// compact JSON without HTML escaping. One copy keeps every primitive and
// template agreeing on what a value looks like.
package jsonvalue
