// Package space knows where items live: the project, user and system
// spaces of spec 1.3, how an id resolves to a file in them (a fixed order
// of file forms), how a space is walked and selected from (ids, globs,
// file paths), and the system bundle embedded in the binary with the
// manifest that pins its bytes.
//
// Every read refuses symbolic links and files over MaxItemSize, so that
// nothing above it can be pointed outside .ai/ or made to read without
// bound.
package space
