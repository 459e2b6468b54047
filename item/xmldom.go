package item

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strings"

	"github.com/ryekit/rye/item/syntax"
)

// xmlElem is an element of a directive's XML block with the positions rye
// needs for messages. encoding/xml gives token offsets but not attribute
// positions, so attributes are located in the raw start tag.
type xmlElem struct {
	Name     string
	Attrs    []xmlAttr
	Children []*xmlElem
	Text     string     // character data directly inside the element, concatenated
	TextPos  syntax.Pos // where the first non-blank character of Text is
	TextEnd  syntax.Pos // just past the last non-blank character of Text
	Start    syntax.Pos // the '<' of the start tag
	Parent   *xmlElem
}

type xmlAttr struct {
	Name  string
	Value string
	Pos   syntax.Pos // the first byte of the value (after the quote)
	End   syntax.Pos // the closing quote
}

// Attr returns the attribute named name.
func (e *xmlElem) Attr(name string) (xmlAttr, bool) {
	for _, a := range e.Attrs {
		if a.Name == name {
			return a, true
		}
	}
	return xmlAttr{}, false
}

// Child returns the first child element named name, or nil.
func (e *xmlElem) Child(name string) *xmlElem {
	for _, c := range e.Children {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// opaqueTags hold free text that is never parsed as XML (spec 1.4): prompts
// and examples routinely contain '<' and '&'.
var opaqueTags = []string{"template", "example", "raw"}

// maskOpaque blanks the content of opaque elements in place (keeping line
// breaks, so every offset stays valid) and returns the masked copy.
func maskOpaque(xmlText []byte) []byte {
	masked := append([]byte(nil), xmlText...)
	for _, tag := range opaqueTags {
		open, closing := []byte("<"+tag), []byte("</"+tag+">")
		for from := 0; ; {
			i := bytes.Index(masked[from:], open)
			if i < 0 {
				break
			}
			i += from
			after := i + len(open)
			if after < len(masked) && !isTagBoundary(masked[after]) {
				from = after
				continue
			}
			gt := bytes.IndexByte(masked[after:], '>')
			if gt < 0 {
				break
			}
			contentStart := after + gt + 1
			if masked[contentStart-2] == '/' { // <template/>
				from = contentStart
				continue
			}
			j := bytes.Index(masked[contentStart:], closing)
			if j < 0 {
				break // the XML parser will report the unclosed element
			}
			for k := contentStart; k < contentStart+j; k++ {
				if masked[k] != '\n' {
					masked[k] = ' '
				}
			}
			from = contentStart + j + len(closing)
		}
	}
	return masked
}

func isTagBoundary(b byte) bool {
	return b == '>' || b == '/' || b == ' ' || b == '\t' || b == '\n' || b == '\r'
}

// maxXMLDepth bounds element nesting so that hostile input cannot exhaust the
// stack of anything that walks the tree.
const maxXMLDepth = 100

// parseXML parses the XML in src[from:to] into elements. Text of opaque
// elements is taken from the unmasked source.
func parseXML(src []byte, idx *syntax.LineIndex, from, to int) (*xmlElem, error) {
	masked := maskOpaque(src[from:to])
	dec := xml.NewDecoder(bytes.NewReader(masked))
	dec.Strict = true
	var root, cur *xmlElem
	depth := 0
	for {
		start := int(dec.InputOffset())
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, xmlError(err, idx, from, start)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			if depth > maxXMLDepth {
				return nil, &syntax.Error{Pos: idx.Pos(from + start), Msg: "XML nested too deeply"}
			}
			end := int(dec.InputOffset())
			e := &xmlElem{Name: t.Name.Local, Start: idx.Pos(from + start), Parent: cur}
			e.Attrs = locateAttrs(t.Attr, masked[start:end], idx, from+start)
			if cur == nil {
				if root != nil {
					return nil, &syntax.Error{Pos: e.Start, Msg: "the ```xml block holds more than one top-level element"}
				}
				root = e
			} else {
				cur.Children = append(cur.Children, e)
			}
			cur = e
			if isOpaque(e.Name) && !bytes.HasSuffix(masked[start:end], []byte("/>")) {
				e.Text, e.TextPos = opaqueText(src, idx, e.Name, from+end, from+len(masked))
			}
		case xml.EndElement:
			depth--
			if cur != nil {
				cur = cur.Parent
			}
		case xml.CharData:
			if cur == nil {
				if len(bytes.TrimSpace(t)) > 0 {
					return nil, &syntax.Error{Pos: idx.Pos(from + start), Msg: "text outside the <directive> element"}
				}
				continue
			}
			if isOpaque(cur.Name) {
				continue
			}
			if lead := len(t) - len(bytes.TrimLeft(t, " \t\r\n")); lead < len(t) {
				if !cur.TextPos.IsValid() {
					cur.TextPos = idx.Pos(from + start + lead)
				}
				// Character data with entities is longer in the source than
				// in t: measure the trailing blanks from the token's end.
				end := int(dec.InputOffset())
				for end > start && isXMLBlank(masked[end-1]) {
					end--
				}
				cur.TextEnd = idx.Pos(from + end)
			}
			cur.Text += string(t)
		}
	}
	if root == nil {
		return nil, &syntax.Error{Pos: idx.Pos(from), Msg: "the ```xml block is empty", Fix: "write <directive name=\"...\" version=\"...\"> ... </directive> inside it"}
	}
	return root, nil
}

func isXMLBlank(b byte) bool { return b == ' ' || b == '\t' || b == '\r' || b == '\n' }

func isOpaque(name string) bool {
	for _, t := range opaqueTags {
		if t == name {
			return true
		}
	}
	return false
}

// opaqueText returns the original text of an opaque element named name
// whose content starts at offset from.
func opaqueText(src []byte, idx *syntax.LineIndex, name string, from, limit int) (string, syntax.Pos) {
	rest := src[from:limit]
	if j := bytes.Index(rest, []byte("</"+name+">")); j >= 0 {
		rest = rest[:j]
	}
	return string(rest), idx.Pos(from)
}

// locateAttrs finds each attribute's value in the raw start tag text.
func locateAttrs(attrs []xml.Attr, tag []byte, idx *syntax.LineIndex, base int) []xmlAttr {
	out := make([]xmlAttr, 0, len(attrs))
	search := 0
	for _, a := range attrs {
		at := xmlAttr{Name: a.Name.Local, Value: a.Value}
		if a.Name.Space != "" {
			at.Name = a.Name.Space + ":" + a.Name.Local
		}
		if i := findAttrValue(tag, search, at.Name); i >= 0 {
			at.Pos = idx.Pos(base + i)
			quote := tag[i-1]
			if j := bytes.IndexByte(tag[i:], quote); j >= 0 {
				at.End = idx.Pos(base + i + j)
				search = i + j + 1
			}
		}
		out = append(out, at)
	}
	return out
}

// findAttrValue returns the offset of the first byte of name's quoted value
// in a start tag, or -1.
func findAttrValue(tag []byte, from int, name string) int {
	for i := from; i < len(tag); {
		j := bytes.Index(tag[i:], []byte(name))
		if j < 0 {
			return -1
		}
		j += i
		k := j + len(name)
		if j > 0 && isTagBoundary(tag[j-1]) {
			for k < len(tag) && (tag[k] == ' ' || tag[k] == '\t' || tag[k] == '\n' || tag[k] == '\r') {
				k++
			}
			if k < len(tag) && tag[k] == '=' {
				k++
				for k < len(tag) && (tag[k] == ' ' || tag[k] == '\t' || tag[k] == '\n' || tag[k] == '\r') {
					k++
				}
				if k < len(tag) && (tag[k] == '"' || tag[k] == '\'') {
					return k + 1
				}
			}
		}
		i = j + 1
	}
	return -1
}

// xmlError turns an encoding/xml error into a positioned *Error. Syntax
// errors carry a line number relative to the block.
func xmlError(err error, idx *syntax.LineIndex, from, tokenStart int) *syntax.Error {
	var syn *xml.SyntaxError
	if errors.As(err, &syn) {
		first := idx.Pos(from)
		line := first.Line + syn.Line - 1
		pos := idx.Pos(from + tokenStart)
		if pos.Line != line {
			if off := idx.LineStart(line); off >= 0 {
				pos = idx.Pos(off)
			}
		}
		return &syntax.Error{Pos: pos, Msg: "invalid XML: " + syn.Msg}
	}
	return &syntax.Error{Pos: idx.Pos(from + tokenStart), Msg: "invalid XML: " + strings.TrimPrefix(err.Error(), "xml: ")}
}
