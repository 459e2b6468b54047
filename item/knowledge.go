package item

import "github.com/ryekit/rye/item/syntax"

// readKnowledge reads the three knowledge forms of spec 1.6: front matter
// (the first line after the signature line is "---"), a ```yaml block, or a
// whole .yaml/.yml file.
func readKnowledge(src []byte, ext string) (*Metadata, error) {
	idx := syntax.NewLineIndex(src)
	if ext == ".yaml" || ext == ".yml" {
		fields, err := sliceYAML(src, idx, 0, len(src)).parse("the knowledge file")
		if err != nil {
			return nil, err
		}
		return &Metadata{Form: FormYAMLFile, Fields: fields}, nil
	}
	start := AfterSignature(src, ext)
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
	return &Metadata{Form: FormYAMLFence, Fields: fields, Body: string(src[f.closeEnd:]), BodyPos: idx.Pos(f.closeEnd)}, nil
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
			return &Metadata{Form: FormFrontMatter, Fields: fields, Body: string(src[next:]), BodyPos: idx.Pos(next)}, nil
		}
		off = next
	}
	return nil, &syntax.Error{Pos: idx.Pos(open), Msg: "the --- front matter is never closed", Fix: "add a line --- after the metadata"}
}
