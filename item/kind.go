package item

import (
	"fmt"
	"strings"
)

// Kind is what an item is: it decides the folder under .ai/, the file forms
// and the metadata rules.
type Kind string

const (
	Directive Kind = "directive"
	Tool      Kind = "tool"
	Knowledge Kind = "knowledge"
)

// Kinds lists the item kinds in the order rye reports them.
var Kinds = []Kind{Directive, Tool, Knowledge}

// kindInfo is the per-kind row of spec 1.1: the folder under .ai/ and the
// extensions in resolution order (spec 1.3). The order is part of the
// contract; it must never come from iterating a map.
var kindInfo = map[Kind]struct {
	folder string
	exts   []string
}{
	Directive: {"directives", []string{".md"}},
	Tool:      {"tools", []string{".py", ".yaml", ".yml", ".js", ".ts", ".sh", ".toml"}},
	Knowledge: {"knowledge", []string{".md", ".yaml", ".yml"}},
}

// ParseKind accepts a kind name as typed on the command line ("tool",
// "tools", "Tool").
func ParseKind(s string) (Kind, error) {
	switch strings.ToLower(s) {
	case "directive", "directives":
		return Directive, nil
	case "tool", "tools":
		return Tool, nil
	case "knowledge":
		return Knowledge, nil
	}
	return "", fmt.Errorf("unknown item kind %q: use directive, tool or knowledge", s)
}

// Valid reports whether k is one of the three kinds.
func (k Kind) Valid() bool { _, ok := kindInfo[k]; return ok }

// Folder is the folder below .ai/ that holds items of this kind.
func (k Kind) Folder() string { return kindInfo[k].folder }

// Extensions are the file extensions of this kind, in resolution order.
func (k Kind) Extensions() []string { return kindInfo[k].exts }

// HasExtension reports whether ext (with its dot) is a file form of k.
func (k Kind) HasExtension(ext string) bool {
	for _, e := range kindInfo[k].exts {
		if e == ext {
			return true
		}
	}
	return false
}

// KindOfFolder returns the kind stored in a folder below .ai/.
func KindOfFolder(folder string) (Kind, bool) {
	for _, k := range Kinds {
		if kindInfo[k].folder == folder {
			return k, true
		}
	}
	return "", false
}
