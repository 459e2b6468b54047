package lockfile

import (
	"testing"
	"time"
)

// FuzzParse: any bytes either parse into a complete lockfile that
// survives a round trip, or give an error; never a panic.
func FuzzParse(f *testing.F) {
	l := &file{LockfileVersion: 1, GeneratedAt: time.Unix(0, 0).UTC().Format(time.RFC3339),
		Root:          root{ToolID: "a/b", Version: "1.0.0", Integrity: "aa"},
		ResolvedChain: []entry{{ItemID: "a/b", Space: "project", ToolType: "shell", Integrity: "aa"}}}
	f.Add(l.Marshal())
	f.Add([]byte(`{"lockfile_version": 1}`))
	f.Add([]byte(`{"lockfile_version": 1, "root": {"tool_id": "x", "integrity": "y"}, "resolved_chain": [{"item_id": "x", "integrity": "y", "executor_id": null}]} `))
	f.Add([]byte("[]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := parse(data)
		if err != nil {
			return
		}
		if l.Root.ToolID == "" || len(l.ResolvedChain) == 0 {
			t.Fatalf("incomplete lockfile accepted: %+v", l)
		}
		back, err := parse(l.Marshal())
		if err != nil || string(back.Marshal()) != string(l.Marshal()) {
			t.Fatalf("round trip: %v", err)
		}
	})
}
