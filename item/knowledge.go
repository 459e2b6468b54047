package item

import "github.com/ryekit/rye/item/syntax"

// readKnowledge reads the three knowledge forms of spec 1.6: front matter
// (the first line after the signature line is "---"), a ```yaml block, or a
// whole .yaml/.yml file. A page signed by RyeOS's Rust engine is read as
// its knowledge runtime reads it (readRustKnowledge).
func readKnowledge(src []byte, ext string) (*Metadata, error) {
	idx := syntax.NewLineIndex(src)
	if ext == ".yaml" || ext == ".yml" {
		fields, err := sliceYAML(src, idx, 0, len(src)).parse("the knowledge file")
		if err != nil {
			return nil, err
		}
		return &Metadata{Form: formYAMLFile, Fields: fields}, nil
	}
	start := afterSignature(src, ext)
	if RustSigned(src, ext) {
		return readRustKnowledge(src, idx, start)
	}
	if first := lineEnd(src, start); isDashes(src[start:first]) {
		return readFrontMatter(src, idx, start, first)
	}
	f, ok := findFence(src, start, "yaml")
	if !ok {
		return nil, &syntax.Error{Pos: idx.Pos(start), Msg: "no metadata found: a knowledge entry starts with a ```yaml block or --- front matter"}
	}
	if !f.closeFound {
		return nil, &syntax.Error{Pos: idx.Pos(f.openStart), Msg: "the ```yaml block is never closed", Fix: "add a line ``` after the metadata"}
	}
	fields, err := sliceYAML(src, idx, f.bodyStart, f.bodyEnd).parse("the ```yaml block")
	if err != nil {
		return nil, err
	}
	return &Metadata{Form: formYAMLFence, Fields: fields, Body: string(src[f.closeEnd:]), BodyPos: idx.Pos(f.closeEnd)}, nil
}

// readFrontMatter reads "---" front matter whose opening line spans
// [open, bodyStart).
func readFrontMatter(src []byte, idx *syntax.LineIndex, open, bodyStart int) (*Metadata, error) {
	for off := bodyStart; off < len(src); {
		next := lineEnd(src, off)
		if isDashes(src[off:next]) {
			fields, err := sliceYAML(src, idx, bodyStart, off).parse("the front matter")
			if err != nil {
				return nil, err
			}
			return &Metadata{Form: formFrontMatter, Fields: fields, Body: string(src[next:]), BodyPos: idx.Pos(next)}, nil
		}
		off = next
	}
	return nil, &syntax.Error{Pos: idx.Pos(open), Msg: "the --- front matter is never closed", Fix: "add a line --- after the metadata"}
}

// readRustKnowledge reads a knowledge page signed in a RyeOS Rust-engine
// format (r1, ryeos) as RyeOS 0.2+'s knowledge runtime does (spec 7.2.3):
// any white space, blank lines included, may come between the signature
// line and the --- front matter or ```yaml block; a page that has neither
// has no metadata at all, and a ```yaml example further down is body,
// never metadata.
func readRustKnowledge(src []byte, idx *syntax.LineIndex, start int) (*Metadata, error) {
	at := start
	for at < len(src) && (src[at] == ' ' || src[at] == '\t' || src[at] == '\r' || src[at] == '\n') {
		at++
	}
	for at > start && src[at-1] != '\n' { // back to the start of the line
		at--
	}
	if first := lineEnd(src, at); isDashes(src[at:first]) {
		return readFrontMatter(src, idx, at, first)
	}
	if f, ok := findFence(src, at, "yaml"); ok && f.openStart == at {
		if !f.closeFound {
			return nil, &syntax.Error{Pos: idx.Pos(f.openStart), Msg: "the ```yaml block is never closed", Fix: "add a line ``` after the metadata"}
		}
		fields, err := sliceYAML(src, idx, f.bodyStart, f.bodyEnd).parse("the ```yaml block")
		if err != nil {
			return nil, err
		}
		return &Metadata{Form: formYAMLFence, Fields: fields, Body: string(src[f.closeEnd:]), BodyPos: idx.Pos(f.closeEnd)}, nil
	}
	return &Metadata{Form: formMarkdown, Fields: syntax.NewMap(idx.Pos(start)), Body: string(src[start:]), BodyPos: idx.Pos(start)}, nil
}
