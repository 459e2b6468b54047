package item

import (
	"strings"
	"testing"
)

// Hostile metadata (a pull request controls every file) gets a clear,
// positioned error from every reader, with bounded work: never a panic, a
// hang, an exhausted stack or memory, and never a result that passes.
func TestHostileMetadataIsAnError(t *testing.T) {
	header := "version: \"1.0.0\"\ntool_type: python\nexecutor_id: x\ncategory: t\ndescription: d\n"
	bomb := "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	prev := "a"
	for _, n := range []string{"b", "c", "d", "e", "f", "g", "h", "i"} {
		bomb += n + ": &" + n + " [" + strings.TrimSuffix(strings.Repeat("*"+prev+", ", 10), ", ") + "]\n"
		prev = n
	}
	cases := []struct {
		name, file, src, want string
		kind                  Kind
	}{
		{"YAML alias bomb", "t.yaml", header + bomb, "more than 100000 values after expanding aliases", Tool},
		{"deep YAML", "t.yaml", header + "x: " + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + "\n", "exceeded max depth", Tool},
		{"deep TOML", "t.toml", "x = " + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + "\n", "nested more than 100 levels", Tool},
		{"deep Python", "t.py", "X = " + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + "\n", "too many nested", Tool},
		{"deep XML", "t.md", "# t\n```xml\n<directive name=\"t\">" + strings.Repeat("<a>", 5000) + strings.Repeat("</a>", 5000) + "</directive>\n```\n", "nested too deeply", Directive},
		{"YAML alias bomb in knowledge", "k.md", "---\n" + bomb + "---\nbody\n", "after expanding aliases", Knowledge},
	}
	for _, c := range cases {
		_, err := ReadMetadata(c.kind, c.file, []byte(c.src))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error containing %q", c.name, err, c.want)
		}
	}
}

func TestTOMLNesting(t *testing.T) {
	for src, want := range map[string]int{
		"a = 1\n":                      0,
		"[t]\na = [1, [2, {x = 3}]]\n": 3,
		"a = \"[[[[\" # [[[[\n":        0,
		"a = '''\n[[[\n'''\nb = [1]\n": 1,
		`a = "\"[" ` + "\nb = [[1]]\n": 2,
		"[[arr]]\n":                    2,
		strings.Repeat("[", 5000):      5000,
	} {
		if got := TOMLNesting([]byte(src)); got != want {
			t.Errorf("%q: %d, want %d", src[:min(len(src), 40)], got, want)
		}
	}
}
