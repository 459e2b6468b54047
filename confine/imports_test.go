package confine

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The engine is linked into rye-confine, whose start-up is part of every
// confined run: the standard library and golang.org/x/sys/unix only, and
// no init function (its package-level tables are constant literals).
func TestImportsAndNoInit(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if strings.Contains(strings.Split(p, "/")[0], ".") && p != "golang.org/x/sys/unix" {
				t.Errorf("%s imports %s", name, p)
			}
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Name.Name == "init" && fd.Recv == nil {
				t.Errorf("%s has an init function", name)
			}
		}
	}
}
