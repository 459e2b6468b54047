package bundle

import (
	"fmt"

	"github.com/ryekit/rye/item"
)

// ExtractorID is the tool id of a kind's extractor rule file (spec 1.7).
func ExtractorID(k item.Kind) item.ID {
	return item.ID("rye/core/extractors/" + string(k) + "/" + string(k) + "_extractor")
}

// Extractor resolves and parses the extractor rule file of a kind: the
// project's or user's copy when there is one, else the embedded one.
func (ss *Spaces) Extractor(k item.Kind) (*item.Extractor, error) {
	loc, err := ss.Resolve(item.Tool, ExtractorID(k), nil)
	if err != nil {
		return nil, err
	}
	it, err := loc.Load()
	if err != nil {
		return nil, err
	}
	x, err := item.ParseExtractor(it.Bytes)
	if err != nil {
		if e, ok := err.(*item.Error); ok {
			e.Path = it.Path
		}
		return nil, fmt.Errorf("extractor rules: %w", err)
	}
	return x, nil
}
