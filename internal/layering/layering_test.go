package layering

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/ryekit/rye/"

// allowed is ARCHITECTURE.md's table: the rye packages each package may
// import (besides the shared bottom: report, config and internal/...).
var allowed = map[string][]string{
	"cmd/rye":       {"cmd/rye/cli"},
	"cmd/rye/cli":   {"*"},
	"mcp":           {"executor", "verify", "search", "sign", "space", "item"},
	"lint":          {"chain", "verify", "content", "space", "item", "item/syntax"},
	"release":       {"verify", "sign", "space", "item"},
	"executor":      {"chain", "params", "executor/prim", "verify", "sign", "space", "item", "item/syntax"},
	"executor/prim": {},
	"params":        {"item", "item/syntax"},
	"chain":         {"space", "item", "item/syntax"},
	"search":        {"verify", "space", "item"},
	"verify":        {"gitrepo", "sign", "space", "item", "item/syntax"},
	"gitrepo":       {},
	"sign":          {"space", "content", "item"},
	"content":       {"item", "item/python", "item/syntax"},
	"space":         {"item", "item/syntax"},
	"item":          {"item/python", "item/syntax"},
	"item/python":   {"item/syntax"},
	"item/syntax":   {},
}

// bottom may be imported by every package: they import nothing of rye's
// but each other and item/syntax (the positioned node every reader
// returns).
func bottom(p string) bool {
	return p == "report" || p == "config" || strings.HasPrefix(p, "internal/")
}

// imports lists each package's rye imports and standard-library imports,
// from the non-test files of the module.
func imports(t *testing.T) (rye map[string]map[string]bool, std map[string]bool) {
	t.Helper()
	root := filepath.Join("..", "..")
	rye, std = map[string]map[string]bool{}, map[string]bool{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			if p != root {
				if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
					return filepath.SkipDir // a nested module is not part of this one
				}
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		pkg := filepath.ToSlash(rel)
		if rye[pkg] == nil {
			rye[pkg] = map[string]bool{}
		}
		for _, im := range f.Imports {
			ip, _ := strconv.Unquote(im.Path.Value)
			switch {
			case strings.HasPrefix(ip, module):
				rye[pkg][strings.TrimPrefix(ip, module)] = true
			case !strings.Contains(strings.Split(ip, "/")[0], "."):
				std[ip] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return rye, std
}

func TestImportsFollowTheTable(t *testing.T) {
	rye, _ := imports(t)
	var pkgs []string
	for p := range rye {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, p := range pkgs {
		if bottom(p) {
			for im := range rye[p] {
				if !bottom(im) && im != "item/syntax" {
					t.Errorf("%s imports %s: the bottom packages import only each other and item/syntax", p, im)
				}
			}
			continue
		}
		ok, listed := allowed[p]
		if !listed {
			t.Errorf("package %s is not in the table: add it to ARCHITECTURE.md and to this test", p)
			continue
		}
		for im := range rye[p] {
			if bottom(im) || (len(ok) == 1 && ok[0] == "*") {
				continue
			}
			found := false
			for _, a := range ok {
				found = found || a == im
			}
			if !found {
				t.Errorf("%s imports %s, which is not below it in ARCHITECTURE.md's table", p, im)
			}
		}
	}
	// The executor's primitives use the standard library only (and the
	// bottom's value writer).
	for im := range rye["executor/prim"] {
		if im != "internal/jsonvalue" {
			t.Errorf("executor/prim imports %s", im)
		}
	}
}

// No rye package is named like a standard-library package the module
// uses: a reader would have to check which one a file means.
func TestNoPackageShadowsTheStandardLibrary(t *testing.T) {
	rye, std := imports(t)
	names := map[string]string{}
	for ip := range std {
		names[path.Base(ip)] = ip
	}
	for p := range rye {
		if ip, ok := names[path.Base(p)]; ok && p != "cmd/rye" {
			t.Errorf("package %s has the name of the standard library's %s", p, ip)
		}
	}
}
