package layering

import (
	"bufio"
	"bytes"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const (
	module = "github.com/ryekit/rye/"
	// root is the repository, seen from this package's folder.
	root = "../.."
	// architecture is the file whose table this test keeps true.
	architecture = "ARCHITECTURE.md"
	// header is the table's header row, as written.
	header = "| package | owns | imports (rye packages) |"
)

// row is one row of ARCHITECTURE.md's table.
type row struct {
	line     int      // in ARCHITECTURE.md, for messages
	pkgs     []string // the first column: the packages the row is about
	imports  []string // the third column: what they may import
	anyBelow bool     // "everything below"
}

// table is the parsed table, top to bottom.
type table struct {
	rows  []row
	index map[string]int // package → its row's index
}

// readTable reads ARCHITECTURE.md's layering table. Any row it cannot
// read fails the test: a cell the test misread could allow an import
// nobody meant to allow.
func readTable(t *testing.T) *table {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, architecture))
	if err != nil {
		t.Fatalf("%v: the repository's %s holds the layering table this test enforces; restore it", err, architecture)
	}
	tb := &table{index: map[string]int{}}
	sc := bufio.NewScanner(bytes.NewReader(data))
	in, n := false, 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if !in {
			in = line == header
			continue
		}
		if !strings.HasPrefix(line, "|") {
			break // the table ends at the first line that is not a row
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if strings.Trim(cells[0], " -:") == "" {
			continue // the delimiter row
		}
		r, err := parseRow(line)
		if err != nil {
			t.Errorf("%s:%d: %v", architecture, n, err)
			continue
		}
		r.line = n
		for _, p := range r.pkgs {
			if prev, dup := tb.index[p]; dup {
				t.Errorf("%s:%d: %s has a row already (line %d)", architecture, n, p, tb.rows[prev].line)
			}
			tb.index[p] = len(tb.rows)
		}
		tb.rows = append(tb.rows, r)
	}
	if len(tb.rows) == 0 {
		t.Fatalf("%s has no layering table: this test looks for the header row %q followed by one row per package", architecture, header)
	}
	return tb
}

// parseRow reads "| `a/`, `b` | owns … | `c`, `d` |". The owns column may
// hold escaped pipes ("\|"), so the imports are the last cell.
func parseRow(line string) (row, error) {
	var r row
	body := strings.ReplaceAll(strings.Trim(line, "|"), `\|`, "\x00")
	cells := strings.Split(body, "|")
	if len(cells) != 3 {
		return r, fmt.Errorf("a row has three cells (package | owns | imports), this one %d", len(cells))
	}
	pkgs, err := names(cells[0])
	if err != nil || len(pkgs) == 0 {
		return r, fmt.Errorf("the first cell must name packages in backticks, separated by commas: %q", strings.TrimSpace(cells[0]))
	}
	r.pkgs = pkgs
	switch imp := strings.TrimSpace(cells[2]); imp {
	case "—":
	case "everything below":
		r.anyBelow = true
	default:
		r.imports, err = names(imp)
		if err != nil || len(r.imports) == 0 {
			return r, fmt.Errorf("the imports cell must be package names in backticks separated by commas, \"everything below\" or \"—\": %q", imp)
		}
	}
	return r, nil
}

// names reads "`a/`, `b`" as [a b]; anything else is an error.
func names(cell string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(cell, ",") {
		f = strings.TrimSpace(f)
		if len(f) < 3 || f[0] != '`' || f[len(f)-1] != '`' || strings.Contains(f[1:len(f)-1], "`") {
			return nil, fmt.Errorf("not a package name in backticks: %q", f)
		}
		name := strings.TrimSuffix(f[1:len(f)-1], "/")
		if name == "" || strings.ContainsAny(name, " …") {
			return nil, fmt.Errorf("not a package name: %q", f)
		}
		out = append(out, name)
	}
	return out, nil
}

// floor may be imported by every package above it: report, config and
// internal/... They import nothing of rye's but each other and
// item/syntax (the positioned node every reader returns).
func floor(p string) bool {
	return p == "report" || p == "config" || strings.HasPrefix(p, "internal/")
}

