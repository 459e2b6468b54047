package report

import (
	"encoding/json"
	"io"
	"sort"
)

// jsonDocument is the JSON output (documented in docs/json.md). Field names
// are stable; new fields may be added.
type jsonDocument struct {
	Tool string `json:"tool"`
	// Root is the folder the relative paths are relative to (Report.Root).
	Root     string    `json:"root,omitempty"`
	Version  string    `json:"version"`
	Summary  any       `json:"summary"`
	Items    []any     `json:"items"`
	Findings []Finding `json:"findings"`
	Rules    []Rule    `json:"rules"`
	Notes    []string  `json:"notes"`
	// Error is set when the command could not run (Report.Failure): the
	// other fields are then empty.
	Error *jsonError `json:"error,omitempty"`
}

type jsonError struct {
	Message  string `json:"message"`
	ExitCode int    `json:"exit_code"`
}

// WriteJSON writes the whole report as one JSON document.
func WriteJSON(w io.Writer, r *Report, summary any) error {
	r.Sort()
	doc := jsonDocument{Tool: r.Tool, Root: r.Root, Version: r.Version, Summary: summary, Items: []any{}, Findings: r.Findings, Rules: r.sortedRules(), Notes: r.Notes}
	if r.Failure != nil {
		doc.Error = &jsonError{Message: r.Failure.Message, ExitCode: r.Failure.ExitCode}
	}
	if doc.Findings == nil {
		doc.Findings = []Finding{}
	}
	if doc.Notes == nil {
		doc.Notes = []string{}
	}
	for _, it := range r.Items {
		doc.Items = append(doc.Items, it.Value)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(doc)
}

// sortedRules lists the rules that findings use, by id.
func (r *Report) sortedRules() []Rule {
	used := map[string]bool{}
	for _, f := range r.Findings {
		used[f.Rule] = true
	}
	out := []Rule{}
	for id := range used {
		rule, ok := r.Rules[id]
		if !ok {
			rule = Rule{ID: id}
		}
		out = append(out, rule)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}
