package lint

import (
	"crypto/sha256"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"

	"github.com/ryekit/rye/verify"
)

// TestCheckRefusesBytesOtherThanVerified: rye check reads each item again
// for lint; bytes that are not those verification judged (the file changed
// in between) are an error, never linted as if they had been verified.
func TestCheckRefusesBytesOtherThanVerified(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, ".ai/tools/ops/deploy.yaml"), "version: \"1.0.0\"\n")
	e := testEnv(t, dir)
	f := e.Files[0]
	verified := sha256.Sum256([]byte("what verification read"))
	src := verify.Source{Path: f.Name, In: f.Space, Rel: f.Rel, Kind: f.Kind, ID: f.ID, Read: f.read}
	files := filesOf([]verify.Source{src}, [][32]byte{verified})
	res, err := Lint(&Env{Files: files, Spaces: e.Spaces, Extractors: e.Extractors}, Options{Analyzers: []*analysis.Analyzer{Parse}})
	if err != nil {
		t.Fatal(err)
	}
	if got := renderFindings(res.Findings); !strings.Contains(got, "error: cannot read it: it changed while rye check ran") {
		t.Errorf("findings:\n%s", got)
	}
	// The verified bytes themselves are linted as usual.
	data, _ := f.read()
	files = filesOf([]verify.Source{src}, [][32]byte{sha256.Sum256(data)})
	if res, err = Lint(&Env{Files: files, Spaces: e.Spaces, Extractors: e.Extractors}, Options{Analyzers: []*analysis.Analyzer{Parse}}); err != nil || len(res.Findings) != 0 {
		t.Errorf("the verified bytes: %v %v", renderFindings(res.Findings), err)
	}
}
