package item

import "github.com/ryekit/rye/item/syntax"

// Validate reads an item's metadata and applies the extractor's rules: the
// check that signing runs before it signs (spec 1.7). It returns what makes
// the item invalid: a syntax error alone, or the reader's problems that the
// rules refuse (Extractor.Refusals) followed by the broken rules. Each error
// carries path. Without an extractor every reader problem counts.
func Validate(x *Extractor, k Kind, id ID, path string, src []byte) []*syntax.Error {
	md, err := ReadMetadata(k, path, src)
	if err != nil {
		e, ok := err.(*syntax.Error)
		if !ok {
			e = &syntax.Error{Msg: err.Error()}
		}
		e.Path = path
		return []*syntax.Error{e}
	}
	errs := append([]*syntax.Error(nil), md.Problems...)
	if x != nil {
		errs = append(x.Refusals(md), x.Check(md, id)...)
	}
	for _, e := range errs {
		e.Path = path
	}
	return errs
}
