package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The libraries say what is wrong; the command line names the flag that
// fixes it: a project above the working directory that another user owns
// is taken with --project.
func TestForeignProjectNamesTheFlag(t *testing.T) {
	root := t.TempDir()
	sub := filepath.Join(root, "sub")
	os.MkdirAll(filepath.Join(root, ".ai"), 0o755)
	os.MkdirAll(sub, 0o755)
	if err := os.Chown(filepath.Join(root, ".ai"), os.Getuid()+4242, -1); err != nil {
		t.Skipf("cannot give a folder to another user here: %v", err)
	}
	t.Setenv("HOME", t.TempDir())
	t.Setenv("USER_SPACE", "")
	for _, args := range [][]string{{"-C", sub, "verify"}, {"-C", sub, "-C", root, "check"}, {"-C", sub, "load", "tool", "x/y"}} {
		var out, errOut bytes.Buffer
		code := Main(args, strings.NewReader(""), &out, &errOut)
		if code != ExitUsage || !strings.Contains(errOut.String(), "another user controls") || !strings.Contains(errOut.String(), ": pass --project "+root+" to use it anyway") {
			t.Errorf("%q: exit %d, %s", args, code, errOut.String())
		}
	}
}
