package executor

import (
	"strings"
	"testing"
)

// FuzzParseDotenv: every accepted line gives a non-empty key without
// spaces; never a panic.
func FuzzParseDotenv(f *testing.F) {
	f.Add([]byte("A=1\n# c\nexport B=\"two\"\n\nC='x y'\n"))
	f.Add([]byte("NOT A PAIR\n"))
	f.Add([]byte("=v\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		pairs, err := parseDotenv(data)
		if err != nil {
			return
		}
		for _, kv := range pairs {
			if kv.name == "" || strings.ContainsAny(kv.name, " \t=") || kv.line < 1 {
				t.Fatalf("bad pair %+v", kv)
			}
		}
	})
}
