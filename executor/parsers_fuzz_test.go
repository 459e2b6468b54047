package executor

import (
	"strings"
	"testing"
	"time"
)

// FuzzParseLockfile: any bytes either parse into a complete lockfile that
// survives a round trip, or give an error; never a panic.
func FuzzParseLockfile(f *testing.F) {
	l := &Lockfile{LockfileVersion: 1, GeneratedAt: time.Unix(0, 0).UTC().Format(time.RFC3339),
		Root:          LockRoot{ToolID: "a/b", Version: "1.0.0", Integrity: "aa"},
		ResolvedChain: []LockEntry{{ItemID: "a/b", Space: "project", ToolType: "shell", Integrity: "aa"}}}
	f.Add(l.Marshal())
	f.Add([]byte(`{"lockfile_version": 1}`))
	f.Add([]byte(`{"lockfile_version": 1, "root": {"tool_id": "x", "integrity": "y"}, "resolved_chain": [{"item_id": "x", "integrity": "y", "executor_id": null}]} `))
	f.Add([]byte("[]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := ParseLockfile(data)
		if err != nil {
			return
		}
		if l.Root.ToolID == "" || len(l.ResolvedChain) == 0 {
			t.Fatalf("incomplete lockfile accepted: %+v", l)
		}
		back, err := ParseLockfile(l.Marshal())
		if err != nil || string(back.Marshal()) != string(l.Marshal()) {
			t.Fatalf("round trip: %v", err)
		}
	})
}

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
