package item

import "github.com/ryekit/rye/item/syntax"

// Validate reads an item's metadata and applies the extractor's rules: the
// check that signing runs before it signs (spec 1.7). It returns every
// problem: a syntax error alone, or the reader's problems followed by the
// broken rules. Each error carries path.
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
		errs = append(errs, x.Check(md, id)...)
	}
	for _, e := range errs {
		e.Path = path
	}
	return errs
}
