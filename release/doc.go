// Package release makes, checks and installs release bundles (spec 5.2):
// a namespace's signed items in one deterministic .tar.gz with a signed
// manifest. Reading an archive never touches the disk; the manifest and
// every item are verified by verify.Check; installing writes only after
// everything verified, through a staging directory, and undoes itself
// when a step fails.
package release
