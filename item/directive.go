package item

import (
	"bytes"
	"strconv"
	"strings"
	"unicode"

	"github.com/ryekit/rye/item/syntax"
)

// readDirective reads a directive: Markdown with one top-level ```xml block
// holding <directive name=".." version="..">…</directive> (spec 1.4).
func readDirective(src []byte) (*Metadata, error) {
	idx := syntax.NewLineIndex(src)
	start := afterSignature(src, ".md")
	f, ok := findFence(src, start, "xml")
	if !ok {
		return nil, &syntax.Error{Pos: idx.Pos(start), Msg: "no ```xml block found: a directive's metadata is a <directive> element in a ```xml fenced block"}
	}
	if !f.closeFound {
		return nil, &syntax.Error{Pos: idx.Pos(f.openStart), Msg: "the ```xml block is never closed", Fix: "add a line ``` after </directive>"}
	}
	root, err := parseXML(src, idx, f.bodyStart, f.bodyEnd)
	if err != nil {
		return nil, err
	}
	if root.Name != "directive" {
		return nil, &syntax.Error{Pos: root.Start, Msg: "the ```xml block must hold a <directive> element, found <" + root.Name + ">"}
	}
	d := &directiveReader{fields: syntax.NewMap(root.Start)}
	d.read(root)
	return &Metadata{
		Form:       FormDirectiveXML,
		Fields:     d.fields,
		Body:       string(src[f.closeEnd:]),
		BodyPos:    idx.Pos(f.closeEnd),
		Preamble:   string(src[start:f.openStart]),
		Content:    strings.TrimSpace(string(src[f.bodyStart:f.bodyEnd])),
		ContentPos: idx.Pos(f.bodyStart + len(src[f.bodyStart:f.bodyEnd]) - len(bytes.TrimLeftFunc(src[f.bodyStart:f.bodyEnd], unicode.IsSpace))),
		Problems:   d.problems,
	}, nil
}

type directiveReader struct {
	fields   *syntax.Node
	problems []*syntax.Error
}

// actionTags are the primaries of spec 1.4: the only children allowed in
// <permissions>, and the elements that are actions outside <metadata>.
var actionTags = map[string]bool{"search": true, "load": true, "execute": true, "sign": true}

func (d *directiveReader) read(root *xmlElem) {
	for _, name := range []string{"name", "version", "extends"} {
		if a, ok := root.Attr(name); ok {
			d.fields.Set(name, a.Pos, attrNode(a))
		}
	}
	meta := root.Child("metadata")
	if desc := root.Child("description"); desc != nil {
		d.fields.Set("description", desc.Start, textNode(desc))
	} else if desc := meta.childOrNil("description"); desc != nil {
		d.fields.Set("description", desc.Start, textNode(desc))
	}
	if meta != nil {
		d.readMetadata(meta)
	}
	if in := root.Child("inputs"); in != nil {
		d.fields.Set("inputs", in.Start, d.readInputs(in, "input"))
	}
	if out := root.Child("outputs"); out != nil {
		d.fields.Set("outputs", out.Start, d.readInputs(out, "output"))
	}
	actions := syntax.NewList(root.Start)
	collectActions(root, actions)
	if len(actions.Items) > 0 {
		d.fields.Set("actions", root.Start, actions)
	}
}

func (e *xmlElem) childOrNil(name string) *xmlElem {
	if e == nil {
		return nil
	}
	return e.Child(name)
}

func (d *directiveReader) readMetadata(meta *xmlElem) {
	for _, c := range meta.Children {
		switch c.Name {
		case "description":
			// read above; <description> directly under <directive> wins
		case "model":
			d.fields.Set("model", c.Start, attrMap(c, func(a xmlAttr) *syntax.Node { return attrNode(a) }))
		case "limits":
			d.fields.Set("limits", c.Start, attrMap(c, limitValue))
		case "permissions":
			d.fields.Set("permissions", c.Start, d.readPermissions(c))
		case "hooks":
			d.fields.Set("hooks", c.Start, readHooks(c))
		default:
			// category, author and any other simple element: its text.
			d.fields.Set(c.Name, c.Start, textNode(c))
		}
	}
}

// readPermissions turns <permissions> into capability strings
// rye.<primary>.<item_type>.<pattern> (spec 1.4). An unknown primary is
// recorded as a problem instead of being dropped silently.
func (d *directiveReader) readPermissions(p *xmlElem) *syntax.Node {
	caps := syntax.NewList(p.Start)
	if len(p.Children) == 0 {
		if t := strings.TrimSpace(p.Text); t == "*" {
			caps.Append(syntax.NewString("rye.*", p.TextPos))
		} else if t != "" {
			d.problems = append(d.problems, &syntax.Error{Pos: p.TextPos, Field: "permissions", Msg: "unexpected text " + strconv.Quote(abbreviate(t)) + " in <permissions>; expected * or elements <search>, <load>, <execute>, <sign>"})
		}
		return caps
	}
	for _, primary := range p.Children {
		if !actionTags[primary.Name] {
			d.problems = append(d.problems, &syntax.Error{Pos: primary.Start, Field: "permissions", Msg: "unknown permission <" + primary.Name + ">: the primaries are search, load, execute and sign"})
			continue
		}
		if len(primary.Children) == 0 {
			if t := strings.TrimSpace(primary.Text); t != "" {
				caps.Append(syntax.NewString("rye."+primary.Name+"."+t, primary.TextPos))
			}
			continue
		}
		for _, typ := range primary.Children {
			if t := strings.TrimSpace(typ.Text); t != "" {
				caps.Append(syntax.NewString("rye."+primary.Name+"."+typ.Name+"."+t, typ.TextPos))
			}
		}
	}
	return caps
}

