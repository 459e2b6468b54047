package space

import (
	"fmt"
	"strings"

	"github.com/ryekit/rye/item/syntax"

	"github.com/ryekit/rye/item"
)

// extractorsFolder holds the extractor rule files among the tools.
const extractorsFolder = "rye/core/extractors"

// extractorID is the tool id of a kind's extractor rule file (spec 1.7).
func extractorID(k item.Kind) item.ID {
	return item.ID(extractorsFolder + "/" + string(k) + "/" + string(k) + "_extractor")
}

// IsExtractor reports a tool id in the extractors' folder: rule files
// that other tools read, not tools to run.
func IsExtractor(id item.ID) bool {
	return strings.HasPrefix(string(id), extractorsFolder+"/")
}

// Extractor resolves and parses the extractor rule file of a kind: the
// project's or user's copy when there is one, else the embedded one.
func (ss *Spaces) Extractor(k item.Kind) (*item.Extractor, error) {
	loc, err := ss.Resolve(item.Tool, extractorID(k), nil)
	if err != nil {
		return nil, err
	}
	it, err := loc.Load()
	if err != nil {
		return nil, err
	}
	x, err := item.ParseExtractor(it.Bytes)
	if err != nil {
		if e, ok := err.(*syntax.Error); ok {
			e.Path = it.Path
		}
		return nil, fmt.Errorf("extractor rules: %w", err)
	}
	return x, nil
}

// Extractors reads the extractor rules of every kind: what signing
// validates against, lint checks and search weighs. A kind whose rules do
// not resolve or parse is an error (rules must never be silently absent).
func (ss *Spaces) Extractors() (map[item.Kind]*item.Extractor, error) {
	out := make(map[item.Kind]*item.Extractor, len(item.Kinds))
	for _, k := range item.Kinds {
		x, err := ss.Extractor(k)
		if err != nil {
			return nil, err
		}
		out[k] = x
	}
	return out, nil
}
