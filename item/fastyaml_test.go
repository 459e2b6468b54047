package item

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/ryekit/rye/internal/corpus"
)

// yamlV3 decodes text as yaml.v3 does for item metadata: the document's
// root, or false when it is empty, an error, or more than one document.
func yamlV3(text []byte) (*yaml.Node, bool) {
	dec := yaml.NewDecoder(strings.NewReader(string(text)))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		return nil, false
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, false
	}
	if len(doc.Content) == 0 {
		return nil, false
	}
	return doc.Content[0], true
}

// sameNode compares what the item readers use of two trees: kinds,
// styles, resolved tags, values, lines, columns and children.
func sameNode(a, b *yaml.Node, at string) error {
	if a.Kind != b.Kind || a.Style != b.Style || a.ShortTag() != b.ShortTag() || a.Value != b.Value || a.Line != b.Line || a.Column != b.Column || len(a.Content) != len(b.Content) {
		return fmt.Errorf("%s: fast {kind %v style %v tag %s value %q at %d:%d, %d children}, yaml.v3 {kind %v style %v tag %s value %q at %d:%d, %d children}",
			at, a.Kind, a.Style, a.ShortTag(), a.Value, a.Line, a.Column, len(a.Content), b.Kind, b.Style, b.ShortTag(), b.Value, b.Line, b.Column, len(b.Content))
	}
	for i := range a.Content {
		if err := sameNode(a.Content[i], b.Content[i], fmt.Sprintf("%s/%d", at, i)); err != nil {
			return err
		}
	}
	return nil
}

// checkFast fails when fastYAML accepts text and yaml.v3 reads it
// otherwise (or not at all).
func checkFast(t *testing.T, text []byte) bool {
	t.Helper()
	fast, ok := fastYAML(text)
	if !ok {
		return false
	}
	slow, ok := yamlV3(text)
	if !ok {
		t.Fatalf("fast path accepted what yaml.v3 does not:\n%s", text)
	}
	if err := sameNode(fast, slow, ""); err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	return true
}

// TestFastYAMLAgreesWithYAMLv3: the forms metadata is written in are read
// by the fast path exactly as yaml.v3 reads them, and the rest is left to
// yaml.v3.
func TestFastYAMLAgreesWithYAMLv3(t *testing.T) {
	fast := []string{
		"version: \"1.0.0\"\ntool_type: runtime\nexecutor_id: rye/core/primitives/subprocess\ncategory: a/b\ndescription: does a thing # note\nconfig:\n  command: echo\n  args: [\"{tool_path}\", -v, 'x']\n  env:\n    A: b\n# a comment\n\nlist:\n- a\n- 'b'\n-   \"c\"  # c\nother:\n    - 1\n    - [x, y]\nn: 12\nf: 1.5\nb: true\nnull_: ~\ne: []\nhex: 0x1F\nstamp: 2026-01-01\nurl: http://x.example/a#b\nk-2: a:b\n",
		"a: b\n",
		"a:    spaced    \n",
		"a: -1\nb: [-v, x]\n",
	}
	for _, text := range fast {
		if !checkFast(t, []byte(text)) {
			t.Errorf("not read by the fast path:\n%s", text)
		}
	}
	slow := []string{
		"", "\n", "# only\n", "a:\n", "a: |\n  x\n", "a: >\n  x\n", "a: &x 1\nb: *x\n", "a: !!str 1\n", "a: {b: c}\n",
		"a: b\n  c\n", "a: \"x\\ny\"\n", "a: 'it''s'\n", "---\na: b\n", "a: b\n---\nc: d\n", "a: b: c\n",
		"a: [b, [c]]\n", "a: [b,]\n", "\"a\": b\n", "a b: c\n", "a:\tb\n", "a: b\r\n", "a: é\n", "  a: b\n", "- a\n",
		"a:\n  - b: c\n", "a:\n  -\n", "<<: {}\n", "a: b #c\n  d: e\n", "a:\n b: c\n  d: e\n", "? a\n: b\n", "a: [b #c]\n",
	}
	for _, text := range slow {
		if _, ok := fastYAML([]byte(text)); ok {
			t.Errorf("the fast path read what it must leave to yaml.v3:\n%q", text)
		}
	}
}

// TestFastYAMLReadsGeneratedItems: the YAML of the generated corpus (tool
// files, comment headers, front matter) takes the fast path, with yaml.v3's
// result.
func TestFastYAMLReadsGeneratedItems(t *testing.T) {
	root := t.TempDir()
	if err := corpus.Generate(root, 300, 1); err != nil {
		t.Fatal(err)
	}
	read, total := 0, 0
	filepath.WalkDir(filepath.Join(root, ".ai"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		src, _ := os.ReadFile(p)
		for _, text := range yamlTexts(src) {
			total++
			if checkFast(t, text) {
				read++
			}
		}
		return nil
	})
	if total == 0 || read < total*9/10 {
		t.Errorf("the fast path read %d of %d YAML texts", read, total)
	}
}

// yamlTexts finds the YAML a file holds, roughly as the readers cut it: a
// whole YAML file, front matter, or a comment header without its prefix.
func yamlTexts(src []byte) [][]byte {
	s := string(src)
	var out [][]byte
	lines := strings.Split(s, "\n")
	for i := 0; i < len(lines); i++ {
		switch strings.TrimSpace(lines[i]) {
		case "---", "# ---":
			prefix := ""
			if strings.HasPrefix(lines[i], "#") {
				prefix = "# "
			}
			var text []string
			for j := i + 1; j < len(lines); j++ {
				if strings.TrimSpace(lines[j]) == strings.TrimSpace(lines[i]) {
					out = append(out, []byte(strings.Join(text, "\n")+"\n"))
					i = j
					break
				}
				text = append(text, strings.TrimPrefix(lines[j], prefix))
			}
		}
	}
	if len(out) == 0 && strings.Contains(s, "tool_type:") {
		out = append(out, src)
	}
	return out
}

// FuzzFastYAML: whatever the text, the fast path either leaves it to
// yaml.v3 or reads exactly what yaml.v3 reads.
func FuzzFastYAML(f *testing.F) {
	f.Add([]byte("version: \"1.0.0\"\nconfig:\n  args: [a, 'b']\n  env:\n    A: b\nlist:\n- x\n"))
	f.Add([]byte("a: b # c\nd:\n  - 1\n  - [2, 3]\n"))
	f.Add([]byte("a: 'b'\nc: \"d\"\ne: ~\nf: 0x1F\ng: 1e3\nh: .inf\ni: no\n"))
	f.Fuzz(func(t *testing.T, text []byte) {
		if len(text) > 4096 {
			return
		}
		checkFast(t, text)
	})
}
