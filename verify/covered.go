package verify

import (
	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/item/syntax"
	"github.com/ryekit/rye/sign"
)

// CoveredFields returns md (the metadata of data, a verified item of kind
// k whose file has extension ext) without the fields whose text the
// signature does not cover (sign.CoverageOf): a legacy format leaves parts
// of a file out, v1 a knowledge entry's --- front matter, and text there
// can be written after the signing without changing the verdict. Search
// shows an item's words next to its verdict, so it shows only these.
func CoveredFields(k item.Kind, ext string, data []byte, md *item.Metadata) *item.Metadata {
	cov := sign.CoverageOf(sign.Find(data, ext), k, data)
	if len(cov.Uncovered) == 0 {
		return md
	}
	fields := syntax.NewMap(md.Fields.Pos)
	for _, f := range md.Fields.MapFields() {
		v := f.Value
		if v == nil || !v.Pos.IsValid() {
			continue // no place in the file: nothing says it is covered
		}
		from, to := v.Pos.Offset, v.Pos.Offset+1
		if v.End.IsValid() {
			to = v.End.Offset
		}
		if f.KeyPos.IsValid() {
			from = min(from, f.KeyPos.Offset)
		}
		if cov.FirstUncovered(data, from, to) < 0 {
			fields.Set(f.Key, f.KeyPos, v)
		}
	}
	out := *md
	out.Fields = fields
	return &out
}
