// Package testscripts runs the end-to-end tests of the rye command: each
// *.txtar file in this folder is one behaviour, asserting stdout, stderr,
// exit codes and files written, in the style of cmd/go's script tests.
package testscripts

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/ryekit/rye/cmd/rye/cli"
)

var update = flag.Bool("update", false, "rewrite cmp golden files in the scripts")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"rye": func() { os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

func TestScripts(t *testing.T) {
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 ".",
		UpdateScripts:       *update,
		RequireExplicitExec: false,
		RequireUniqueNames:  true,
		Setup: func(env *testscript.Env) error {
			work := env.WorkDir
			env.Setenv("HOME", filepath.Join(work, "home"))
			env.Setenv("USER_SPACE", "")
			env.Setenv("XDG_CACHE_HOME", filepath.Join(work, "cache"))
			env.Setenv("NO_COLOR", "1")
			env.Setenv("RYE_SYSTEM_PATH", "")
			env.Setenv("RYE_SIGNING_KEY", "")
			env.Setenv("RYE_KEY_PASSWORD", "")
			env.Setenv("SOURCE_DATE_EPOCH", "")
			env.Setenv("REPO", repo)
			return os.MkdirAll(filepath.Join(work, "home"), 0o755)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"copydir": copyDir,
			"mtimes":  mtimes,
		},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "unix":
				return runtime.GOOS != "windows", nil
			}
			return false, nil
		},
	})
}

// copydir SRC DST copies a folder tree (the example project) into the
// script's work directory, so scripts can change it freely.
func copyDir(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: copydir SRC DST")
	}
	src, dst := ts.MkAbs(args[0]), ts.MkAbs(args[1])
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if info.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, info.Mode().Perm())
	})
	ts.Check(err)
}

// mtimes OUT FILE... writes the modification times (nanoseconds) of the
// files to OUT, so that a script can prove with cmp that files were not
// rewritten.
func mtimes(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: mtimes OUT FILE...")
	}
	var b strings.Builder
	for _, f := range args[1:] {
		info, err := os.Stat(ts.MkAbs(f))
		ts.Check(err)
		fmt.Fprintf(&b, "%s %d\n", f, info.ModTime().UnixNano())
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(b.String()), 0o644))
}
