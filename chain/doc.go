// Package chain builds and validates executor chains (spec 3.1-3.3): the
// links from a tool through its runtimes to a primitive, resolved through
// the spaces the way the executor resolves them, and the offline checks
// of a chain (spaces, element types, version constraints, placeholders,
// inputs and outputs), and the declarations that say which other files a
// run needs: the RYE OS runtimes' anchor: block, verify_deps and the
// library behind {runtime_lib} (spec 6.6), read once here so that lint
// reports exactly what the executor would refuse.
//
// It is its own package because two callers need exactly the same chain:
// lint, which must not import the executor, and the executor, which
// verifies each element as chain.Build reads it.
package chain
