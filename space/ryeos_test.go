package space

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/ryekit/rye/item"
)

// writeTree writes files (paths below .ai/) into a new project folder.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for rel, text := range files {
		p := filepath.Join(root, AIDir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

const ryeosLine = "# ryeos:signed:2026-07-01T00:00:00Z:x:y:z\n"

// A project is a RyeOS 0.2+ tree when it has a folder only RyeOS 0.2+
// has, a bundle manifest, or when its first signed item carries a ryeos
// signature; a user space never is.
func TestLayout(t *testing.T) {
	for _, c := range []struct {
		name  string
		files map[string]string
		why   string
	}{
		{"feb", map[string]string{"tools/a/x.py": "# rye:signed:...\n", "config/rye.yaml": "{}\n"}, ""},
		{"node folder", map[string]string{"node/commands/x.yaml": "{}\n"}, ".ai/node/"},
		{"views folder", map[string]string{"views/x.yaml": "{}\n"}, ".ai/views/"},
		{"manifest", map[string]string{"manifest.yaml": "name: x\n"}, ".ai/manifest.yaml"},
		{"ryeos signature", map[string]string{"directives/a.md": "no line\n", "tools/demo/x.yaml": ryeosLine}, "the ryeos signature of .ai/tools/demo/x.yaml"},
		{"v1 signature first", map[string]string{"directives/a.md": "<!-- rye:signed:2026-01-01T00:00:00Z:a:b:0123456789abcdef -->\n", "tools/demo/x.yaml": ryeosLine}, ""},
		// What shows the layout is an item of the layout it shows, which the
		// gate then verifies: a change cannot flip it with files the gate
		// passes over.
		{"node folder without items", map[string]string{"node/.keep": "", "node/README.md": "x\n", "node/commands/.x.yaml": "{}\n", "parsers/x.yml": "{}\n"}, ""},
		{"v2 line on a file rye does not read", map[string]string{"tools/a.json": "# rye:signed:v2:x\n{}\n", "tools/demo/x.yaml": ryeosLine}, "the ryeos signature of .ai/tools/demo/x.yaml"},
		{"ryeos line on a file RyeOS does not read", map[string]string{"tools/a/lib/x.py": ryeosLine, "tools/b.sh": ryeosLine}, ""},
		{"files rye does not read spent no budget", manyFiles(probeLimit+1, "tools/0/f%d.json", "{}\n", "tools/demo/x.yaml", ryeosLine), "the ryeos signature of .ai/tools/demo/x.yaml"},
		{"rye's items spend it", manyFiles(probeLimit+1, "tools/0/f%03d.py", "\n", "tools/demo/x.yaml", ryeosLine), ""},
	} {
		root := writeTree(t, c.files)
		l := NewDiskSpace(Project, root, "").Layout()
		if l.RyeOS != (c.why != "") || l.Why != c.why {
			t.Errorf("%s: %+v, want why %q", c.name, l, c.why)
		}
		if NewDiskSpace(User, root, "").Layout().RyeOS {
			t.Errorf("%s: a user space is read as a RyeOS tree", c.name)
		}
	}
}

// manyFiles is n files named by pattern (with their number) holding text,
// and one more file.
func manyFiles(n int, pattern, text, last, lastText string) map[string]string {
	files := map[string]string{last: lastText}
	for i := range n {
		files[fmt.Sprintf(pattern, i)] = text
	}
	return files
}

// A walk of a RyeOS 0.2+ tree lists every kind with RyeOS's file forms and
// ids, the bundle manifest, and passes over what RyeOS passes over; a walk
// of rye's three kinds lists only them.
func TestWalkRyeOS(t *testing.T) {
	root := writeTree(t, map[string]string{
		"manifest.yaml":                                "name: demo\n",
		"config/rye.yaml":                              "{}\n",
		"config/keys/trusted/k.toml":                   "x\n",
		"config/keys/extra.yaml":                       "category: keys\n",
		"config/demo/settings.yaml":                    "category: demo\n",
		"node/commands/demo-hello.yaml":                "tokens: [a]\n",
		"node/engine/kinds/tool/tool.kind-schema.yaml": "{}\n",
		"tools/demo/data.json":                         "{}\n",
		"tools/demo/run.sh":                            "echo\n",
		"tools/demo/lib/helper.py":                     "x = 1\n",
		"tools/demo/README.md":                         "# x\n",
		"parsers/demo/kv.yml":                          "{}\n",
		"parsers/demo/kv.yaml":                         "{}\n",
		"knowledge/dé/café.md":                         "x\n",
		"views/list.yaml":                              "widget: list\n",
	})
	sp := NewDiskSpace(Project, root, "")
	found, odd, err := sp.Walk(nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range found {
		got = append(got, f.ID.Ref(f.Kind)+" "+f.Rel)
	}
	want := []string{
		"tool:demo/data tools/demo/data.json",
		"knowledge:dé/café knowledge/dé/café.md",
		"config:demo/settings config/demo/settings.yaml",
		"config:keys/extra config/keys/extra.yaml", // a config item, key material aside
		"node:commands/demo-hello node/commands/demo-hello.yaml",
		"node:engine/kinds/tool/tool.kind-schema node/engine/kinds/tool/tool.kind-schema.yaml",
		"parser:demo/kv parsers/demo/kv.yaml",
		"view:list views/list.yaml",
		"bundle-manifest:manifest manifest.yaml",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("found\n%q\nwant\n%q", got, want)
	}
	support := map[string]bool{}
	for _, o := range odd {
		support[o.Rel] = o.Support
	}
	for _, rel := range []string{"config/rye.yaml", "config/keys/trusted/k.toml", "tools/demo/run.sh", "tools/demo/lib/helper.py", "tools/demo/README.md", "parsers/demo/kv.yml"} {
		if s, ok := support[rel]; !ok || !s {
			t.Errorf("%s: not passed over as a support file (%v, %v)", rel, s, ok)
		}
	}
	// rye's three kinds, named: the others are not walked.
	found, _, err = sp.Walk(item.Kinds)
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 2 {
		t.Errorf("rye's kinds: %v", found)
	}
	// Selection by path and by id reaches the new kinds.
	sel, err := Select(sp, nil, []string{filepath.Join(root, ".ai/config/demo/settings.yaml"), "commands/demo-hello"}, root)
	if err != nil {
		t.Fatal(err)
	}
	if len(sel.Items) != 2 || sel.Items[0].Kind != item.Config || sel.Items[1].Kind != item.Node {
		t.Errorf("selected %v", sel.Items)
	}
	if _, err := Select(sp, nil, []string{filepath.Join(root, ".ai/config/rye.yaml")}, root); err != nil {
		t.Errorf("rye.yaml as a path: %v (a path that is not an item is skipped)", err)
	}
}
