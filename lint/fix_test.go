package lint

import (
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"
)

// A fix after which the item breaks another rule is never applied, even
// when an analyzer offered it: the rule engine checks every fixed file. A
// fix that is safe on the same file still is.
func TestApplyFixesRejectsAFixThatBreaksAnotherRule(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, ".ai/tools/ops/deploy.yaml"), "version: 1.0\ntool_type: yaml\nexecutor_id: rye/core/runtimes/shell_runtime\ncategory: ops\ndescription: Deploy\n")
	env := testEnv(t, dir)
	res, err := lint(env, options{Analyzers: []*analysis.Analyzer{metadata}, Fixes: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Fixable) != 1 {
		t.Fatalf("%d fixable diagnostics, want the version's", len(res.Fixable))
	}
	f := env.Files[0]
	// A second diagnostic whose fix writes a category that does not match
	// the folder: the rule engine rejects it.
	at := f.tok.Pos(strings.Index(string(f.Src), "ops"))
	bad := diagnostic{Analyzer: metadata, Diagnostic: analysis.Diagnostic{Pos: at, Category: "error:test",
		SuggestedFixes: []analysis.SuggestedFix{replaceFix("set category to \"elsewhere\"", at, at+token.Pos(len("ops")), `"elsewhere"`)}}}
	res.Fixable = append(res.Fixable, bad)
	fixed, skipped := applyFixes(res)
	if len(fixed) != 1 || len(fixed[0].Applied) != 1 || !strings.Contains(string(fixed[0].New), `version: "1.0.0"`) || !strings.Contains(string(fixed[0].New), "category: ops") {
		t.Fatalf("fixed %+v", fixed)
	}
	if len(skipped) != 1 || skipped[0].Rule != "metadata/fix-rejected" || !strings.Contains(skipped[0].Message, `expected the folder path "ops"`) {
		t.Fatalf("skipped %+v", skipped)
	}
}

// Diff's output applies with git apply, also to a file that ends without a
// newline, from the repository's root.
func TestDiffAppliesWithGitApply(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git to apply the diff with")
	}
	dir := t.TempDir()
	old := "a\nb\nversion: 1.0\nc\nd\ne\nf\ng\nh\ni\nj\nk\ncategory: x"
	new := "a\nb\nversion: \"1.0.0\"\nc\nd\ne\nf\ng\nh\ni\nj\nk\ncategory: \"ops\""
	writeFile(t, filepath.Join(dir, "sub/.ai/tools/t.yaml"), old)
	d := Diff("sub/.ai/tools/t.yaml", []byte(old), []byte(new))
	if strings.Count(d, "@@ -") != 2 || strings.Count(d, `\ No newline at end of file`) != 2 {
		t.Errorf("diff:\n%s", d)
	}
	writeFile(t, filepath.Join(dir, "fix.patch"), d)
	for _, args := range [][]string{{"init", "-q"}, {"apply", "--check", "fix.patch"}, {"apply", "fix.patch"}} {
		cmd := exec.Command(git, args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s\n%s", args, err, out, d)
		}
	}
	got, _ := os.ReadFile(filepath.Join(dir, "sub/.ai/tools/t.yaml"))
	if string(got) != new {
		t.Errorf("applied:\n%q\nwant\n%q", got, new)
	}
	if Diff("x", []byte("same"), []byte("same")) != "" {
		t.Error("a diff of equal files")
	}
}

func writeFile(t *testing.T, name, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Progress counts the analyzers of a run, requirements included.
func TestLintProgress(t *testing.T) {
	env := testEnv(t, t.TempDir())
	var seen []int
	total := 0
	if _, err := lint(env, options{Analyzers: []*analysis.Analyzer{metadata}, Progress: func(done, n int) { seen = append(seen, done); total = n }}); err != nil {
		t.Fatal(err)
	}
	if total != 2 || len(seen) != 2 || seen[1] != 2 { // parse, then metadata
		t.Errorf("progress %v of %d", seen, total)
	}
}
