// Package layering holds no code: its test keeps the import table of
// ARCHITECTURE.md true. Every rye package may import only the rye packages
// below it in that table, so the layers read as a straight line and no
// import runs back up.
package layering
