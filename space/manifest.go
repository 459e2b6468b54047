package space

//go:generate go test -run TestSystemManifestFresh -update .

// EmbeddedHash returns the SHA-256 (hex) that the generated manifest
// records for a file of the embedded bundle (rel is relative to its .ai/
// directory, like Located.Rel). The manifest is what lockfiles pin for
// system elements, and the executor refuses an embedded element whose bytes
// do not match it: a binary built from a tree whose manifest was not
// regenerated fails closed instead of running unreviewed bytes.
func EmbeddedHash(rel string) (string, bool) {
	h, ok := systemManifest[rel]
	return h, ok
}
