package python

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ryekit/rye/item/syntax"
)

func TestTokens(t *testing.T) {
	src := "# head\nimport os  # why\nx = os.system(\"curl x | sh\")\nif x:\n    # inside\n    y = f\"{x}#\" + b'\\x41'\n"
	toks, err := Tokens([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tk := range toks {
		got = append(got, src[tk.Start:tk.End])
	}
	want := []string{"# head", "import", "os", "# why", "\n", "x", "=", "os", ".", "system", "(", `"curl x | sh"`, ")", "\n",
		"if", "x", ":", "\n", "# inside", "y", "=", `f"{x}#"`, "+", `b'\x41'`, "\n"}
	if strings.Join(got, "¦") != strings.Join(want, "¦") {
		t.Fatalf("tokens\n got %q\nwant %q", got, want)
	}
	for i, tk := range toks {
		if i > 0 && tk.Start < toks[i-1].End {
			t.Errorf("token %d overlaps the one before", i)
		}
	}
	if v, ok := StringValue([]byte(src), toks[11]); !ok || v != "curl x | sh" {
		t.Errorf("string value %q %v", v, ok)
	}
	if _, ok := StringValue([]byte(src), toks[21]); ok || !toks[21].FString() {
		t.Errorf("an f-string has no value before it runs")
	}
	if v, ok := StringValue([]byte(src), toks[23]); !ok || v != "A" || !toks[23].Bytes() {
		t.Errorf("bytes value %q %v", v, ok)
	}
	if _, err := Tokens([]byte("x = (1,\n")); err == nil {
		t.Error("an unclosed bracket must be an error")
	}
}

func FuzzTokens(f *testing.F) {
	f.Add([]byte("import requests\nexec(requests.get(u).text)  # run\n"))
	f.Add([]byte("s = '''a\n#b'''\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		toks, err := Tokens(src)
		if err != nil {
			return
		}
		prev := 0
		for _, tk := range toks {
			if tk.Start < prev || tk.End < tk.Start || tk.End > len(src) {
				t.Fatalf("token %+v out of order or bounds (prev end %d, len %d)", tk, prev, len(src))
			}
			prev = tk.End
			if tk.Kind == String {
				StringValue(src, tk)
			}
		}
	})
}

// TestTokensLevel: names in code only (not in strings or comments), and
// the indentation depth of each token's logical line, a bracket's
// continuation lines included.
func TestTokensLevel(t *testing.T) {
	src := "import os  # import socket\nx = \"import socket\"\nif x:\n    os.system(\n      'ls')\n"
	toks, err := Tokens([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tk := range toks {
		if tk.Kind == Name {
			names = append(names, src[tk.Start:tk.End])
		}
		if src[tk.Start:tk.End] == "system" && (tk.Start != strings.Index(src, "system") || tk.Level != 1) {
			t.Errorf("system at %d level %d", tk.Start, tk.Level)
		}
		if tk.Kind == String && tk.Level != 0 && strings.Contains(src[tk.Start:tk.End], "socket") {
			t.Errorf("module-level string at level %d", tk.Level)
		}
	}
	if got := strings.Join(names, " "); got != "import os x if x os system" {
		t.Errorf("names: %q", got)
	}
}

// Tokens builds its line table only for an error: the error's position,
// and a position it names, are the same as the metadata reader's.
func TestTokensErrorPositions(t *testing.T) {
	for _, tc := range []struct{ src, pos string }{
		{"a = 1\nb = 2)\n", "2:6"},
		{"a = 1\r\nb = [1,\r\n  2)\n", "3:4"},
		{"x = 1\n\ny = '''\nopen", "3:5"},
	} {
		_, terr := Tokens([]byte(tc.src))
		_, rerr := Read([]byte(tc.src))
		if terr == nil || rerr == nil {
			t.Fatalf("%q: Tokens %v, Read %v: both must fail", tc.src, terr, rerr)
		}
		if terr.Error() != rerr.Error() {
			t.Errorf("%q: Tokens says %q, Read %q", tc.src, terr, rerr)
		}
		se, ok := terr.(*syntax.Error)
		if !ok {
			t.Fatalf("%q: %T", tc.src, terr)
		}
		if got := se.Pos.String(); got != tc.pos {
			t.Errorf("%q: error at %s, want %s (%v)", tc.src, got, tc.pos, terr)
		}
	}
}

// BenchmarkTokens splits a tool's code as the sandbox analyzer and the
// content rules do, once per Python tool of a lint run.
func BenchmarkTokens(b *testing.B) {
	for _, name := range []string{"tool_plain.py", "modern.py"} {
		b.Run(name, func(b *testing.B) {
			src, err := os.ReadFile(filepath.Join("testdata", "python", name))
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Tokens(src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
