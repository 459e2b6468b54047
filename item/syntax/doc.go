// Package syntax is what every metadata reader returns: the Node tree of
// plain values (string, number, boolean, null, list, map) with the Pos of
// each value and key, the LineIndex that turns byte offsets into lines
// and columns, and the positioned Error with its fix.
//
// It depends on nothing, so that the readers (item, item/python), the
// schema machinery and the analyzers share one representation.
package syntax
