package lint

import (
	"testing"

	"github.com/ryekit/rye/item"
)

// FuzzCodeUses reads arbitrary shell, Python and JavaScript tool bodies
// for what they use: never a panic, never a loop without end (the shell
// scanner once stopped advancing on a case pattern's "|"), and every use
// inside the file.
func FuzzCodeUses(f *testing.F) {
	for _, s := range []string{
		"curl -s x | wc -l\nx=$(date)\n",
		"case \"$x\" in *a*|*b*) y=1 ;; (c) z ;; esac\n",
		"cat <<EOF\n$(rm -rf)\nEOF\narr=(a b)\necho $((1+2)) `date` <(ls) >&2 2>/dev/null &\n",
		"f() { :; }\nfunction g { :; }\n\"unterminated\n'x\n",
		"import socket, subprocess\nfrom http import client\nos.system('x'); p = Path.home()\n",
		"require('child_process'); fetch(u) /* x */ // y\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		for _, c := range []struct{ name, head string }{
			{"t.sh", "#!/bin/bash\n# ---\n# version: \"1.0.0\"\n# ---\n"},
			{"t.js", "// ---\n// version: \"1.0.0\"\n// ---\n"},
			{"t.py", ""},
		} {
			src := c.head + body
			md, err := item.ReadMetadata(item.Tool, c.name, []byte(src))
			if err != nil {
				continue
			}
			for _, u := range codeUses(&file{Name: c.name, Src: []byte(src)}, md, pyCode{}) {
				if u.off < 0 || u.end < u.off || u.end > len(src) {
					t.Fatalf("%s: use %+v outside the file (%d bytes)", c.name, u, len(src))
				}
			}
		}
	})
}
