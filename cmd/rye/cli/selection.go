package cli

import (
	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/space"
)

// splitKind reads the optional leading KIND of "[KIND] PATTERN...".
func splitKind(args []string) ([]item.Kind, []string) {
	if len(args) > 0 {
		if k, err := item.ParseKind(args[0]); err == nil {
			return []item.Kind{k}, args[1:]
		}
	}
	return item.Kinds, args
}

// selectItems resolves patterns in a space; no match is a usage error.
func (a *app) selectItems(sp *space.Space, kinds []item.Kind, patterns []string) (*space.Selection, error) {
	sel, err := space.Select(sp, kinds, patterns, a.workDir())
	if err != nil {
		return nil, usageError("%v", err)
	}
	for _, s := range sel.Skipped {
		if a.verbose {
			a.info("skipped %s: not an item", s)
		}
	}
	return sel, nil
}
