package item

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkReadMetadata reads one realistic file of each form.
func BenchmarkReadMetadata(b *testing.B) {
	for _, c := range []struct {
		kind Kind
		file string
	}{
		{Directive, "directive/full.md"},
		{Knowledge, "knowledge/fence.md"},
		{Knowledge, "knowledge/frontmatter.md"},
		{Tool, "tool/runtime.yaml"},
		{Tool, "tool/deploy.toml"},
		{Tool, "tool/count.sh"},
		{Tool, "python/tool_plain.py"},
	} {
		dir := "testdata"
		if c.kind == Tool && filepath.Ext(c.file) == ".py" {
			dir = filepath.Join("python", "testdata") // item/python's test files since the layout move
		}
		src, err := os.ReadFile(filepath.Join(dir, c.file))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.file, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				if _, err := ReadMetadata(c.kind, c.file, src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
