package lint

import (
	"fmt"
	"maps"
	"sort"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/ryekit/rye/config"
)

// Analyzers are rye's analyzers, in report order.
var Analyzers = []*analysis.Analyzer{parse, metadata, ids, Chain, Lockfile, schema, directive, ryeOS, signature, unicode, injection, fetchExec, secrets, Sandbox}

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

// settings resolves what a lint run uses: the analyzers and severity
// overrides of the trusted settings (base: the user's configuration, the
// trusted ref's, and the command line's --enable/--disable), and then those
// of the tree under check, which can only make the run stricter: its
// analyzers are added to the trusted ones (it cannot disable any), and its
// severity for an analyzer counts only where it is stricter (off < info <
// warning < error) than the trusted override, or is "error" where there is
// none. Without a tree to distrust (tighten nil) base is all there is.
func settings(base config.Lint, tighten *config.Lint) ([]*analysis.Analyzer, map[string]string, error) {
	analyzers, err := Select(base.Enable, base.Disable)
	if err != nil {
		return nil, nil, err
	}
	severity := maps.Clone(base.Severity)
	if tighten == nil {
		return analyzers, severity, nil
	}
	more, err := Select(tighten.Enable, tighten.Disable)
	if err != nil {
		return nil, nil, err
	}
	if err := (options{Severity: tighten.Severity}).validate(); err != nil {
		return nil, nil, err
	}
	chosen := map[*analysis.Analyzer]bool{}
	for _, a := range append(analyzers, more...) {
		chosen[a] = true
	}
	analyzers = analyzers[:0:0]
	for _, a := range Analyzers {
		if chosen[a] {
			analyzers = append(analyzers, a)
		}
	}
	for name, sev := range tighten.Severity {
		trusted, ok := severity[name]
		switch {
		case !ok && sev == sevError, ok && severityRank[sev] > severityRank[trusted]:
			if severity == nil {
				severity = map[string]string{}
			}
			severity[name] = sev
		}
	}
	return analyzers, severity, nil
}

// severityRank orders the severities from the most lenient.
var severityRank = map[string]int{"off": 0, sevInfo: 1, sevWarning: 2, sevError: 3}
