package executor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ryekit/rye/chain"
	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/space"
)

// outsideFixture is a project whose tool's package holds a file the run
// was not given (names.csv) and one it was (util.py), and the run folder
// that holds the tool and util.py only.
func outsideFixture(t testing.TB) (*runDir, *chain.Element, *runFiles) {
	root := t.TempDir()
	for _, rel := range []string{"tools/acme/pkg/tool.py", "tools/acme/pkg/util.py", "tools/acme/pkg/names.csv", "tools/acme/pkg/config/x.yaml", "tools/acme/other.py"} {
		p := filepath.Join(root, ".ai", filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("x\n"), 0o644)
	}
	sp := space.NewDiskSpace(space.Project, root, "")
	rd, err := newRunDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"tools/acme/pkg/tool.py", "tools/acme/pkg/util.py"} {
		if err := rd.write(rd.itemPath(rel), []byte("x\n"), 0o400); err != nil {
			t.Fatal(err)
		}
	}
	tool := &chain.Element{Loc: &space.Located{Space: sp, Kind: item.Tool, ID: "acme/pkg/tool", Rel: "tools/acme/pkg/tool.py"}}
	rf := &runFiles{anchorRel: "tools/acme/pkg", selected: selection{owner: "rt", base: "tools/acme/pkg", exts: []string{".py"}, exclude: []string{"config"}, recursive: true}}
	return rd, tool, rf
}

// A file of the project that the run was not given is named, with why;
// one it was given, or one the project does not have, is the tool's own
// business.
func TestExplainMissing(t *testing.T) {
	rd, tool, rf := outsideFixture(t)
	in := func(rel string) string { return rd.itemPath(rel) }
	for _, c := range []struct{ stderr, want string }{
		{"FileNotFoundError: [Errno 2] No such file or directory: '" + in("tools/acme/pkg/names.csv") + "'", "names.csv, which rye did not give to the run: a .csv file cannot carry a signature line"},
		{"Error: ENOENT: no such file or directory, open '" + in("tools/acme/pkg/config/x.yaml") + "'", "x.yaml, which rye did not give to the run: it is in a config/ folder, which the verify_deps of rt excludes"},
		{"No such file or directory: '" + in("tools/acme/other.py") + "'", "it is outside tools/acme/pkg/, the folder that the verify_deps of rt verifies"},
		{"ModuleNotFoundError: No module named 'nothere'", ""},
		{"No such file or directory: '" + in("tools/acme/pkg/util.py") + "'", ""},
		{"No such file or directory: '/etc/nothing'", ""},
	} {
		got := rd.explainMissing(tool, rf, map[string]any{"stderr": c.stderr})
		if c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("%q:\n%s\nwant %q", c.stderr, got, c.want)
		}
	}
}

// Whatever a tool prints, explaining it never fails, and names only a file
// the project has and the run lacks.
func FuzzExplainMissing(f *testing.F) {
	rd, tool, rf := outsideFixture(f)
	f.Add("No such file or directory: '" + rd.itemPath("tools/acme/pkg/names.csv") + "'")
	f.Add("ENOENT: no such file or directory, open '" + rd.itemPath("tools/acme/pkg/config/x.yaml") + "'")
	f.Add("No module named 'a.b'")
	f.Add("No such file or directory: '" + rd.root + "/../x'")
	f.Fuzz(func(t *testing.T, stderr string) {
		got := rd.explainMissing(tool, rf, map[string]any{"stderr": stderr})
		if got != "" && !strings.Contains(got, "names.csv") && !strings.Contains(got, "x.yaml") && !strings.Contains(got, "other.py") {
			t.Fatalf("names a file the run has, or the project lacks: %s", got)
		}
	})
}
