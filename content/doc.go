// Package content judges what an item says, from its bytes alone: the
// checks a reviewer cannot do by eye, offline and deterministically.
//
// A signature says who approved an item, not what it says. The attacks on
// that approval go through the reviewer: instructions in Unicode tag
// characters (invisible in every editor and diff, read by every model), a
// right-to-left override that makes code read differently from how it
// runs, a Cyrillic letter in a tool's parameter name, an HTML comment that
// tells the agent not to tell the user, a shell tool whose last line is
// curl … | sh, a Python tool that execs a downloaded string, a live cloud
// key. The rules here find those, each with its id, severity and position.
//
// The package is below both sign and lint: signing runs the per-file rules
// so that a signature never vouches for bytes the signer was not shown,
// and lint runs them as analyzers (with the rule that compares items with
// each other, confusable ids, which needs every item and lives in lint).
// Everything here is a pure function of one file's bytes (and its parsed
// metadata, when the caller has it): no file system, no network, no state
// between calls, and no work at package initialisation (patterns are
// compiled on first use).
//
// A file is parsed once for every rule that needs it (File.parse): Python
// on item/python's tokens, shell with mvdan.cc/sh's parser (shell tools,
// fenced shell blocks of Markdown items, the command lines of YAML and
// TOML tools), Markdown with a small scanner of its own (fenced blocks,
// HTML comments, inline code, links). Where each rule applies (which
// kinds, which parts of a file) was chosen from measurements on the
// corpus in internal/corpus and testdata/, and is written down in
// docs/lint.md.
package content
