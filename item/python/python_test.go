package python

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/ryekit/rye/item/syntax"
)

func readPyFile(t *testing.T, name string) *module {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "python", name))
	if err != nil {
		t.Fatal(err)
	}
	m, err := Read(src)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return m
}

// pyValue returns the value of the last binding of name, failing when it
// is not a literal.
func pyValue(t *testing.T, m *module, name string) *syntax.Node {
	t.Helper()
	a := m.Lookup(name)
	if a == nil {
		t.Fatalf("%s: not found", name)
	}
	if a.Value == nil {
		t.Fatalf("%s: not a literal: %s", name, a.Reason)
	}
	return a.Value
}

func checkPos(t *testing.T, what string, got syntax.Pos, want string) {
	t.Helper()
	if got.String() != want {
		t.Errorf("%s at %s, want %s", what, got, want)
	}
}

// checkReason checks that name is bound to something that is not a
// literal, for a reason that contains want.
func checkReason(t *testing.T, m *module, name, want string) {
	t.Helper()
	a := m.Lookup(name)
	switch {
	case a == nil:
		t.Errorf("%s: not found", name)
	case a.Value != nil:
		t.Errorf("%s = %v, want not a literal (%s)", name, a.Value.Plain(), want)
	case !strings.Contains(a.Reason, want):
		t.Errorf("%s: reason %q, want it to contain %q", name, a.Reason, want)
	}
}

func checkPlain(t *testing.T, m *module, name string, want any) {
	t.Helper()
	if got := pyValue(t, m, name).Plain(); !reflect.DeepEqual(got, want) {
		t.Errorf("%s = %#v, want %#v", name, got, want)
	}
}

func TestReadPythonTool(t *testing.T) {
	m := readPyFile(t, "tool_plain.py")
	if m.Docstring == nil || m.Docstring.Str != "Create or overwrite a file, invalidating line ID cache." {
		t.Fatalf("docstring = %+v", m.Docstring)
	}
	checkPos(t, "docstring", m.Docstring.Pos, "3:1")
	checkPos(t, "docstring end", m.Docstring.End, "3:62")

	checkPlain(t, m, "__version__", "1.0.0")
	checkPlain(t, m, "__tool_type__", "python")
	checkPlain(t, m, "__executor_id__", "rye/core/runtimes/python_function_runtime")
	checkPlain(t, m, "__category__", "rye/file-system")
	checkPlain(t, m, "__tool_description__", "Create or overwrite a file")

	// The __version__ assigned inside execute() is not module level.
	v := m.Lookup("__version__")
	checkPos(t, "__version__ name", v.NamePos, "10:1")
	checkPos(t, "__version__ expr", v.ExprPos, "10:15")
	checkPos(t, "__version__ value", v.Value.Pos, "10:15")
	checkPos(t, "__version__ end", v.Value.End, "10:22")
	if v.Value.Raw != `"1.0.0"` {
		t.Errorf("raw = %q", v.Value.Raw)
	}

	schema := pyValue(t, m, "CONFIG_SCHEMA")
	want := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"file_path": map[string]any{
				"type":        "string",
				"description": "Path to file (relative to project root or absolute)",
			},
			"content":     map[string]any{"type": "string", "description": "Content to write"},
			"create_dirs": map[string]any{"type": "boolean", "default": true},
			"mode":        map[string]any{"type": "integer", "default": int64(0o644), "minimum": int64(0)},
		},
		"required": []any{"file_path", "content"},
	}
	if got := schema.Plain(); !reflect.DeepEqual(got, want) {
		t.Errorf("CONFIG_SCHEMA = %#v", got)
	}
	checkPos(t, "CONFIG_SCHEMA", schema.Pos, "16:17")
	checkPos(t, "CONFIG_SCHEMA end", schema.End, "28:2")
	checkPos(t, "key type", schema.Field("type").KeyPos, "17:5")
	checkPos(t, "key properties", schema.Field("properties").KeyPos, "18:5")
	mode := schema.Get("properties").Get("mode").Get("default")
	if mode.Raw != "0o644" || mode.Kind != syntax.IntNode {
		t.Errorf("mode default = %+v", mode)
	}
	checkPos(t, "mode default", mode.Pos, "25:48")
	checkPos(t, "required", schema.Get("required").Pos, "27:17")

	checkReason(t, m, "execute", "bound by a def statement")
	checkReason(t, m, "Path", "bound by an import statement")
	if a := m.Lookup("file_path"); a != nil {
		t.Errorf("file_path (in a def body) recorded: %+v", a)
	}
	if a := m.Lookup("parser"); a != nil {
		t.Errorf("parser (in an if body) recorded: %+v", a)
	}
}

