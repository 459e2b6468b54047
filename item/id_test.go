package item

import (
	"strings"
	"testing"

	"github.com/ryekit/rye/item/syntax"
)

func TestParseID(t *testing.T) {
	good := []string{"a", "rye/bash/bash", "my-project/x.y", "_x/0", "a/b.c-d_e", strings.Repeat("a", 255)}
	for _, s := range good {
		if _, err := ParseID(s); err != nil {
			t.Errorf("ParseID(%q): %v", s, err)
		}
	}
	bad := map[string]string{
		"":                       "empty",
		"/etc/passwd":            "absolute path",
		"a\\b":                   "backslash",
		"a//b":                   "segment 2 is empty",
		"a/":                     "segment 2 is empty",
		"a/../b":                 `segment 2 is ".."`,
		"./a":                    `segment 1 is "."`,
		"a/.hidden":              `starts with '.'`,
		"a/-x":                   `starts with '-'`,
		"a/b c":                  `contains ' '`,
		"a/b\x00c":               "control character U+0000",
		"a/b\nc":                 "control character U+000A",
		"a/é":                    `contains 'é'`,
		strings.Repeat("a", 256): "256 bytes",
	}
	for s, want := range bad {
		_, err := ParseID(s)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseID(%q) = %v, want error containing %q", s, err, want)
		}
		if err != nil && strings.ContainsAny(err.Error(), "\x00\n") {
			t.Errorf("error for %q carries a control character: %q", s, err)
		}
	}
}

func TestIDParts(t *testing.T) {
	id := MustID("rye/core/x")
	if id.Name() != "x" || id.Dir() != "rye/core" {
		t.Errorf("%q: name %q dir %q", id, id.Name(), id.Dir())
	}
	if id := MustID("top"); id.Dir() != "" || id.Name() != "top" {
		t.Errorf("top: %q %q", id.Dir(), id.Name())
	}
}

func TestKinds(t *testing.T) {
	for in, want := range map[string]Kind{"tool": Tool, "Tools": Tool, "directive": Directive, "directives": Directive, "knowledge": Knowledge} {
		if got, err := ParseKind(in); err != nil || got != want {
			t.Errorf("ParseKind(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseKind("knowledges"); err == nil {
		t.Error("knowledges accepted")
	}
	if got := strings.Join(Tool.Extensions(), " "); got != ".py .yaml .yml .js .ts .sh .toml" {
		t.Errorf("tool extensions %s", got)
	}
	if k, ok := KindOfFolder("knowledge"); !ok || k != Knowledge {
		t.Error("KindOfFolder(knowledge)")
	}
}

func TestSignatureSlot(t *testing.T) {
	cases := []struct {
		src, ext    string
		start, end  int
		hasLine     bool
		contentFrom int
	}{
		{"<!-- rye:signed:x -->\nbody", ".md", 0, 22, true, 22},
		{"body\n", ".md", 0, 5, false, 0},
		{"#!/bin/sh\n# rye:signed:x\necho\n", ".sh", 10, 25, true, 25},
		{"#!/bin/sh\necho\n", ".sh", 10, 15, false, 10},
		{"#!/x\n# rye:signed:x\n", ".yaml", 0, 5, false, 0}, // YAML has no shebang
		{BOM + "# rye:validated:x\nkey: v\n", ".yaml", 3, 21, true, 21},
		{"// rye:signed:x\n", ".js", 0, 16, true, 16},
		{"# rye:signed:x\n", ".js", 0, 15, false, 0}, // wrong envelope for JS
		{"", ".py", 0, 0, false, 0},
		{"#!/usr/bin/env python3", ".py", 22, 22, false, 22},
	}
	for _, c := range cases {
		start, end := SignatureSlot([]byte(c.src), c.ext)
		has := HasSignatureLine([]byte(c.src), c.ext)
		after := afterSignature([]byte(c.src), c.ext)
		if start != c.start || end != c.end || has != c.hasLine || after != c.contentFrom {
			t.Errorf("%q %s: slot [%d,%d) has=%v after=%d; want [%d,%d) %v %d", c.src, c.ext, start, end, has, after, c.start, c.end, c.hasLine, c.contentFrom)
		}
	}
}

func TestLineIndex(t *testing.T) {
	x := syntax.NewLineIndex([]byte("ab\ncd\n\nx"))
	for off, want := range map[int]string{0: "1:1", 1: "1:2", 3: "2:1", 6: "3:1", 7: "4:1", 8: "4:2", 99: "4:2", -5: "1:1"} {
		if got := x.Pos(off).String(); got != want {
			t.Errorf("Pos(%d) = %s, want %s", off, got, want)
		}
	}
	if x.Lines() != 4 || x.LineStart(2) != 3 || x.LineStart(9) != -1 {
		t.Errorf("lines %d start(2) %d", x.Lines(), x.LineStart(2))
	}
}

// Folders that walks skip cannot be part of an id: an item there could be
// resolved and run but never verified by a walk of the tree.
func TestIDsAvoidSkippedFolders(t *testing.T) {
	for _, s := range []string{"node_modules/evil", "a/__pycache__/x", "a/node_modules"} {
		if _, err := ParseID(s); err == nil || !strings.Contains(err.Error(), "a folder walks skip") {
			t.Errorf("%s: %v", s, err)
		}
	}
	if _, err := ParseID("my_node_modules/ok"); err != nil {
		t.Error(err)
	}
}

// ParseKindID reads the kind, then the id, and refuses with the first error.
func TestParseKindID(t *testing.T) {
	if k, id, err := ParseKindID("Tools", "acme/deploy"); err != nil || k != Tool || id != "acme/deploy" {
		t.Errorf("%q %q %v", k, id, err)
	}
	_, kindErr := ParseKind("bogus")
	_, idErr := ParseID("")
	for _, c := range []struct {
		kind, id string
		want     error
	}{{"bogus", "acme/deploy", kindErr}, {"bogus", "", kindErr}, {"tool", "", idErr}} {
		if _, _, err := ParseKindID(c.kind, c.id); err == nil || err.Error() != c.want.Error() {
			t.Errorf("%q %q: %v, want %v", c.kind, c.id, err, c.want)
		}
	}
}
