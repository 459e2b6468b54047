package space

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"maps"
	"slices"
	"sync"
)

// systemFiles is the system bundle compiled into the binary (spec 5.1): the
// primitives, runtimes and extractor rule files. Its items are trusted
// because they are part of rye itself.
//
//go:embed all:system/.ai
var systemFiles embed.FS

// EmbeddedSpace returns the embedded system bundle as a space.
func EmbeddedSpace() *Space {
	sub, err := fs.Sub(systemFiles, "system/"+AIDir)
	if err != nil {
		panic(err) // the path is a constant of this package
	}
	return &Space{Name: System, Label: "system", fsys: sub}
}

// digestOf hashes a manifest (path to SHA-256): its paths, sorted, each
// with its file's hash.
func digestOf(manifest map[string]string) string {
	h := sha256.New()
	for _, p := range slices.Sorted(maps.Keys(manifest)) {
		h.Write([]byte(p + "\x00" + manifest[p] + "\n"))
	}
	return hex.EncodeToString(h.Sum(nil))
}

var embeddedDigest = sync.OnceValue(func() string { return digestOf(systemManifest) })

// EmbeddedDigest identifies the contents of the embedded bundle, so that
// caches built from one rye binary are not trusted by another. It is
// derived from the generated manifest, which records every embedded file's
// hash (TestSystemManifestFresh keeps it true to the files).
func EmbeddedDigest() string { return embeddedDigest() }
