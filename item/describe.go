package item

import "github.com/ryekit/rye/item/syntax"

// description is an item's parsed metadata with positions, as rye load
// --json prints it (docs/json.md): its metadata tree, the body and the
// directive's preamble where the form has them, and the problems the
// reader found.
type description struct {
	Kind     Kind         `json:"kind"`
	ID       ID           `json:"id"`
	Space    string       `json:"space"`
	Path     string       `json:"path"`
	Form     Form         `json:"form"`
	Metadata *syntax.Node `json:"metadata"`
	// Positions says where each top-level field of Metadata is written:
	// its key and its value (line and byte column, 1-based, in the file
	// as stored).
	Positions map[string]fieldPos `json:"positions"`
	Body      *string             `json:"body,omitempty"`
	Preamble  *string             `json:"preamble,omitempty"`
	Problems  []problem           `json:"problems"`
}

// fieldPos is where a field's key and its value start.
type fieldPos struct {
	Line        int `json:"line"`
	Column      int `json:"column"`
	ValueLine   int `json:"value_line,omitempty"`
	ValueColumn int `json:"value_column,omitempty"`
}

// problem is a problem of a Description, where the reader found it.
type problem struct {
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
}

// Describe is the Description of it, whose metadata is md.
func Describe(it *Item, md *Metadata) *description {
	d := &description{Kind: it.Kind, ID: it.ID, Space: it.Space, Path: it.Path, Form: md.Form, Metadata: md.Fields, Problems: []problem{}}
	d.Positions = map[string]fieldPos{}
	if md.Fields != nil {
		for _, f := range md.Fields.Fields {
			p := fieldPos{Line: f.KeyPos.Line, Column: f.KeyPos.Col}
			if f.Value != nil && f.Value.Pos.IsValid() {
				p.ValueLine, p.ValueColumn = f.Value.Pos.Line, f.Value.Pos.Col
			}
			if !f.KeyPos.IsValid() { // a value derived, not written (a tool's name)
				continue
			}
			d.Positions[f.Key] = p
		}
	}
	if md.Form != formYAMLFile && md.Form != formPython && md.Form != formTOMLFile {
		d.Body = &md.Body
	}
	if it.Kind == Directive {
		d.Preamble = &md.Preamble
	}
	for _, p := range md.Problems {
		d.Problems = append(d.Problems, problem{Line: p.Pos.Line, Column: p.Pos.Col, Field: p.Field, Message: p.Msg})
	}
	return d
}
