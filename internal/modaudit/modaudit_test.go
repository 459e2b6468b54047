package modaudit

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestCompare(t *testing.T) {
	// Each version is before the next.
	order := []string{
		"v0.0.0-20150711004518-d14ea06fba99",
		"v0.0.0-20240726163527-a2c0da244d78",
		"v0.0.0",
		"v1.0.0-alpha",
		"v1.0.0-alpha.1",
		"v1.0.0-alpha.beta",
		"v1.0.0-beta",
		"v1.0.0-beta.2",
		"v1.0.0-beta.11",
		"v1.0.0-rc.1",
		"v1.0.0",
		"v1.3.2-0.20230802210424-5b0b94c5c0d3",
		"v1.3.2",
		"v2.0.0+incompatible",
		"v5.16.3",
		"v5.16.5",
		"v5.17.1",
		"v5.19.3",
		"v10.0.0",
	}
	for i := range order {
		for j := range order {
			got, err := compare(order[i], order[j])
			if err != nil {
				t.Fatal(err)
			}
			if want := sign(i - j); got != want {
				t.Errorf("Compare(%s, %s) = %d, want %d", order[i], order[j], got, want)
			}
		}
	}
	for _, bad := range []string{"1.2.3", "v1.2", "v1.2.3.4", "v01.2.3", "v1.2.x", "v1.2.3-", "v1.2.3-a..b", "v-1.2.3"} {
		if _, err := compare(bad, "v1.0.0"); err == nil {
			t.Errorf("Compare accepts %q", bad)
		}
	}
}

func TestParseList(t *testing.T) {
	list, err := parseList([]byte("# c\n\nexample.com/m  >=v1.0.0,<v1.2.3  v1.2.3  GO-2026-0001  what it is\ngolang.org/x/crypto <v0.56.0 v0.56.0 GHSA-xxxx-yyyy-zzzz\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].Line != 3 || list[0].Summary != "what it is" || len(list[0].Range) != 2 || list[0].Range[0] != (constraint{">=", "v1.0.0"}) {
		t.Fatalf("%+v", list)
	}
	for name, tc := range map[string]struct{ in, err string }{
		"empty":         {"# only comments\n", "no advisory"},
		"short":         {"example.com/m <v1.0.0 v1.0.0", "write: module"},
		"no operator":   {"example.com/m v1.0.0 v1.0.1 GO-2026-0001", "each constraint"},
		"bad operator":  {"example.com/m !v1.0.0 v1.0.1 GO-2026-0001", "each constraint"},
		"bad version":   {"example.com/m <1.0.0 v1.0.0 GO-2026-0001", "does not start with v"},
		"bad fixed":     {"example.com/m <v1.0.0 1.0.0 GO-2026-0001", "fixed version"},
		"fixed inside":  {"example.com/m <=v1.0.0 v1.0.0 GO-2026-0001", "inside the vulnerable range"},
		"bad id":        {"example.com/m <v1.0.0 v1.0.0 bug-12", "GO-, GHSA- or CVE-"},
		"version in it": {"example.com/m@v1 <v1.0.0 v1.0.0 GO-2026-0001", "module path"},
	} {
		_, err := parseList([]byte("# x\n" + tc.in + "\n"))
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: got %v, want an error with %q", name, err, tc.err)
		} else if name != "empty" && !strings.HasPrefix(err.Error(), "line 2: ") {
			t.Errorf("%s: the error does not name the line: %v", name, err)
		}
	}
}

func readList(t *testing.T) []advisory {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", ".ci", "vulnerable.txt"))
	if err != nil {
		t.Fatal(err)
	}
	list, err := parseList(data)
	if err != nil {
		t.Fatalf(".ci/vulnerable.txt: %v", err)
	}
	return list
}

