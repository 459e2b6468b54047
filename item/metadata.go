package item

import (
	"fmt"
	"path"

	"github.com/ryekit/rye/item/syntax"
)

// Form says how an item file carries its metadata.
type Form string

const (
	FormDirectiveXML  Form = "markdown-xml"         // directive: ```xml block
	formYAMLFence     Form = "markdown-yaml"        // knowledge: ```yaml block
	formFrontMatter   Form = "markdown-frontmatter" // knowledge: --- front matter
	formYAMLFile      Form = "yaml"                 // knowledge or tool: the whole file
	formTOMLFile      Form = "toml"                 // tool: the whole file
	formPython        Form = "python"               // tool: module-level literals
	FormCommentHeader Form = "comment-header"       // tool: YAML in leading comments (.js .ts .sh)
	// formMarkdown is a RyeOS 0.2+ knowledge page without front matter
	// (spec 7.2.3): no metadata, the whole text is the body.
	formMarkdown Form = "markdown"
)

// Metadata is what a reader found in one item file.
type Metadata struct {
	Form Form
	// Fields holds the metadata under rye's field names (spec 1.4-1.6):
	// a map node whose values carry their positions in the file.
	Fields *syntax.Node
	// Body is the Markdown after the metadata block (directives, knowledge).
	Body    string
	BodyPos syntax.Pos
	// Directive extras: the text before the ```xml fence and the XML itself
	// (the fence's content, trimmed), which starts at ContentPos.
	Preamble   string
	Content    string
	ContentPos syntax.Pos
	// Problems are things the reader could not read but that do not stop it,
	// such as a Python metadata name bound to something that is not a
	// literal. Lint reports them; signing refuses items that have any.
	Problems []*syntax.Error
}

// Get returns a field's value, or nil.
func (m *Metadata) Get(name string) *syntax.Node {
	if m == nil {
		return nil
	}
	return m.Fields.Get(name)
}

// Str returns a string field, or "".
func (m *Metadata) Str(name string) string { return m.Get(name).String() }

// Schema returns a tool's parameter schema: config_schema, or input_schema
// (the name MCP tool definitions use).
func (m *Metadata) Schema() *syntax.Node {
	if s := m.Get("config_schema"); !s.IsNull() {
		return s
	}
	return m.Get("input_schema")
}

// ReadMetadata reads the metadata of an item of kind k from the bytes of a
// file named name (only its extension is used). Syntax errors are returned as
// *Error with the position of the problem.
func ReadMetadata(k Kind, name string, src []byte) (*Metadata, error) {
	ext := path.Ext(name)
	if !k.HasExtension(ext) {
		return nil, &syntax.Error{Msg: fmt.Sprintf("%q is not a %s file form (expected one of %v)", ext, k, k.Extensions())}
	}
	switch k {
	case Directive:
		return readDirective(src)
	case Knowledge:
		return readKnowledge(src, ext)
	case Tool:
		return readTool(src, ext)
	}
	return nil, &syntax.Error{Msg: fmt.Sprintf("unknown kind %q", k)}
}
