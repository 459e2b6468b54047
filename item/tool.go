package item

import (
	"bytes"

	"github.com/ryekit/rye/item/python"
	"github.com/ryekit/rye/item/syntax"
)

// readTool reads a tool's metadata according to its file form (spec 1.5).
func readTool(src []byte, ext string) (*Metadata, error) {
	switch ext {
	case ".py":
		return readPythonTool(src)
	case ".yaml", ".yml":
		fields, err := sliceYAML(src, syntax.NewLineIndex(src), 0, len(src)).parse("the tool file")
		if err != nil {
			return nil, err
		}
		return &Metadata{Form: formYAMLFile, Fields: fields}, nil
	case ".toml":
		fields, err := readTOML(src)
		if err != nil {
			return nil, err
		}
		return &Metadata{Form: formTOMLFile, Fields: fields}, nil
	case ".js", ".ts":
		return readCommentHeader(src, ext, "//")
	case ".sh":
		return readCommentHeader(src, ext, "#")
	}
	return nil, &syntax.Error{Msg: "tools cannot be written as " + ext + " files"}
}

// pythonFields maps the well-known module-level names of a Python tool to
// rye's field names (spec 1.5).
var pythonFields = []struct{ py, field string }{
	{"__version__", "version"},
	{"__tool_type__", "tool_type"},
	{"__executor_id__", "executor_id"},
	{"__category__", "category"},
	{"__tool_description__", "description"},
	{"CONFIG_SCHEMA", "config_schema"},
	{"ENV_CONFIG", "env_config"},
	{"CONFIG", "config"},
	{"__sandbox__", "sandbox"},
}

// readPythonTool reads a Python tool without running it. A well-known name
// bound to something that is not a literal becomes a problem that names it,
// never a silently missing field.
func readPythonTool(src []byte) (*Metadata, error) {
	mod, err := python.Read(src)
	if err != nil {
		return nil, err
	}
	md := &Metadata{Form: formPython, Fields: syntax.NewMap(syntax.Pos{Line: 1, Col: 1})}
	for _, w := range pythonFields {
		a := mod.Lookup(w.py)
		if a == nil {
			continue
		}
		if a.Value == nil {
			md.Problems = append(md.Problems, &syntax.Error{Pos: a.ExprPos, Field: w.py, Msg: a.Reason})
			continue
		}
		md.Fields.Set(w.field, a.NamePos, a.Value)
	}
	if mod.Docstring != nil {
		md.Fields.Set("docstring", mod.Docstring.Pos, mod.Docstring)
	}
	return md, nil
}

// readCommentHeader reads the YAML header of a script written as comment
// lines between two "---" comment lines, after an optional shebang and the
// signature line (spec 1.5):
//
//	# ---
//	# version: "1.0.0"
//	# ---
func readCommentHeader(src []byte, ext, prefix string) (*Metadata, error) {
	idx := syntax.NewLineIndex(src)
	off := afterSignature(src, ext)
	// Find the opening "---" in the leading block of comments and blank lines.
	open := off
	for {
		if off >= len(src) {
			return nil, &syntax.Error{Pos: idx.Pos(off), Msg: "no metadata header: expected a comment block starting with `" + prefix + " ---`"}
		}
		next := lineEnd(src, off)
		line := trimRightBlank(src[off:next])
		if len(line) > 0 && !bytes.HasPrefix(line, []byte(prefix)) {
			return nil, &syntax.Error{Pos: idx.Pos(off), Msg: "no metadata header before the code: expected `" + prefix + " ---` followed by YAML comment lines and a closing `" + prefix + " ---`"}
		}
		open, off = off, next
		if isDashes(bytes.TrimLeft(bytes.TrimPrefix(line, []byte(prefix)), " ")) {
			break
		}
	}
	y := &yamlText{src: src, idx: idx}
	var text []byte
	for off < len(src) {
		next := lineEnd(src, off)
		line := src[off:next]
		if !bytes.HasPrefix(line, []byte(prefix)) {
			break
		}
		content := off + len(prefix)
		if content < next && src[content] == ' ' {
			content++
		}
		if isDashes(src[content:next]) {
			fields, err := y.withText(text).parse("the metadata header")
			if err != nil {
				return nil, err
			}
			return &Metadata{Form: FormCommentHeader, Fields: fields, Body: string(src[next:]), BodyPos: idx.Pos(next)}, nil
		}
		y.lineStart = append(y.lineStart, content)
		text = append(text, src[content:next]...)
		if !bytes.HasSuffix(text, []byte("\n")) {
			text = append(text, '\n')
		}
		off = next
	}
	return nil, &syntax.Error{Pos: idx.Pos(open), Msg: "the metadata header is never closed", Fix: "end it with a line `" + prefix + " ---`"}
}

func (y *yamlText) withText(text []byte) *yamlText {
	y.text = text
	if len(y.lineStart) == 0 {
		y.lineStart = []int{0}
	}
	return y
}
