// Package executor runs RYE items only after verifying them (spec 3).
//
// Prepare builds the chain (package chain), verifies every element as it
// is read (each file is read once, and the verified bytes are the bytes
// that run: TOCTOU-safe), validates the chain, decides whether an anchor
// applies, collects and verifies verify_deps files and runtime libraries,
// checks the lockfile and reads the parameters against the verified
// schema. Run resolves the environment (spec 3.5) and an applied anchor's
// env_paths, renders the templates (3.6), materialises the verified bytes
// into a private run folder and calls a primitive
// (package executor/prim). Directives and knowledge entries are verified
// and returned, directive inputs interpolated; rye thread hands a
// directive to an installed thread runner.
//
// Every side effect (clock, run folder, HTTP client, start hook) is a field
// of Executor, so tests observe what would run without running it.
package executor
