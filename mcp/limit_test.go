package mcp

import (
	"strings"
	"testing"
)

// fit cuts only what is too large, and only the data: long strings first,
// then arrays of many small values; the message then fits MaxResponse.
func TestFit(t *testing.T) {
	small := &response{Status: "success", Data: map[string]any{"stdout": "hello"}, Metadata: meta{}}
	if got, err := fit(small); err != nil || got != small {
		t.Errorf("a small response was changed: %+v %v", got, err)
	}
	many := make([]any, 400000)
	for i := range many {
		many[i] = map[string]any{"id": "abcdefghijklmnopqrstuvwxyz", "n": i}
	}
	for name, data := range map[string]any{
		"a long string": map[string]any{"stdout": strings.Repeat("\x01", 3<<20), "return_code": 0},
		"many values":   map[string]any{"results": many, "total": len(many)},
	} {
		r := &response{Status: "error", Error: "exited with status 1", Data: data, Metadata: meta{DurationMS: 5}}
		got, err := fit(r)
		if err != nil {
			t.Fatal(err)
		}
		size, _ := frameSize(got)
		if size > MaxResponse || got.Truncated == "" || got.Status != "error" || got.Error != r.Error || got.Data == nil {
			t.Errorf("%s: %d bytes, %q", name, size, got.Truncated)
		}
		if r.Truncated != "" {
			t.Errorf("%s: the response given was changed", name)
		}
	}
}
