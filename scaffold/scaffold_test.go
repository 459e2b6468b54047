package scaffold

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/space"
)

// Every template gives an item that reads and meets the shipped metadata
// rules, at the root of its kind's folder and below it, with a
// description that needs escaping in each file form.
func TestTemplatesMeetTheRules(t *testing.T) {
	ss := &space.Spaces{System: []*space.Space{space.EmbeddedSpace()}}
	rules, err := ss.Extractors()
	if err != nil {
		t.Fatal(err)
	}
	type tc struct {
		kind item.Kind
		lang string
	}
	cases := []tc{{item.Directive, ""}, {item.Knowledge, ""}}
	for _, l := range langs {
		cases = append(cases, tc{item.Tool, l.Name})
	}
	for _, c := range cases {
		for _, id := range []item.ID{"deploy_app", "team/ops/deploy_app"} {
			for _, desc := range []string{"", `Say "hi" & <wave> \ back: it's #1 {x}`} {
				ext, src, err := render(c.kind, id, Options{Lang: c.lang, Description: desc, Author: "Ada <ada@example.com>"})
				if err != nil {
					t.Fatalf("%s %s %s: %v", c.kind, c.lang, id, err)
				}
				name := "x" + ext
				md, err := item.ReadMetadata(c.kind, name, src)
				if err != nil {
					t.Fatalf("%s %s %s: %v\n%s", c.kind, c.lang, id, err, src)
				}
				if len(md.Problems) > 0 {
					t.Errorf("%s %s %s: %v\n%s", c.kind, c.lang, id, md.Problems, src)
				}
				if errs := item.Validate(rules[c.kind], c.kind, id, name, src); len(errs) > 0 {
					t.Errorf("%s %s %s: %v\n%s", c.kind, c.lang, id, errs, src)
				}
				if want := desc; want != "" && c.kind != item.Knowledge && md.Str("description") != want {
					t.Errorf("%s %s: description %q, want %q", c.kind, c.lang, md.Str("description"), want)
				}
			}
		}
	}
}

func TestRenderRefuses(t *testing.T) {
	for _, c := range []struct {
		kind item.Kind
		id   item.ID
		o    Options
		want string
	}{
		{item.Tool, "a/b", Options{Lang: "cobol"}, `no tool template for "cobol"`},
		{item.Directive, "a/Deploy-App", Options{Author: "me"}, "snake_case"},
		{item.Directive, "a/b", Options{}, "names its author"},
		{item.Tool, "a/b", Options{Description: "two\nlines"}, "one line"},
	} {
		if _, _, err := render(c.kind, c.id, c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s %+v: %v, want %q", c.kind, c.id, c.o, err, c.want)
		}
	}
}

// Write refuses an id that exists in any form, and replaces only the same
// form with Force.
func TestWrite(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, ".ai"), 0o755)
	sp := space.NewDiskSpace(space.Project, root, "")
	shown, err := Write(sp, item.Tool, "a/b", Options{Lang: "shell"})
	if err != nil || !strings.HasSuffix(shown, filepath.FromSlash(".ai/tools/a/b.sh")) {
		t.Fatalf("write: %q %v", shown, err)
	}
	if info, _ := os.Stat(filepath.Join(root, ".ai", "tools", "a", "b.sh")); info.Mode().Perm()&0o100 == 0 {
		t.Errorf("a script that cannot run: %v", info.Mode())
	}
	if _, err := Write(sp, item.Tool, "a/b", Options{Lang: "shell"}); err == nil || !strings.Contains(err.Error(), "--force replaces it") {
		t.Errorf("again: %v", err)
	}
	if _, err := Write(sp, item.Tool, "a/b", Options{Lang: "python", Force: true}); err == nil || !strings.Contains(err.Error(), "b.sh") {
		t.Errorf("another form: %v", err)
	}
	if _, err := Write(sp, item.Tool, "a/b", Options{Lang: "shell", Force: true}); err != nil {
		t.Errorf("--force: %v", err)
	}
	if _, err := Write(space.EmbeddedSpace(), item.Tool, "a/c", Options{}); err == nil {
		t.Error("wrote into the embedded space")
	}
}
