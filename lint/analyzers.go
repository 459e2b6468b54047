package lint

import (
	"fmt"
	"sort"
	"strings"

	"golang.org/x/tools/go/analysis"
)

// Analyzers are rye's analyzers, in report order.
var Analyzers = []*analysis.Analyzer{Parse, Metadata, IDs, Chain, Schema, Directive, Signature, Secrets}

// Select returns the analyzers to run: all, minus disabled, or only the
// enabled ones when enable is not empty. Unknown names are an error: a
// typo must not silently turn a check off.
func Select(enable, disable []string) ([]*analysis.Analyzer, error) {
	byName := map[string]*analysis.Analyzer{}
	for _, a := range Analyzers {
		byName[a.Name] = a
	}
	check := func(names []string) (map[string]bool, error) {
		set := map[string]bool{}
		for _, n := range names {
			for _, part := range strings.Split(n, ",") {
				part = strings.TrimSpace(part)
				if part == "" {
					continue
				}
				if byName[part] == nil {
					return nil, fmt.Errorf("unknown analyzer %q (known: %s)", part, strings.Join(AnalyzerNames(), ", "))
				}
				set[part] = true
			}
		}
		return set, nil
	}
	on, err := check(enable)
	if err != nil {
		return nil, err
	}
	off, err := check(disable)
	if err != nil {
		return nil, err
	}
	var out []*analysis.Analyzer
	for _, a := range Analyzers {
		if (len(on) == 0 || on[a.Name]) && !off[a.Name] {
			out = append(out, a)
		}
	}
	return out, nil
}

// AnalyzerNames lists the analyzers' names, sorted.
func AnalyzerNames() []string {
	var names []string
	for _, a := range Analyzers {
		names = append(names, a.Name)
	}
	sort.Strings(names)
	return names
}
