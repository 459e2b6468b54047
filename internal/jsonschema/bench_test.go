package jsonschema

import "testing"

// BenchmarkFirstUse is what the first schema of a process costs beyond
// the schema itself: compiling its draft's meta-schema (nothing is done
// at package init).
func BenchmarkFirstUse(b *testing.B) {
	for _, d := range []*draft{Draft2020, draft7} {
		b.Run(d.String(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				metaReg.mu.Lock()
				metaReg.c, metaReg.schemas = nil, nil
				metaReg.mu.Unlock()
				if _, err := metaSchema(d); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
