package bundle

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
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

var embeddedDigest = sync.OnceValue(func() string {
	h := sha256.New()
	_ = fs.WalkDir(systemFiles, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := systemFiles.ReadFile(p)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", p, len(data))
		h.Write(data)
		return nil
	})
	return hex.EncodeToString(h.Sum(nil))
})

// EmbeddedDigest identifies the contents of the embedded bundle, so that
// caches built from one rye binary are not trusted by another.
func EmbeddedDigest() string { return embeddedDigest() }
