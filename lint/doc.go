// Package lint checks RYE items offline with analyzers in the shape of
// golang.org/x/tools/go/analysis: each is an *analysis.Analyzer with a
// name, documentation and URL, reporting diagnostics with positions and
// suggested fixes. Item files are the passes' OtherFiles, registered once
// in one token.FileSet, and the analyzers share the parsed items through
// Requires and ResultOf. No stock driver reads non-Go files, so this
// package has its own small one (driver.go).
//
// Check is rye check's pipeline: the verify pipeline, then the analyzers
// over the very bytes it verified, with verification findings that no lint
// setting can soften.
package lint