func TestReadPythonFStrings(t *testing.T) {
	m := readPyFile(t, "fstrings.py")
	// Every f-string is scanned to its true end, so the statements after
	// them are found where they are.
	checkPlain(t, m, "__version__", "2.0.0")
	checkPos(t, "__version__", m.Lookup("__version__").NamePos, "28:1")
	for _, name := range []string{"simple", "same_quotes", "nested", "spec", "spec_nested", "conversions",
		"braces", "multi", "single_multiline", "raw", "named", "dict_in", "lambda_in", "walrus_in",
		"triple_in_single", "bytes_concat", "__tool_description__"} {
		checkReason(t, m, name, "found an f-string at ")
	}
	// The reason points at the f-string in a concatenation.
	checkReason(t, m, "__category__", "found an f-string at 30:24")
	checkPos(t, "multi", m.Lookup("multi").NamePos, "15:1")
	checkPos(t, "single_multiline", m.Lookup("single_multiline").NamePos, "19:1")
	checkPlain(t, m, "names", []any{"a", "b"})
	if n := len(m.Assigns); n != 22 {
		t.Errorf("%d assignments, want 22", n)
	}
}

func TestReadPythonModernSyntax(t *testing.T) {
	m := readPyFile(t, "modern.py")
	checkPlain(t, m, "__version__", "3.1.4") // annotated
	checkPlain(t, m, "x", int64(5))
	checkReason(t, m, "a", "bound by a chained assignment")
	checkReason(t, m, "b", "bound by a chained assignment")
	checkReason(t, m, "t1", "bound by an unpacking assignment")
	checkReason(t, m, "t2", "bound by an unpacking assignment")
	checkReason(t, m, "counter", "bound by an augmented assignment (+=)")
	checkPlain(t, m, "one", int64(1))
	checkPlain(t, m, "two", int64(2))
	checkPlain(t, m, "three", "three")
	checkPos(t, "three", m.Lookup("three").NamePos, "14:19")
	checkReason(t, m, "Inline", "bound by a class statement")
	checkReason(t, m, "inline_def", "bound by a def statement")
	checkReason(t, m, "f", "found a lambda at 18:5")
	checkReason(t, m, "Alias", "bound by a type statement")
	checkPlain(t, m, "type", "the soft keyword as a name")
	checkPlain(t, m, "match", map[string]any{"soft": "keyword"})
	checkPlain(t, m, "case", []any{map[string]any{"soft": "keyword"}})
	checkPlain(t, m, "_", int64(0))
	checkPlain(t, m, "données", "non-ASCII identifier")
	checkPlain(t, m, "ключ", "ключ")
	checkPos(t, "ключ value", m.Lookup("ключ").Value.Pos, "25:12") // byte columns
	checkReason(t, m, "long_sum", "found the operator + at 26:14")
	checkPlain(t, m, "joined", "line one line two")
	implicit := pyValue(t, m, "implicit")
	if implicit.Str != "abc" {
		t.Errorf("implicit = %q", implicit.Str)
	}
	checkPos(t, "implicit", implicit.Pos, "30:13")
	checkPos(t, "implicit end", implicit.End, "32:16")
	if !strings.HasPrefix(implicit.Raw, `"a"`) || !strings.HasSuffix(implicit.Raw, `'c'`) {
		t.Errorf("implicit raw = %q", implicit.Raw)
	}
	checkPlain(t, m, "multi_target", map[string]any{"key": "value"})
	checkReason(t, m, "Point", "bound by a class statement")
	checkReason(t, m, "fetch", "bound by a def statement") // async def
	checkReason(t, m, "describe", "bound by a def statement")
	checkReason(t, m, "annotations", "bound by an import statement")
	checkReason(t, m, "field", "bound by an import statement")
	checkPlain(t, m, "CONFIG", map[string]any{"mode": "fast", "retries": int64(3), "ratio": -0.5,
		"big": int64(123456789), "hex": int64(255), "bin": int64(10)})
	ratio := pyValue(t, m, "CONFIG").Get("ratio")
	if ratio.Raw != "-0.5" {
		t.Errorf("ratio raw = %q", ratio.Raw)
	}
	checkPos(t, "ratio", ratio.Pos, "76:50")
	// Not module level: if/else/try bodies, the body of a one-line if,
	// class bodies, walrus.
	for _, name := range []string{"inline_if", "also_inline", "attr", "inside_if", "inside_else",
		"tomllib", "walrus", "y", "d", "n", "rest"} {
		if a := m.Lookup(name); a != nil {
			t.Errorf("%s recorded at %s", name, a.NamePos)
		}
	}
}

