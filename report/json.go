package report

import (
	"bytes"
	"encoding/json"
	"io"
	"sort"
)

// The JSON output (documented in docs/json.md) is written a part at a
// time, so that a run over a hundred thousand items never holds its
// document: first the fields known when the run starts (tool, root,
// version), then each item as it is verified, then what is known only at
// the end (findings, rules, notes, summary, error). Field names are
// stable; new fields may be added.
//
// The bytes are those encoding/json gives for the whole document as one
// value, indented by two spaces and without HTML escaping, with its fields
// in that order: each part is encoded by encoding/json at its depth.

// jsonError is the document's "error": the command could not run
// (Report.Failure).
type jsonError struct {
	Message  string `json:"message"`
	ExitCode int    `json:"exit_code"`
}

// jsonStream writes one JSON document to w: head, then item for each item,
// then tail.
type jsonStream struct {
	w     io.Writer
	enc   jsonEncoder
	items int
}

func newJSONStream(w io.Writer) *jsonStream { return &jsonStream{w: w} }

// jsonEncoder encodes the parts of a document.
type jsonEncoder struct {
	buf bytes.Buffer
	enc *json.Encoder // into buf
}

// value is v encoded as a field's value at depth (1: a field of the
// document, 2: an element of one of its lists), without a newline. The
// bytes are good until the next call.
func (e *jsonEncoder) value(depth int, v any) ([]byte, error) {
	if e.enc == nil {
		e.enc = json.NewEncoder(&e.buf)
		e.enc.SetEscapeHTML(false)
	}
	e.buf.Reset()
	e.enc.SetIndent(indents[:2*depth], "  ")
	if err := e.enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(e.buf.Bytes(), []byte("\n")), nil
}

const indents = "    "

// field writes `,\n  "name": value` (first: without the comma).
func (j *jsonStream) field(name string, v any, first bool) error {
	val, err := j.enc.value(1, v)
	if err != nil {
		return err
	}
	sep := ",\n  \""
	if first {
		sep = "{\n  \""
	}
	_, err = io.WriteString(j.w, sep+name+"\": ")
	if err == nil {
		_, err = j.w.Write(val)
	}
	return err
}

// head writes the fields known before the first item, and opens items.
func (j *jsonStream) head(tool, root, version string) error {
	if err := j.field("tool", tool, true); err != nil {
		return err
	}
	if root != "" {
		if err := j.field("root", root, false); err != nil {
			return err
		}
	}
	if err := j.field("version", version, false); err != nil {
		return err
	}
	_, err := io.WriteString(j.w, ",\n  \"items\": [")
	return err
}

// item writes one element of items, encoded (jsonEncoder.value at depth
// 2).
func (j *jsonStream) item(val []byte) error {
	sep := ",\n    "
	if j.items == 0 {
		sep = "\n    "
	}
	j.items++
	if _, err := io.WriteString(j.w, sep); err != nil {
		return err
	}
	_, err := j.w.Write(val)
	return err
}

// tail closes items and writes the fields known at the end: the sorted
// findings of r, the rules they use, its notes, the summary, and its
// failure when it has one.
func (j *jsonStream) tail(r *Report, summary any) error {
	end := "\n  ]"
	if j.items == 0 {
		end = "]"
	}
	if _, err := io.WriteString(j.w, end); err != nil {
		return err
	}
	r.Sort()
	findings, notes := r.Findings, r.Notes
	if findings == nil {
		findings = []Finding{}
	}
	if notes == nil {
		notes = []string{}
	}
	fields := []struct {
		name string
		v    any
	}{{"findings", findings}, {"rules", r.sortedRules()}, {"notes", notes}, {"summary", summary}}
	if r.Failure != nil {
		fields = append(fields, struct {
			name string
			v    any
		}{"error", jsonError{Message: r.Failure.Message, ExitCode: r.Failure.ExitCode}})
	}
	for _, f := range fields {
		if err := j.field(f.name, f.v, false); err != nil {
			return err
		}
	}
	_, err := io.WriteString(j.w, "\n}\n")
	return err
}

// writeJSON writes the whole report as one JSON document: its items as
// they are, then the rest (jsonStream). Outputs stream the items of a run
// instead (Stream).
func writeJSON(w io.Writer, r *Report, summary any) error {
	j := newJSONStream(w)
	if err := j.head(r.Tool, r.Root, r.Version); err != nil {
		return err
	}
	var items jsonEncoder
	for _, it := range r.Items {
		val, err := items.value(2, it.Value)
		if err == nil {
			err = j.item(val)
		}
		if err != nil {
			return err
		}
	}
	return j.tail(r, summary)
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
