package runtime

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// FuzzParseParams feeds command lines (arguments joined by "\x00") and
// --params values to ParseParams with a realistic schema: it never panics,
// every error is a *ParamError, and a parameter object it builds is one
// PrepareParams either accepts (giving JSON-encodable values) or rejects
// with a *ParamError.
func FuzzParseParams(f *testing.F) {
	schema := paramTestNode(f, paramTestSchemaJSON)
	readFile := paramTestFiles(map[string]string{
		"p.json": `{"command": "from-file", "timeout": 7, "opts": {"depth": 1}}`,
	})
	f.Fuzz(func(t *testing.T, joined, params string) {
		var args []string
		if joined != "" {
			args = strings.Split(joined, "\x00")
		}
		got, err := ParseParams(schema, args, params, readFile)
		var pe *ParamError
		if err != nil {
			if !errors.As(err, &pe) {
				t.Fatalf("ParseParams(%q, %q): error %T %v, want *ParamError", args, params, err, err)
			}
			if got != nil {
				t.Fatalf("ParseParams(%q, %q): both a result and an error", args, params)
			}
			if pe.Msg == "" || len(pe.Valid) == 0 {
				t.Fatalf("ParseParams(%q, %q): incomplete error %#v", args, params, pe)
			}
			return
		}
		again, err := ParseParams(schema, args, params, readFile)
		if err != nil || !reflect.DeepEqual(got, again) {
			t.Fatalf("ParseParams(%q, %q) is not deterministic: %v / %v, %v", args, params, got, again, err)
		}
		prepared, err := PrepareParams(schema, got)
		if err != nil {
			if !errors.As(err, &pe) {
				t.Fatalf("PrepareParams(%v): error %T %v, want *ParamError", got, err, err)
			}
			if pe.Msg == "" {
				t.Fatalf("PrepareParams(%v): empty message", got)
			}
			return
		}
		if _, err := json.Marshal(prepared); err != nil {
			t.Fatalf("PrepareParams(%v) gave values JSON cannot encode: %v", got, err)
		}
		if _, ok := prepared["command"].(string); !ok {
			t.Fatalf("PrepareParams(%v) accepted a non-string command: %#v", got, prepared["command"])
		}
	})
}