// readInputs reads <inputs><input name type required default>description
// </input> (and the same shape for outputs).
func (d *directiveReader) readInputs(list *xmlElem, tag string) *syntax.Node {
	out := syntax.NewList(list.Start)
	for _, c := range list.Children {
		if c.Name != tag {
			continue
		}
		in := syntax.NewMap(c.Start)
		for _, a := range c.Attrs {
			if a.Name == "required" {
				in.Set("required", a.Pos, &syntax.Node{Kind: syntax.BoolNode, Bool: strings.EqualFold(a.Value, "true"), Raw: a.Value, Pos: a.Pos, End: a.End})
				continue
			}
			in.Set(a.Name, a.Pos, attrNode(a))
		}
		if in.Get("type") == nil {
			in.Set("type", syntax.Pos{}, syntax.NewString("string", syntax.Pos{}))
		}
		if in.Get("required") == nil {
			in.Set("required", syntax.Pos{}, syntax.NewBool(false, syntax.Pos{}))
		}
		if t := strings.TrimSpace(c.Text); t != "" {
			in.Set("description", c.TextPos, syntax.NewString(t, c.TextPos))
		}
		out.Append(in)
	}
	return out
}

// collectActions appends every <search|load|execute|sign> element outside
// <metadata>, in document order, as {primary, attributes..., params}.
func collectActions(e *xmlElem, out *syntax.Node) {
	for _, c := range e.Children {
		if c.Name == "metadata" || isOpaque(c.Name) {
			continue
		}
		if actionTags[c.Name] {
			out.Append(actionNode(c))
		}
		collectActions(c, out)
	}
}

func actionNode(c *xmlElem) *syntax.Node {
	a := syntax.NewMap(c.Start)
	a.Set("primary", c.Start, syntax.NewString(c.Name, c.Start))
	for _, at := range c.Attrs {
		a.Set(at.Name, at.Pos, attrNode(at))
	}
	params := syntax.NewMap(c.Start)
	for _, p := range c.Children {
		if p.Name != "param" {
			continue
		}
		name, ok := p.Attr("name")
		if !ok || name.Value == "" {
			continue
		}
		if v, ok := p.Attr("value"); ok {
			params.Set(name.Value, name.Pos, attrNode(v))
		} else {
			params.Set(name.Value, name.Pos, textNode(p))
		}
	}
	if len(params.Fields) > 0 {
		a.Set("params", c.Start, params)
	}
	return a
}

// readHooks reads <hooks>: each child is a hook with its attributes, its
// text as content, and its <action> and <condition> children.
func readHooks(h *xmlElem) *syntax.Node {
	hooks := syntax.NewList(h.Start)
	for _, c := range h.Children {
		hook := syntax.NewMap(c.Start)
		hook.Set("event", c.Start, syntax.NewString(c.Name, c.Start))
		for _, a := range c.Attrs {
			hook.Set(a.Name, a.Pos, attrNode(a))
		}
		if t := strings.TrimSpace(c.Text); t != "" {
			hook.Set("content", c.TextPos, syntax.NewString(t, c.TextPos))
		}
		actions := syntax.NewList(c.Start)
		for _, sub := range c.Children {
			switch {
			case sub.Name == "action":
				for _, prim := range sub.Children {
					if actionTags[prim.Name] {
						actions.Append(actionNode(prim))
					}
				}
			case actionTags[sub.Name]:
				actions.Append(actionNode(sub))
			case sub.Name == "condition":
				hook.Set("condition", sub.Start, attrMap(sub, func(a xmlAttr) *syntax.Node { return attrNode(a) }))
			default:
				hook.Set(sub.Name, sub.Start, textNode(sub))
			}
		}
		if len(actions.Items) > 0 {
			hook.Set("actions", c.Start, actions)
		}
		hooks.Append(hook)
	}
	return hooks
}

func attrNode(a xmlAttr) *syntax.Node {
	return &syntax.Node{Kind: syntax.StringNode, Str: a.Value, Raw: a.Value, Pos: a.Pos, End: a.End}
}

// textNode is an element's text. It gets an end (so that a fix can replace
// it) when the element holds only text.
func textNode(e *xmlElem) *syntax.Node {
	pos := e.TextPos
	if !pos.IsValid() {
		pos = e.Start
	}
	n := syntax.NewString(strings.TrimSpace(e.Text), pos)
	if e.TextEnd.IsValid() && len(e.Children) == 0 {
		n.End = e.TextEnd
	}
	return n
}

func attrMap(e *xmlElem, value func(xmlAttr) *syntax.Node) *syntax.Node {
	m := syntax.NewMap(e.Start)
	for _, a := range e.Attrs {
		m.Set(a.Name, a.Pos, value(a))
	}
	return m
}

// limitValue converts a <limits> attribute the way the reference does:
// numbers become numbers (a '.' makes a float), anything else stays text so
// that the rule engine can say what is wrong with it.
func limitValue(a xmlAttr) *syntax.Node {
	n := attrNode(a)
	v := strings.TrimSpace(a.Value)
	if strings.Contains(v, ".") {
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			n.Kind, n.Float = syntax.FloatNode, f
		}
	} else if i, err := strconv.ParseInt(v, 10, 64); err == nil {
		n.Kind, n.Int = syntax.IntNode, i
	}
	return n
}
