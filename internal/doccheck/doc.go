// Package doccheck holds no code: its test keeps the repository's
// documentation whole for a reader who has only the repository.
//
// A user who clones rye has no folder beside it, so no Markdown file may
// point at ../shared or at any other path outside the repository; every
// relative link must reach a file that exists, and a link to a heading
// (file.md#anchor) a heading that exists, by GitHub's anchor rules, which
// is how readers follow them. Code comments and documents cite the
// specification by section ("spec 2.6"); each such citation must name a
// numbered heading of docs/spec/, so that a reader can look it up and a
// renumbered section cannot leave comments pointing at nothing.
package doccheck
