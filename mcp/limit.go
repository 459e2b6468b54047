package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// MaxResponse bounds the JSON-RPC message that carries one tool result,
// as the server writes it: the response's JSON as text content, escaped
// once more as a JSON string, plus the same object as structured content.
// A client reads a message as one line into a bounded buffer (the official
// SDK's transports take at most 16 MiB, sdk.DefaultMaxLineLength) and a
// longer one ends its session: every later call fails. Output is counted
// as it is encoded, not as the tool printed it: a byte such as \x01 is six
// in JSON (\u0001) and seven in the text content's string, and structured
// content escapes < and > as six bytes each, so 3 MB of output can make a
// 40 MB message. Half the SDK's limit leaves room for clients that read
// less.
const MaxResponse = 8 << 20

// frameSize is the size of the tools/call response message carrying r
// as the SDK writes it: r's JSON (without HTML escaping) as a text
// content, and json.Marshal of r as structured content, with room for the
// envelope.
func frameSize(r *response) (int, error) {
	text, err := encodeText(r)
	if err != nil {
		return 0, err
	}
	quoted, err := json.Marshal(text)
	if err != nil {
		return 0, err
	}
	structured, err := json.Marshal(r)
	if err != nil {
		return 0, err
	}
	return len(quoted) + len(structured) + 256, nil
}

// encodeText is the response's text content: its JSON, written without
// HTML escaping (directives are full of < and >).
func encodeText(r *response) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return "", err
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n"))), nil
}

// fit returns r when its message fits in MaxResponse, and otherwise a
// copy whose data is cut until it does, saying so in Truncated and, where
// text was cut, in the text itself. Strings are cut first (a tool's
// stdout and stderr, a long output field), each to the same length, which
// halves until the message fits; then arrays, to the same number of
// elements (the results of a search over everything); and when even that
// does not fit, the data is left out. Nothing but the data is cut: the
// status, the error, the chain and the verdict always arrive whole.
func fit(r *response) (*response, error) {
	size, err := frameSize(r)
	if err != nil || size <= MaxResponse {
		return r, err
	}
	raw, err := json.Marshal(r.Data)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // numbers go back out as they came
	var data any
	if err := dec.Decode(&data); err != nil {
		return nil, err
	}
	cut := *r
	longest, widest := extent(data)
	for limit := min(MaxResponse/4, longest/2); limit >= 256; limit /= 2 {
		var dropped int
		cut.Data = capStrings(data, limit, &dropped)
		cut.Truncated = fmt.Sprintf("the data was cut to fit the %d MiB limit of an MCP message: %d bytes of text were left out, each cut marked in the text; rye execute prints the whole output", MaxResponse>>20, dropped)
		if size, err = frameSize(&cut); err != nil || size <= MaxResponse {
			return &cut, err
		}
	}
	for keep := min(1024, widest/2); keep >= 1; keep /= 2 {
		var dropped int
		cut.Data = capArrays(capStrings(data, 256, new(int)), keep, &dropped)
		cut.Truncated = fmt.Sprintf("the data was cut to fit the %d MiB limit of an MCP message: long texts were cut (each cut marked) and %d array elements were left out, keeping the first %d of each array", MaxResponse>>20, dropped, keep)
		if size, err = frameSize(&cut); err != nil || size <= MaxResponse {
			return &cut, err
		}
	}
	cut.Data = nil
	cut.Truncated = fmt.Sprintf("the data was left out: it does not fit the %d MiB limit of an MCP message even cut down", MaxResponse>>20)
	return &cut, nil
}

// extent returns the length of the longest string in v and of its
// longest array.
func extent(v any) (longest, widest int) {
	switch x := v.(type) {
	case string:
		return len(x), 0
	case []any:
		widest = len(x)
		for _, e := range x {
			l, w := extent(e)
			longest, widest = max(longest, l), max(widest, w)
		}
	case map[string]any:
		for _, e := range x {
			l, w := extent(e)
			longest, widest = max(longest, l), max(widest, w)
		}
	}
	return longest, widest
}

// capStrings returns v with every string longer than limit bytes cut to
// at most limit bytes (at a character boundary) and marked, adding the
// bytes left out to dropped. v is not changed.
func capStrings(v any, limit int, dropped *int) any {
	x, ok := v.(string)
	if !ok {
		return children(v, func(e any) any { return capStrings(e, limit, dropped) })
	}
	if len(x) <= limit {
		return x
	}
	end := limit
	for end > 0 && !utf8.RuneStart(x[end]) {
		end--
	}
	*dropped += len(x) - end
	return x[:end] + fmt.Sprintf("\n[rye: %d more bytes left out here: an MCP message is limited to %d MiB]", len(x)-end, MaxResponse>>20)
}

// capArrays returns v with every array cut to its first keep elements,
// adding the elements left out to dropped. v is not changed.
func capArrays(v any, keep int, dropped *int) any {
	if x, ok := v.([]any); ok && len(x) > keep {
		*dropped += len(x) - keep
		v = x[:keep]
	}
	return children(v, func(e any) any { return capArrays(e, keep, dropped) })
}

// children returns a copy of an array or object with f applied to each of
// its elements, and any other value as it is.
func children(v any, f func(any) any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = f(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = f(e)
		}
		return out
	}
	return v
}