func TestReadPythonLineEndingsAndEncodings(t *testing.T) {
	t.Run("crlf", func(t *testing.T) {
		m := readPyFile(t, "crlf.py")
		if m.Docstring == nil || m.Docstring.Str != "CRLF\nline endings." {
			t.Fatalf("docstring = %+v", m.Docstring)
		}
		checkPos(t, "docstring end", m.Docstring.End, "4:17")
		checkPlain(t, m, "__version__", "1.0.0")
		checkPlain(t, m, "MULTI", "one\ntwo")
		if raw := pyValue(t, m, "MULTI").Raw; raw != "\"\"\"one\r\ntwo\"\"\"" {
			t.Errorf("MULTI raw = %q", raw)
		}
		checkPlain(t, m, "CONFIG", map[string]any{"a": int64(1), "b": []any{"x"}})
		checkPos(t, "CONFIG end", pyValue(t, m, "CONFIG").End, "14:2")
		checkPos(t, "key b", pyValue(t, m, "CONFIG").Field("b").KeyPos, "11:5")
		checkPlain(t, m, "LAST", "end")
		checkPos(t, "LAST", m.Lookup("LAST").NamePos, "17:1")
		if m.Lookup("NOT_MODULE") != nil {
			t.Error("NOT_MODULE (in an if body) recorded")
		}
	})
	t.Run("bom", func(t *testing.T) {
		m := readPyFile(t, "bom.py")
		if m.Docstring == nil || m.Docstring.Str != "Docstring after a BOM." {
			t.Fatalf("docstring = %+v", m.Docstring)
		}
		// Positions count the BOM's bytes.
		checkPos(t, "docstring", m.Docstring.Pos, "1:4")
		if m.Docstring.Pos.Offset != 3 {
			t.Errorf("docstring offset %d", m.Docstring.Pos.Offset)
		}
		checkPlain(t, m, "__version__", "1.2.3")
	})
	t.Run("latin-1", func(t *testing.T) {
		m := readPyFile(t, "latin1.py")
		if m.Docstring == nil || m.Docstring.Str != "Café docstring." {
			t.Fatalf("docstring = %+v", m.Docstring)
		}
		checkPlain(t, m, "__tool_description__", "Grüße aus Köln")
		checkPlain(t, m, "ESCAPED", "é é")
		checkPlain(t, m, "RAW_BYTES", "caf\xe9") // bytes stay bytes
		// The Raw text is the source bytes, in the file's encoding.
		if raw := pyValue(t, m, "__tool_description__").Raw; raw != "\"Gr\xfc\xdfe aus K\xf6ln\"" {
			t.Errorf("raw = %q", raw)
		}
		checkPos(t, "ESCAPED", m.Lookup("ESCAPED").NamePos, "4:1")
	})
	for _, name := range []string{"empty.py", "shebang_only.py"} {
		t.Run(name, func(t *testing.T) {
			m := readPyFile(t, name)
			if m.Docstring != nil || len(m.Assigns) != 0 {
				t.Errorf("got %+v", m)
			}
		})
	}
}

func TestReadPythonNames(t *testing.T) {
	m := readPyFile(t, "names.py")
	checkPlain(t, m, "__version__", "1.4.0")
	// A name copies the earlier value, positions included.
	checkPos(t, "__version__ value", pyValue(t, m, "__version__").Pos, "4:11")
	checkPlain(t, m, "CONFIG_SCHEMA", map[string]any{
		"type": "object",
		"properties": map[string]any{
			"kind":    map[string]any{"enum": []any{"string", "integer"}},
			"version": map[string]any{"const": "1.4.0"},
		},
	})
	checkReason(t, m, "__executor_id__", "not a literal: the value is not visible without running the file (found a call to os.getenv at 11:19)")
	checkReason(t, m, "__tool_type__", "found a call to __tool_type__.upper at 15:17")
	checkReason(t, m, "ENV_CONFIG", "found the name UNDEFINED_NAME at 16:23, which is not an earlier module-level literal")
	checkPlain(t, m, "__tool_description__", "Describe the names") // the one in the if body does not count
	checkReason(t, m, "CONFIG", "changed in place by an assignment to one of its items")
	checkReason(t, m, "__category__", "bound by a def statement")
	checkReason(t, m, "ENV", "bound by an import statement")
	// Every binding is kept, in source order.
	var cats []string
	for _, a := range m.Assigns {
		if a.Name == "__category__" && a.Value != nil {
			cats = append(cats, a.Value.Str)
		}
	}
	if !reflect.DeepEqual(cats, []string{"first", "second"}) {
		t.Errorf("__category__ values %v", cats)
	}
}

