// Package verify decides whether items may be used.
//
// Check is a pure function of a signed object's bytes, the trust store and
// the policy, ordered by spec 2.6, with the fix in every reason; items,
// bundle manifests and the executor's chain elements all go through it.
// The trust store merges the project, user and system tiers (spec 2.5),
// the project's from the working tree, a git commit (trustAtRef, for CI)
// or the index (trustInIndex, for pre-commit). The Verifier checks many
// items in parallel, with an optional verdict cache. Run is the whole
// pipeline (select, git, trust, verify) that rye verify, rye check, lint
// and the MCP server share.
package verify
