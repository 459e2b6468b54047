package lint

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ryekit/rye/internal/vectors"
	"github.com/ryekit/rye/report"
	"github.com/ryekit/rye/space"
	"github.com/ryekit/rye/verify"
)

// ryeosLintCase is a file case of vectors-ryeos02 with its lint outcome.
type ryeosLintCase struct {
	Name       string   `json:"name"`
	Path       string   `json:"path"`
	File       string   `json:"file"`
	Trust      []string `json:"trust"`
	Expect     string   `json:"expect"`
	ExtraFiles []struct {
		Path string `json:"path"`
		File string `json:"file"`
	} `json:"extra_files"`
	Lint struct {
		Rejects bool     `json:"ryeos_rejects"`
		Errors  []string `json:"errors"`
		Advice  []string `json:"advice"`
	} `json:"lint"`
}

// ryeosLintProject writes a case into a new project; ryeos adds node/,
// which makes it a ryeOS 0.2+ tree.
func ryeosLintProject(t *testing.T, c ryeosLintCase, ryeos bool) *space.Spaces {
	t.Helper()
	dir, root := vectors.RyeOS02Dir(), t.TempDir()
	copyFile := func(from, to string) {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(from)))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(root, filepath.FromSlash(to))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	copyFile(c.File, c.Path)
	for _, x := range c.ExtraFiles {
		copyFile(x.File, x.Path)
	}
	for _, tr := range c.Trust {
		entries, _ := os.ReadDir(filepath.Join(dir, tr))
		for _, e := range entries {
			copyFile(tr+"/"+e.Name(), ".ai/config/keys/trusted/"+e.Name())
		}
	}
	if ryeos {
		// A node/ folder shows a ryeOS 0.2+ tree when it holds a node item.
		os.MkdirAll(filepath.Join(root, ".ai", "node"), 0o755)
		os.WriteFile(filepath.Join(root, ".ai", "node", "marker.yaml"), []byte("{}\n"), 0o644)
	}
	return &space.Spaces{Project: space.NewDiskSpace(space.Project, root, ""), System: []*space.Space{space.EmbeddedSpace()}, WorkDir: root}
}

// lintCase lints a case's project (with its trust store) and returns its
// findings about the case's file.
func lintCase(t *testing.T, c ryeosLintCase, ryeos bool) []report.Finding {
	t.Helper()
	ss := ryeosLintProject(t, c, ryeos)
	ts, _, err := verify.LoadTrust(ss, verify.TrustOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Project(ProjectRequest{Spaces: ss, WorkDir: ss.WorkDir, Trust: ts})
	if err != nil {
		t.Fatal(err)
	}
	var out []report.Finding
	for _, f := range res.Findings {
		if strings.HasSuffix(filepath.ToSlash(f.Path), c.Path) {
			out = append(out, f)
		}
	}
	return out
}

// Every file case of spec 7's vectors, linted in a ryeOS 0.2+ project:
// the ryeos analyzer's errors are exactly what ryeOS refuses, its advice
// exactly the vectors' advice (never an error), and no other analyzer
// reports anything but the signature analyzer's warning on what the
// ryeos format leaves unsigned: no February rule reaches a 0.2+ item.
// The same files in a project of rye's layout (their signature or form
// makes them 0.2+ items) give the same errors.
func TestRyeOSLintVectors(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(vectors.RyeOS02Dir(), "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Cases []ryeosLintCase `json:"cases"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Cases) != 49 {
		t.Fatalf("%d cases", len(doc.Cases))
	}
	for _, c := range doc.Cases {
		t.Run(c.Name, func(t *testing.T) {
			findings := lintCase(t, c, true)
			var errs, advice []string
			for _, f := range findings {
				code, ours := strings.CutPrefix(f.Rule, "ryeos/")
				switch {
				case ours && strings.HasPrefix(code, "advice/"):
					if f.Severity == report.Error {
						t.Errorf("advice as an error: %s", f.Message)
					}
					if !slices.Contains(advice, code) {
						advice = append(advice, code)
					}
				case ours && f.Severity == report.Error:
					errs = append(errs, code)
				case f.Rule == "signature/ryeos" && f.Severity == report.Warning:
					// rye's own: what the format leaves unsigned (verify's warning)
				default:
					t.Errorf("a finding of another analyzer: %s: %s: %s [%s]", f.Path, f.Severity, f.Message, f.Rule)
				}
			}
			if len(errs) > 0 != c.Lint.Rejects || !sameSet(errs, c.Lint.Errors) {
				t.Errorf("errors %v, want %v (%v)", errs, c.Lint.Errors, findings)
			}
			if !sameSet(advice, c.Lint.Advice) {
				t.Errorf("advice %v, want %v (%v)", advice, c.Lint.Advice, findings)
			}
			if strings.HasPrefix(c.Path, ".ai/directives/") || strings.HasPrefix(c.Path, ".ai/knowledge/") || strings.HasPrefix(c.Path, ".ai/tools/") && !strings.HasSuffix(c.Path, ".json") && !strings.Contains(c.Path, "/lib/") {
				var febErrs []string
				for _, f := range lintCase(t, c, false) {
					if f.Severity == report.Error {
						febErrs = append(febErrs, strings.TrimPrefix(f.Rule, "ryeos/"))
					}
				}
				if !sameSet(febErrs, c.Lint.Errors) {
					t.Errorf("in rye's layout: errors %v, want %v", febErrs, c.Lint.Errors)
				}
			}
		})
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	a, b = slices.Compact(a), slices.Compact(b)
	return len(a) == len(b) && (len(a) == 0 || reflect.DeepEqual(a, b))
}

// Advice stays below an error even when the settings raise the analyzer.
func TestRyeOSAdviceNeverAnError(t *testing.T) {
	c := ryeosLintCase{Path: ".ai/knowledge/future/idea.md", File: "files/blank/kn-no-frontmatter/idea.md"}
	ss := ryeosLintProject(t, c, true)
	res, err := Project(ProjectRequest{Spaces: ss, WorkDir: ss.WorkDir, Options: options{Severity: map[string]string{"ryeos": "error"}}})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range res.Findings {
		if f.Rule == "ryeos/advice/knowledge-missing-frontmatter" {
			found = true
			if f.Severity == report.Error {
				t.Errorf("advice raised to an error: %+v", f)
			}
		}
	}
	if !found {
		t.Errorf("no advice: %v", res.Findings)
	}
}