func TestReadPythonBrokenFiles(t *testing.T) {
	for _, tc := range []struct{ file, pos, msg string }{
		{"broken_triple.py", "3:8", "unterminated triple-quoted string literal"},
		{"broken_bracket.py", "3:15", "closing parenthesis '}' does not match opening parenthesis '[' at 3:10"},
		{"broken_unclosed.py", "2:10", "'{' was never closed"},
		{"broken_dedent.py", "3:5", "unindent does not match any outer indentation level"},
	} {
		src, err := os.ReadFile(filepath.Join("testdata", "python", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		m, err := Read(src)
		e, ok := err.(*syntax.Error)
		if !ok || m != nil {
			t.Errorf("%s: got %v, %v; want an *Error", tc.file, m, err)
			continue
		}
		if e.Pos.String() != tc.pos || e.Msg != tc.msg {
			t.Errorf("%s: error %s: %s, want %s: %s", tc.file, e.Pos, e.Msg, tc.pos, tc.msg)
		}
	}
}

// TestReadPythonSnippets checks the tokenizer and the evaluator on small
// sources: the value of x, or why it is not a literal, or the error.
// Sources marked as rejected by CPython in a comment are read leniently:
// CPython rejects them after tokenizing.
func TestReadPythonSnippets(t *testing.T) {
	for _, tc := range []struct {
		src    string
		want   any    // Plain() of x
		reason string // else: part of the Reason of x
		err    string // else: part of the error
	}{
		// Strings.
		{src: `x = "a" 'b' """c""" '''d'''`, want: "abcd"},
		{src: `x = 'a\nb\tc\\d\'e\"f\a\b\f\v\r'`, want: "a\nb\tc\\d'e\"f\a\b\f\v\r"},
		{src: `x = '\101\0\7\777'`, want: "A\x00\x07\u01ff"},
		{src: `x = '\x41\u00e9\U0001F600'`, want: "Aé😀"},
		{src: `x = '\d\w \u00'`, reason: "truncated \\u escape"},
		{src: `x = '\d\w'`, want: `\d\w`}, // unknown escapes keep the backslash
		{src: `x = '\N{BULLET} x'`, want: `\N{BULLET} x`},
		{src: "x = 'a\\\nb'", want: "ab"},
		{src: "x = '''a\\\nb\nc'''", want: "ab\nc"},
		{src: `x = r'\n\'' R"\d"`, want: `\n\'\d`},
		{src: `x = b'\x00\xff\u0041' B'\101'`, want: "\x00\xff\\u0041A"},
		{src: `x = rb'\x00' Br'\n'`, want: `\x00\n`},
		{src: `x = b'\777'`, want: "\xff"},
		{src: `x = u'unicode'`, want: "unicode"},
		{src: `x = 'a' b'b'`, reason: "bytes and str literals cannot be concatenated"},
		{src: `x = 'a' f'{b}'`, reason: "found an f-string at 1:9"},
		{src: `x = t'{b}'`, reason: "found a t-string"},
		{src: `x = ("a"` + "\n" + `     "b")`, want: "ab"},
		{src: `x = ''`, want: ""},
		{src: `x = """"""`, want: ""},
		{src: `x = 'abc\\'`, want: `abc\`},
		{src: `x = r'abc\''`, want: `abc\'`},
		// Numbers.
		{src: `x = 0`, want: int64(0)},
		{src: `x = 00`, want: int64(0)},
		{src: `x = 1_000_000`, want: int64(1000000)},
		{src: `x = 0x_FF, 0o17, 0B101`, want: []any{int64(255), int64(15), int64(5)}},
		{src: `x = 9223372036854775807`, want: int64(math.MaxInt64)},
		{src: `x = -9223372036854775808`, want: int64(math.MinInt64)},
		{src: `x = 9223372036854775808`, want: 9223372036854775808.0},
		{src: `x = 10**2`, reason: "found the operator ** at 1:7"},
		{src: `x = 1.5, .5, 1., 1e3, 1E-3, 1_0.0_1e1_0`, want: []any{1.5, 0.5, 1.0, 1000.0, 0.001, 10.01e10}},
		{src: `x = 1e400`, want: math.Inf(1)},
		{src: `x = -1`, want: int64(-1)},
		{src: `x = - 2.5`, want: -2.5},
		{src: `x = +3`, want: int64(3)},
		{src: `x = -(1)`, want: int64(-1)},
		{src: `x = --1`, reason: "found the operator - at 1:6"},
		{src: `x = -(-1)`, reason: "the unary operator - on something that is not a number"},
		{src: `x = -True`, reason: "the unary operator -"},
		{src: `x = 2j`, want: "2j"},
		{src: `x = 1 + 2j`, want: "1 + 2j"},
		{src: `x = -1.5-2J`, want: "-1.5-2J"},
		{src: `x = 1j + 2j`, reason: "found the operator + at 1:8"},
		{src: `x = 1 + 2`, reason: "found the operator + at 1:7"},
		{src: `x = 1 + 2j + 3j`, reason: "found the operator + at 1:12"},
		{src: `x = 0777`, reason: "the number 0777 is not valid Python"}, // rejected by CPython
		{src: `x = 1__0`, reason: "the number 1__0 is not valid Python"}, // rejected by CPython
		// Constants and containers.
		{src: `x = True, False, None`, want: []any{true, false, nil}},
		{src: `x = ()`, want: []any{}},
		{src: `x = (1,)`, want: []any{int64(1)}},
		{src: `x = (1)`, want: int64(1)},
		{src: `x = 1, 2,`, want: []any{int64(1), int64(2)}},
		{src: `x = [1, [2, (3, {})], []]`, want: []any{int64(1), []any{int64(2), []any{int64(3), map[string]any{}}}, []any{}}},
		{src: `x = {1, 2, 1, "1"}`, want: []any{int64(1), int64(2), "1"}},
		{src: `x = set()`, want: []any{}},
		{src: `x = set([1])`, reason: "found a call to set at 1:5"},
		{src: `x = {"a": 1, "a": 2}`, want: map[string]any{"a": int64(2)}},
		{src: `x = {1: "int", 2.5: "float", None: "none", (1, 2): "tuple", b"k": "bytes", -1: "neg"}`,
			want: map[string]any{"1": "int", "2.5": "float", "None": "none", "(1, 2)": "tuple", `b"k"`: "bytes", "-1": "neg"}},
		{src: `x = {[1]: 2}`, reason: "a dict key must be hashable, and a list is not"},
		{src: `x = {(1, [2]): 2}`, reason: "a dict key must be hashable, and a tuple holding a list, dict or set is not"},
		{src: `x = {{1}}`, reason: "a set element must be hashable"},
		{src: `x = {**a}`, reason: "found a dict unpacking (**) at 1:6"},
		{src: `x = {"a": 1, **b}`, reason: "found a dict unpacking (**) at 1:14"},
		{src: `x = [*a]`, reason: "found a starred expression (*) at 1:6"},
		{src: `x = [i for i in y]`, reason: "found a comprehension at 1:8"},
		{src: `x = 1 if y else 2`, reason: "found a conditional expression (if/else) at 1:7"},
		{src: `x = not 1`, reason: "found the operator not at 1:5"},
		{src: `x = lambda: 1`, reason: "found a lambda at 1:5"},
		{src: `x = ...`, reason: "found an Ellipsis (...) at 1:5"},
		{src: `x = "a".join(b)`, reason: "found a call to the method .join at 1:8"},
		{src: `x = "a".upper`, reason: "found the attribute .upper at 1:8"},
		{src: `x = [1 and 2]`, reason: "found the operator and at 1:8"},
		{src: `x = [1][0]`, reason: "found a subscript at 1:8"},
		{src: `x = a.b.c`, reason: "found the attribute a.b.c at 1:5"},
		{src: `x = a.b[0]`, reason: "found a subscript of a.b at 1:5"},
		{src: `x = (y := 1)`, reason: "found an assignment expression (:=) at 1:8"},
		{src: `x = await y`, reason: "found an await expression at 1:5"},
		{src: `x = yield`, reason: "found a yield expression at 1:5"},
		{src: `x =`, reason: "the assignment has no value"},
		{src: `x = 1 2`, reason: "found the number 2 at 1:7"},
		// Names.
		{src: "a = 1\nx = [a, -1]", want: []any{int64(1), int64(-1)}},
		{src: "a = 1\nx = -a", reason: "the unary operator - on something that is not a number"},
		{src: "a = 'k'\nx = {a: a}", want: map[string]any{"k": "k"}},
		{src: "a = 1\nx = {a: 2}", want: map[string]any{"1": int64(2)}},
		{src: "a = []\nx = {a: 2}", reason: "a dict key must be hashable, and a list is not"},
		{src: "x = 1\nx = [x, x]", want: []any{int64(1), int64(1)}},
		{src: "a = f()\nx = a", reason: "found the name a at 2:5, which is bound at 1:1 to something that is not a literal"},
		{src: "x = a\na = 1", reason: "found the name a at 1:5, which is not an earlier module-level literal"},
		{src: "a = 1\ndel a\nx = a", reason: "which is bound at 2:5 to something"},
		{src: "x = 1\ndel x", reason: "deleted by a del statement"},
		{src: "x = [1]\ndel x[0]", reason: "changed in place by a del statement"},
		{src: "x = {}\nx.y: int = 1", reason: "changed in place by an assignment to one of its items or attributes"},
		{src: "x = 1\nx, y = 1, 2", reason: "bound by an unpacking assignment"},
		{src: "x = 1\n[y, *x] = 1, 2", reason: "bound by an unpacking assignment"},
		{src: "x = 1\nx **= 2", reason: "bound by an augmented assignment (**=)"},
		{src: "x = 1\nimport a.b as x", reason: "bound by an import statement"},
		{src: "x = 1\nfrom . import (y, z as x)", reason: "bound by an import statement"},
		{src: "x = 1\nimport x.y", reason: "bound by an import statement"},
		{src: "x = 1\nclass x: pass", reason: "bound by a class statement"},
		{src: "x = 1\nasync def x(): pass", reason: "bound by a def statement"},
		{src: "x = 1\ntype x[T] = list[T]", reason: "bound by a type statement"},
		// Statements.
		{src: "x: int = 5", want: int64(5)},
		{src: "(x): int = 5", want: int64(5)},
		{src: "((x)) = 5", want: int64(5)},
		{src: "x = 5\nx: int", want: int64(5)}, // an annotation alone binds nothing
		{src: "x = 1; y = 2", want: int64(1)},
		{src: "y = 1; x = 2", want: int64(2)},
		{src: "x = 1;", want: int64(1)},
		{src: "x = f(a=1, b={'c': 2})", reason: "found a call to f at 1:5"},
		{src: "x = lambda y=1: y", reason: "found a lambda"},
		{src: "x = 1\nif x: x = 2", want: int64(1)},
		{src: "x = 1\nwhile 0: x = 2", want: int64(1)},
		{src: "x = 1\nfor i in y: x = 2", want: int64(1)},
		{src: "x = 1\n@d\ndef f(x=2): x = 3", want: int64(1)},
		{src: "x = 1\ndef f():\n    x = 2\n    global x\n", want: int64(1)},
		{src: "x = 1\nclass C:\n    x = 2\n", want: int64(1)},
		{src: "x = 1\nmatch x:\n    case 1:\n        x = 2\n", want: int64(1)},
		{src: "x = 1\nprint(x == 2, x != 3, x <= 4, x >= 5)", want: int64(1)},
		{src: "x = 1\ny[x] = 2\ny = {x: 2}", want: int64(1)},
		{src: "x = 1 \\\n  + 2j", want: "1 \\\n  + 2j"},
		{src: "x = 1 # comment with = and 'quote\ny = 2", want: int64(1)},
		{src: "x = 1\r\n", want: int64(1)},
		{src: "x = 1\ry = 2\r", want: int64(1)}, // old Mac line endings
		{src: "if y:\n  \f  z = 1\nx = 1", want: int64(1)},
		{src: "x = 1\n  \n    # indented comment\ny = 2", want: int64(1)},
		{src: "def f():\n    return 1\n# comment at col 0\n    x = 2\nx = 3", want: int64(3)},
		{src: "x = (\n# comment only\n\n1)", want: int64(1)},
		// Column 0 inside a string or brackets is not a statement.
		{src: "x = '''\ny = 1\n'''", want: "\ny = 1\n"},
		{src: "x = 1\ny = [\nx\n]\nz = (\nx := 2)", want: int64(1)},
		{src: "x = 1\ny = \\\nx", want: int64(1)},
		// F-strings: the scanner finds their end, or fails.
		{src: `x = f'{x!r}', 1`, reason: "found an f-string"},
		{src: `y = f'{"}"}' ; x = 1`, want: int64(1)},
		{src: `y = f"{'\N{BULLET}'}"; x = 1`, want: int64(1)},
		{src: `y = f'\N{BULLET}{x}'; x = 1`, want: int64(1)},
		{src: `y = rf'\N{x}'; x = 1`, want: int64(1)},
		{src: `y = f'\{6}'; x = 1`, want: int64(1)},
		{src: `y = f'{x:{{}}>10}'; x = 1`, want: int64(1)},
		{src: `y = f'{x:=5}'; x = 1`, want: int64(1)},
		{src: `y = f'{x}}}'; x = 1`, want: int64(1)},
		{src: "y = f'{x:\n}'; x = 1", want: int64(1)},
		{src: "y = f'{x # comment }\n}'; x = 1", want: int64(1)},
		{src: `y = f'{f'{f'{1}'}'}' ; x = 1`, want: int64(1)},
		{src: `y = f'{'''}'''}' ; x = 1`, want: int64(1)},
		{src: `y = f'{x'`, err: "1:9: unterminated string literal"}, // the quote starts a string (PEP 701)
		{src: `y = f'{'`, err: "1:8: unterminated string literal"},
		{src: `y = f'{x:'`, err: "1:5: f-string: expecting '}'"},
		{src: "y = f'{x}\n'", err: "1:5: unterminated string literal"},
		{src: "y = f'''{x}\n", err: "1:5: unterminated triple-quoted string literal"},
		// Tokenizer errors.
		{src: `x = 'abc`, err: "1:5: unterminated string literal"},
		{src: "x = 'abc\ny'", err: "1:5: unterminated string literal"},
		{src: `x = r'abc\'`, err: "1:5: unterminated string literal"},
		{src: `x = '''''''`, err: "1:11: unterminated string literal"},
		{src: "x = (1,\n", err: "1:5: '(' was never closed"},
		{src: "x = 1)", err: "1:6: unmatched ')'"},
		{src: "x = $", err: "1:5: invalid character '$'"},
		{src: "x = `1`", err: "1:5: invalid character '`'"},
		{src: "x = ?", err: "1:5: invalid character '?'"},
		{src: "x = 1\x00", err: "1:6: source code cannot contain null bytes"},
		{src: "x = 1 \\ y", err: "1:7: unexpected character after line continuation character"},
		{src: "x = 1 + \\\n", err: "unexpected end of file after a line continuation character"},
		{src: "if x:\n\ty = 1\n        z = 2\n", err: "3:9: inconsistent use of tabs and spaces in indentation"},
		{src: "if x:\n        y = 1\n\tz = 2\n", err: "3:2: inconsistent use of tabs and spaces in indentation"},
		{src: "x = " + strings.Repeat("(", 201) + strings.Repeat(")", 201), err: "1:205: too many nested parentheses"},
		{src: "x = " + strings.Repeat("f'{", 202) + strings.Repeat("}'", 202), err: "f-string nested too deeply"},
	} {
		m, err := Read([]byte(tc.src))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want %q", tc.src, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.src, err)
			continue
		}
		a := m.Lookup("x")
		switch {
		case a == nil:
			t.Errorf("%q: x not found", tc.src)
		case tc.reason != "":
			if a.Value != nil || !strings.Contains(a.Reason, tc.reason) {
				t.Errorf("%q: x = %v, reason %q, want reason %q", tc.src, a.Value.Plain(), a.Reason, tc.reason)
			}
		case a.Value == nil:
			t.Errorf("%q: x not a literal: %s", tc.src, a.Reason)
		case !reflect.DeepEqual(a.Value.Plain(), tc.want):
			t.Errorf("%q: x = %#v, want %#v", tc.src, a.Value.Plain(), tc.want)
		}
	}
}

// TestReadPythonNodePositions checks Pos, End and Raw of each kind of node.
func TestReadPythonNodePositions(t *testing.T) {
	src := "x = {\n  'k': [-1, 2.5, 3j, b'b', None, (1, 2), 1 + 2j],\n  0x1F: {True},\n}\n"
	m, err := Read([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	x := pyValue(t, m, "x")
	checkPos(t, "dict", x.Pos, "1:5")
	checkPos(t, "dict end", x.End, "4:2")
	checkPos(t, "key k", x.Field("k").KeyPos, "2:3")
	checkPos(t, "key 0x1F", x.Field("0x1F").KeyPos, "3:3")
	list := x.Get("k")
	checkPos(t, "list", list.Pos, "2:8")
	checkPos(t, "list end", list.End, "2:49")
	for i, want := range []struct{ pos, end, raw string }{
		{"2:9", "2:11", "-1"},
		{"2:13", "2:16", "2.5"},
		{"2:18", "2:20", "3j"},
		{"2:22", "2:26", "b'b'"},
		{"2:28", "2:32", "None"},
		{"2:34", "2:40", ""}, // containers have no Raw
		{"2:42", "2:48", "1 + 2j"},
	} {
		it := list.Items[i]
		if it.Pos.String() != want.pos || it.End.String() != want.end || it.Raw != want.raw {
			t.Errorf("item %d at %s-%s raw %q, want %s-%s %q", i, it.Pos, it.End, it.Raw, want.pos, want.end, want.raw)
		}
		if want.raw != "" && src[it.Pos.Offset:it.End.Offset] != want.raw {
			t.Errorf("item %d: offsets %d-%d do not hold its raw text", i, it.Pos.Offset, it.End.Offset)
		}
	}
	set := x.Get("0x1F")
	checkPos(t, "set", set.Pos, "3:9")
	checkPos(t, "True", set.Items[0].Pos, "3:10")
}

func TestPyEncoding(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"", pyUTF8},
		{"# -*- coding: latin-1 -*-\n", pyLatin1},
		{"#!/usr/bin/python\n# vim: set fileencoding=iso-8859-1 :\n", pyLatin1},
		{"x = 1\n# coding: latin-1\n", pyUTF8}, // line 2 counts only after a comment or blank line
		{"\n# coding=cp1252\n", pyCP1252},
		{"# coding: Latin_1\n", pyLatin1},
		{"# coding: utf8\n", pyUTF8},
		{"# coding: koi8-r\n", "koi8-r"},
		{"# no cookie\n# still none\n# coding: latin-1\n", pyUTF8},
		{"#coding:\n", pyUTF8},
		{"#!/usr/bin/python\r# coding: latin-1\r", pyLatin1}, // old Mac line breaks
		{"#!/usr/bin/python\r\n# coding: latin-1\r\n", pyLatin1},
		{"x = 1\r# coding: latin-1\n", pyUTF8}, // a \r ends line 1 before the \n
		{" \t\f# codings, then coding=cp1252\n", pyCP1252},
		{"# coding: latin-1", pyLatin1}, // no line break at all
	} {
		if got := pyEncoding([]byte(tc.src)); got != tc.want {
			t.Errorf("%q: %q, want %q", tc.src, got, tc.want)
		}
	}
	// Strings in an encoding rye cannot decode are reported, not guessed.
	m, err := Read([]byte("# coding: koi8-r\nx = '\xf0\xd2\xc9'\ny = 'ascii is fine'\n"))
	if err != nil {
		t.Fatal(err)
	}
	checkReason(t, m, "x", "the string is in the file's encoding koi8-r, which rye does not decode")
	checkPlain(t, m, "y", "ascii is fine")
	m, err = Read([]byte("x = '\xff'\n"))
	if err != nil {
		t.Fatal(err)
	}
	checkReason(t, m, "x", "not valid UTF-8")
	m, err = Read([]byte("# coding: cp1252\nx = '\x80\x93'\n"))
	if err != nil {
		t.Fatal(err)
	}
	checkPlain(t, m, "x", "€“")
}

// TestReadPythonLimits checks that values built from names cannot grow
// without bound.
func TestReadPythonLimits(t *testing.T) {
	var b strings.Builder
	b.WriteString("a0 = [1, 1]\n")
	for i := 1; i <= 40; i++ {
		prev := "a" + strconv.Itoa(i-1)
		b.WriteString("a" + strconv.Itoa(i) + " = [" + prev + ", " + prev + "]\n")
	}
	m, err := Read([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if m.Lookup("a10").Value == nil {
		t.Error("a10 should still be a literal")
	}
	for _, a := range m.Assigns {
		if a.Value == nil {
			// The first value that is not a literal is the one too large.
			if !strings.Contains(a.Reason, "the value is too large") {
				t.Errorf("%s: %s", a.Name, a.Reason)
			}
			break
		}
	}
	checkReason(t, m, "a40", "found the name a39")

	b.Reset()
	b.WriteString("d0 = " + strings.Repeat("[", 150) + strings.Repeat("]", 150) + "\n")
	b.WriteString("d1 = " + strings.Repeat("[", 60) + "d0" + strings.Repeat("]", 60) + "\n")
	m, err = Read([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if m.Lookup("d0").Value == nil {
		t.Error("d0 should be a literal")
	}
	checkReason(t, m, "d1", "the value is nested too deeply")
}

func TestPyModuleLookupNil(t *testing.T) {
	var m *module
	if m.Lookup("x") != nil {
		t.Error("Lookup on nil module")
	}
}

func BenchmarkReadPython(b *testing.B) {
	src, err := os.ReadFile(filepath.Join("testdata", "python", "tool_plain.py"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Read(src); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadPythonLarge measures the tokenizer on a large file that is
// mostly code that is not metadata.
func BenchmarkReadPythonLarge(b *testing.B) {
	src, err := os.ReadFile(filepath.Join("testdata", "python", "modern.py"))
	if err != nil {
		b.Fatal(err)
	}
	// The file's statements, 400 times, in the body of a class: all code
	// to tokenize, nothing to evaluate.
	body := bytes.ReplaceAll(bytes.Repeat(src, 400), []byte("\n"), []byte("\n    "))
	src = append([]byte("class Big:\n    "), body...)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Read(src); err != nil {
			b.Fatal(err)
		}
	}
}
