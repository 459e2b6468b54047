package cli

import "github.com/ryekit/rye/item"

// splitKind reads the optional leading KIND of "[KIND] PATTERN...".
func splitKind(args []string) ([]item.Kind, []string) {
	if len(args) > 0 {
		if k, err := item.ParseKind(args[0]); err == nil {
			return []item.Kind{k}, args[1:]
		}
	}
	return item.Kinds, args
}