// imports lists each package's rye imports and standard-library imports,
// from the non-test files of the module.
func imports(t *testing.T) (rye map[string]map[string]bool, std map[string]bool) {
	t.Helper()
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

func sorted[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Every package of the module has its row: a package nobody placed in the
// layers has no rule to keep.
func TestEveryPackageHasARow(t *testing.T) {
	tb := readTable(t)
	rye, _ := imports(t)
	for _, p := range sorted(rye) {
		if _, ok := tb.index[p]; !ok {
			t.Errorf("package %s has no row in %s: add one (| `%s/` | what it owns | what it imports |) below every package that imports it", p, architecture, p)
		}
	}
}

// Every package the table names exists: a row for a package that is gone
// documents a house that is not there.
func TestEveryRowIsAPackage(t *testing.T) {
	tb := readTable(t)
	rye, _ := imports(t)
	for _, r := range tb.rows {
		for _, p := range append(slices.Clone(r.pkgs), r.imports...) {
			if _, ok := rye[p]; ok {
				continue
			}
			t.Errorf("%s:%d names package %s, which does not exist (no non-test Go file in %s/): remove it or correct the name", architecture, r.line, p, p)
		}
	}
}

// The table reads top to bottom in import order, and says exactly what
// the code does: every name in a row's imports sits below the row and is
// imported by the row's package.
func TestTheTableIsAStraightLine(t *testing.T) {
	tb := readTable(t)
	rye, _ := imports(t)
	for i, r := range tb.rows {
		for _, im := range r.imports {
			j, ok := tb.index[im]
			switch {
			case !ok:
				t.Errorf("%s:%d: %s imports %s, which has no row", architecture, r.line, r.pkgs[0], im)
			case j <= i:
				t.Errorf("%s:%d: %s imports %s, which is not below it (line %d): imports run down the table only", architecture, r.line, r.pkgs[0], im, tb.rows[j].line)
			}
			for _, p := range r.pkgs {
				have, exists := rye[p]
				if _, imExists := rye[im]; !exists || !imExists {
					continue // TestEveryRowIsAPackage reports it
				}
				if !have[im] {
					t.Errorf("%s:%d says %s imports %s, but it does not: remove %s from the row", architecture, r.line, p, im, im)
				}
			}
		}
	}
}

func TestImportsFollowTheTable(t *testing.T) {
	tb := readTable(t)
	rye, _ := imports(t)
	for _, p := range sorted(rye) {
		if floor(p) {
			for _, im := range sorted(rye[p]) {
				if !floor(im) && im != "item/syntax" {
					t.Errorf("%s imports %s: the floor (report, config, internal/...) imports only itself and item/syntax", p, im)
				}
			}
		}
		i, listed := tb.index[p]
		if !listed {
			continue // TestEveryPackageHasARow reports it
		}
		r := tb.rows[i]
		for _, im := range sorted(rye[p]) {
			j, ok := tb.index[im]
			switch {
			case slices.Contains(r.imports, im):
				// Named in its row; TestTheTableIsAStraightLine checks
				// that it is below.
			case floor(im) && !floor(p):
				// The floor is everyone's.
			case r.anyBelow && ok && j > i:
			case r.anyBelow && ok:
				t.Errorf("%s imports %s, which is not below it in %s (lines %d and %d)", p, im, architecture, r.line, tb.rows[j].line)
			case floor(im):
				t.Errorf("%s imports %s: name it in its row of %s (line %d)", p, im, architecture, r.line)
			default:
				t.Errorf("%s imports %s, which its row of %s (line %d) does not allow: imports run down the table only; move the code, or name %s in the row if it is below", p, im, architecture, r.line, im)
			}
		}
	}
	// The executor's primitives use the standard library only (and the
	// floor's value writer).
	for im := range rye["executor/prim"] {
		if im != "internal/jsonvalue" {
			t.Errorf("executor/prim imports %s: the primitives use the standard library and internal/jsonvalue only", im)
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
