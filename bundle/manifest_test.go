package bundle

import (
	"bytes"
	"flag"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite system_manifest.go from the embedded bundle")

// The manifest must describe exactly the embedded files: a file added,
// removed or edited without `go generate ./bundle` fails here.
func TestSystemManifestFresh(t *testing.T) {
	got, err := manifestOf(EmbeddedSpace().FS())
	if err != nil {
		t.Fatal(err)
	}
	src, err := manifestSource(got)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile("system_manifest.go", src, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	onDisk, err := os.ReadFile("system_manifest.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(onDisk, src) {
		t.Errorf("system_manifest.go is stale: run go generate ./bundle")
	}
	for p, h := range got {
		if m, ok := EmbeddedHash(p); !ok || m != h {
			t.Errorf("%s: manifest %q, embedded file hashes to %s: run go generate ./bundle", p, m, h)
		}
	}
	if len(systemManifest) != len(got) {
		t.Errorf("manifest lists %d files, the bundle has %d: run go generate ./bundle", len(systemManifest), len(got))
	}
}

func TestManifestDetectsChange(t *testing.T) {
	m, err := manifestOf(EmbeddedSpace().FS())
	if err != nil {
		t.Fatal(err)
	}
	a, _ := manifestSource(m)
	for p := range m {
		m[p] = "00"
		break
	}
	b, _ := manifestSource(m)
	if bytes.Equal(a, b) {
		t.Error("a changed hash gives the same manifest source")
	}
}
