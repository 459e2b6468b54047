package jsonschema

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	santhosh "github.com/santhosh-tekuri/jsonschema/v6"
)

// suiteURL is where each suite schema is placed, as rye places a tool's
// schema (internal/paramschema.BaseURL).
const suiteURL = "mem://rye/param-schema.json"

// suiteDir is the official JSON Schema test suite's directory of a
// draft, as github.com/google/jsonschema-go (in rye's module graph
// through the MCP SDK) ships it; rye keeps no copy of the suite.
func suiteDir(t *testing.T, draft string) string {
	t.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		goCmd = filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	}
	out, err := exec.Command(goCmd, "list", "-m", "-f", "{{.Dir}}", "github.com/google/jsonschema-go").Output()
	dir := strings.TrimSpace(string(out))
	if err != nil || dir == "" {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			err = errors.New(strings.TrimSpace(string(ee.Stderr)))
		}
		t.Fatalf("the JSON Schema test suite comes with github.com/google/jsonschema-go, whose module directory `go list -m` does not give (%v): run `go mod download github.com/google/jsonschema-go`", err)
	}
	d := filepath.Join(dir, "jsonschema", "testdata", draft)
	if st, err := os.Stat(d); err != nil || !st.IsDir() {
		t.Fatalf("the JSON Schema test suite is not at %s (%v): the module github.com/google/jsonschema-go changed its layout", d, err)
	}
	return d
}

type suiteGroup struct {
	Description string `json:"description"`
	Schema      any    `json:"schema"`
	Tests       []struct {
		Description string `json:"description"`
		Data        any    `json:"data"`
		Valid       bool   `json:"valid"`
	} `json:"tests"`
}

func readSuite(t *testing.T, dir string) map[string][]suiteGroup {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no test files in %s (%v)", dir, err)
	}
	out := map[string][]suiteGroup{}
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		d := json.NewDecoder(fh)
		d.UseNumber()
		var groups []suiteGroup
		err = d.Decode(&groups)
		fh.Close()
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[filepath.Base(f)] = groups
	}
	return out
}

// TestSuite runs every case of the official test suite's draft2020-12 and
// draft7 directories with this validator and with the one rye used
// before (configured as rye configured it: nothing loaded), and fails
// when a case fails here that passed there, or fails for any reason but a
// reference to a document rye does not load. The cases neither passes are
// exactly those that need the suite's remote documents
// (http://localhost:1234/..., in refRemote.json and dynamicRef.json):
// 44 of 1099 in draft2020-12, 23 of 913 in draft7.
func TestSuite(t *testing.T) {
	for _, tc := range []struct {
		dir   string
		draft *draft
		old   *santhosh.Draft
	}{
		{"draft2020-12", Draft2020, santhosh.Draft2020},
		{"draft7", draft7, santhosh.Draft7},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			suite := readSuite(t, suiteDir(t, tc.dir))
			var total, pass, oldPass int
			var failHere, failOld []string
			for _, file := range slices.Sorted(func(yield func(string) bool) {
				for k := range suite {
					if !yield(k) {
						return
					}
				}
			}) {
				for _, g := range suite[file] {
					doc, err := Compile(suiteURL, g.Schema, tc.draft)
					oc := santhosh.NewCompiler()
					oc.UseLoader(nil)
					oc.DefaultDraft(tc.old)
					var osch *santhosh.Schema
					oerr := oc.AddResource(suiteURL, g.Schema)
					if oerr == nil {
						osch, oerr = oc.Compile(suiteURL)
					}
					for _, c := range g.Tests {
						total++
						name := file + ": " + g.Description + ": " + c.Description
						if err == nil && (doc.Schema().Validate(c.Data) == nil) == c.Valid {
							pass++
						} else {
							if !errors.As(err, new(*NotLoadedError)) {
								t.Errorf("%s: fails for another reason than a document rye does not load: %v", name, err)
							}
							why := "valid"
							if !c.Valid {
								why = "invalid"
							}
							if err != nil {
								why = err.Error()
							}
							failHere = append(failHere, name+" (want "+why+")")
						}
						if oerr == nil && (osch.Validate(c.Data) == nil) == c.Valid {
							oldPass++
						} else {
							failOld = append(failOld, name)
						}
					}
				}
			}
			t.Logf("%s: %d of %d cases pass (the former validator: %d)", tc.dir, pass, total, oldPass)
			for _, f := range failHere {
				if !slices.Contains(failOld, strings.SplitN(f, " (want ", 2)[0]) {
					t.Errorf("fails here, passed before: %s", f)
				} else {
					t.Logf("fails here and before: %s", f)
				}
			}
			for _, f := range failOld {
				if !slices.ContainsFunc(failHere, func(s string) bool { return strings.HasPrefix(s, f+" (want ") }) {
					t.Logf("passes here, failed before: %s", f)
				}
			}
		})
	}
}