// The repository's list finds the advisories the dependency update of
// issue 25 fixed, in the graph rye had before it: go-git v5.16.3 (five)
// and x/crypto v0.55.0 (two), and nothing in their fixed versions.
func TestListCatchesTheOldGraph(t *testing.T) {
	list := readList(t)
	graph, err := parseGraph([]byte(`github.com/ryekit/rye
github.com/go-git/go-git/v5 v5.16.3
golang.org/x/crypto v0.55.0
golang.org/x/net v0.57.0
github.com/ryekit/rye v0.0.0 => ../..
example.com/old v1.0.0 => golang.org/x/crypto v0.54.0
`))
	if err != nil {
		t.Fatal(err)
	}
	matches, err := check(graph, list)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range matches {
		ids = append(ids, m.Module.Version+" "+m.Advisory.ID)
	}
	want := "v5.16.3 GO-2026-4473,v5.16.3 GO-2026-4909,v5.16.3 GO-2026-4910,v5.16.3 GO-2026-5336,v5.16.3 GO-2026-5496," +
		"v0.55.0 GO-2026-6354,v0.55.0 GO-2026-6355," +
		"v0.54.0 GO-2026-6303,v0.54.0 GO-2026-6354,v0.54.0 GO-2026-6355"
	if got := strings.Join(ids, ","); got != want {
		t.Errorf("matches:\n%s\nwant:\n%s", got, want)
	}
	if s := matches[0].String(); s != "github.com/go-git/go-git/v5 v5.16.3 is affected by GO-2026-4473 (.idx and .pack checksums not verified (GHSA-37cx-329c-33x3, CVE-2026-25934)): upgrade to v5.16.5 or later (go get github.com/go-git/go-git/v5@v5.16.5)" {
		t.Errorf("message %q", s)
	}
	fixed, _ := parseGraph([]byte("github.com/go-git/go-git/v5 v5.19.1\ngolang.org/x/crypto v0.56.0\n"))
	if m, err := check(fixed, list); err != nil || len(m) != 0 {
		t.Errorf("the fixed versions match: %v, %v", m, err)
	}
	if _, err := check([]module{{"golang.org/x/crypto", "0.56"}}, list); err == nil {
		t.Error("a version that does not parse passes")
	}
	if _, err := parseGraph([]byte("a b c\n")); err == nil {
		t.Error("a line of three fields parses")
	}
}

// TestModuleGraphHasNoVulnerableVersion is the CI check (.ci/run runs it
// by name): the module graphs of rye and of internal/ryebench, as
// go list -m all prints them, hold no version of .ci/vulnerable.txt.
func TestModuleGraphHasNoVulnerableVersion(t *testing.T) {
	list := readList(t)
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not installed: the module graph cannot be listed")
	}
	for _, dir := range []string{filepath.Join("..", ".."), filepath.Join("..", "ryebench")} {
		cmd := exec.Command(goTool, "list", "-m", "all")
		cmd.Dir = dir
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list -m all in %s: %v", dir, err)
		}
		graph, err := parseGraph(out)
		if err != nil {
			t.Fatal(err)
		}
		if len(graph) < 10 {
			t.Fatalf("go list -m all in %s lists %d modules: not the graph", dir, len(graph))
		}
		matches, err := check(graph, list)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range matches {
			t.Errorf("%s: .ci/vulnerable.txt:%d: %s", dir, m.Advisory.Line, m)
		}
	}
}

func FuzzParseList(f *testing.F) {
	f.Add([]byte("example.com/m  >=v1.0.0,<v1.2.3  v1.2.3  GO-2026-0001  what\n"))
	f.Add([]byte("golang.org/x/crypto <v0.56.0-pre.1+x v0.56.0 GHSA-a\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		list, err := parseList(in)
		if err != nil {
			return
		}
		for _, a := range list {
			if in, err := a.Contains(a.Fixed); err != nil || in {
				t.Fatalf("line %d: the fixed version is in the range (%v)", a.Line, err)
			}
		}
	})
}
