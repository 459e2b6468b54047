// Package layering holds no code: its test keeps the layering table of the
// repository's ARCHITECTURE.md true, reading it from that file so that the
// document and the check cannot drift apart.
//
// Every rye package may import only the rye packages its row names, each of
// which sits below it in the table, plus the floor (report, config and
// internal/...), which imports nothing above it but item/syntax; cmd/rye/cli
// may import everything below it. Every package of the module has a row,
// every row names packages that exist and imports the code really makes,
// executor/prim imports nothing of rye's but internal/jsonvalue, and no
// package shares its name with a standard-library package the module uses.
// So the layers read as a straight line, no import runs back up, and the
// table a newcomer reads is the one the build obeys.
package layering
