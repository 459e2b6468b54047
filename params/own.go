package params

import (
	"fmt"
	"strings"
	"time"
)

// Own are rye's own flags among a tool's parameters on the command line
// of rye execute: before the item id they are ordinary flags; after it,
// everything belongs to the tool except --dry-run, --params, --help and
// --timeout (the last only when the tool declares no parameter called
// timeout: then it is the tool's).
type Own struct {
	DryRun  bool
	Params  string
	Timeout time.Duration
	Help    bool
}

// Split takes rye's own flags out of the arguments after the item id and
// returns the tool's. Everything after "--" is the tool's.
func (o *Own) Split(rest []string, toolHasTimeout bool) ([]string, error) {
	var out []string
	for i := 0; i < len(rest); i++ {
		arg := rest[i]
		if arg == "--" {
			out = append(out, rest[i:]...)
			break
		}
		name, value, hasValue := strings.Cut(arg, "=")
		takeValue := func() (string, error) {
			if hasValue {
				return value, nil
			}
			if i+1 >= len(rest) {
				return "", fmt.Errorf("%s needs a value", name)
			}
			i++
			return rest[i], nil
		}
		switch {
		case name == "--dry-run" && !hasValue:
			o.DryRun = true
		case (name == "--help" || name == "-h") && !hasValue:
			o.Help = true
		case name == "--params":
			v, err := takeValue()
			if err != nil {
				return nil, err
			}
			if o.Params != "" {
				return nil, fmt.Errorf("--params given twice")
			}
			o.Params = v
		case name == "--timeout" && !toolHasTimeout:
			v, err := takeValue()
			if err != nil {
				return nil, err
			}
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				return nil, fmt.Errorf("--timeout %q: give a positive duration such as 30s or 2m", v)
			}
			o.Timeout = d
		default:
			out = append(out, arg)
		}
	}
	return out, nil
}

// WantsHelp reports whether the arguments after a tool's id ask for its
// help (before any "--").
func WantsHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "--help", "-h":
			return true
		}
	}
	return false
}
