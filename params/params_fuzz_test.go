package params

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// FuzzParseParams feeds command lines (arguments joined by "\x00") and
// --params values to Parse with a realistic schema: it never panics,
// every error is a *Error, and a parameter object it builds is one
// Prepare either accepts (giving JSON-encodable values) or rejects
// with a *Error.
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
		got, err := Parse(schema, args, params, readFile)
		var pe *Error
		if err != nil {
			if !errors.As(err, &pe) {
				t.Fatalf("Parse(%q, %q): error %T %v, want *Error", args, params, err, err)
			}
			if got != nil {
				t.Fatalf("Parse(%q, %q): both a result and an error", args, params)
			}
			if pe.Msg == "" || len(pe.Valid) == 0 {
				t.Fatalf("Parse(%q, %q): incomplete error %#v", args, params, pe)
			}
			return
		}
		again, err := Parse(schema, args, params, readFile)
		if err != nil || !reflect.DeepEqual(got, again) {
			t.Fatalf("Parse(%q, %q) is not deterministic: %v / %v, %v", args, params, got, again, err)
		}
		prepared, err := Prepare(schema, got)
		if err != nil {
			if !errors.As(err, &pe) {
				t.Fatalf("Prepare(%v): error %T %v, want *Error", got, err, err)
			}
			if pe.Msg == "" {
				t.Fatalf("Prepare(%v): empty message", got)
			}
			return
		}
		if _, err := json.Marshal(prepared); err != nil {
			t.Fatalf("Prepare(%v) gave values JSON cannot encode: %v", got, err)
		}
		if _, ok := prepared["command"].(string); !ok {
			t.Fatalf("Prepare(%v) accepted a non-string command: %#v", got, prepared["command"])
		}
	})
}

// FuzzParseUnchecked feeds command lines to Parse for a tool that declares
// no schema: it never panics, every error is a *Error that does not claim
// the tool takes no parameters, a result is deterministic and JSON can
// encode it, and Prepare passes it on unchanged.
func FuzzParseUnchecked(f *testing.F) {
	readFile := paramTestFiles(map[string]string{"p.json": `{"a": 1, "b": [true]}`})
	f.Fuzz(func(t *testing.T, joined, params string) {
		var args []string
		if joined != "" {
			args = strings.Split(joined, "\x00")
		}
		got, err := Parse(nil, args, params, readFile)
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) || !pe.Unchecked || pe.Msg == "" || strings.Contains(pe.Error(), "takes no parameters") {
				t.Fatalf("Parse(%q, %q): error %T %v", args, params, err, err)
			}
			return
		}
		again, err := Parse(nil, args, params, readFile)
		if err != nil || !reflect.DeepEqual(got, again) {
			t.Fatalf("Parse(%q, %q) is not deterministic", args, params)
		}
		if _, err := json.Marshal(got); err != nil {
			t.Fatalf("Parse(%q, %q) gave values JSON cannot encode: %v", args, params, err)
		}
		prepared, err := Prepare(nil, got)
		if err != nil || !reflect.DeepEqual(prepared, got) {
			t.Fatalf("Prepare changed %v: %v, %v", got, prepared, err)
		}
	})
}
