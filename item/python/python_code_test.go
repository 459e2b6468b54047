package python

import (
	"strings"
	"testing"
)

func TestTokens(t *testing.T) {
	src := "import os  # import socket\nx = \"import socket\"\nif x:\n    os.system(\n      'ls')\n"
	toks, err := Tokens([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tk := range toks {
		if tk.Kind == Name {
			names = append(names, tk.Text)
		}
	}
	if got := strings.Join(names, " "); got != "import os x if x os system" {
		t.Errorf("names: %q", got)
	}
	for _, tk := range toks {
		if tk.Text == "system" && (tk.Pos.Line != 4 || tk.Pos.Col != 8 || tk.Level != 1) {
			t.Errorf("system at %v level %d", tk.Pos, tk.Level)
		}
	}
	if _, err := Tokens([]byte("x = '\n")); err == nil {
		t.Error("an unterminated string tokenized")
	}
}
