package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// decodeJSON reads exactly one JSON value (text after it is an error) as
// the plain values the executor passes around: integers as int64 (whole
// numbers within ±2^53 too), other numbers as float64, and a number that
// float64 cannot hold is an error rather than an infinity that JSON could
// not write back. Parameters given as JSON, a tool's JSON output and an
// HTTP response body are all read with it.
func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		if err == io.EOF {
			return nil, errors.New("no JSON value")
		}
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("unexpected text after the JSON value")
	}
	return jsonPlain(v)
}

func jsonPlain(v any) (any, error) {
	switch x := v.(type) {
	case json.Number:
		return jsonNumber(string(x))
	case []any:
		for i, it := range x {
			c, err := jsonPlain(it)
			if err != nil {
				return nil, err
			}
			x[i] = c
		}
	case map[string]any:
		for k, it := range x {
			c, err := jsonPlain(it)
			if err != nil {
				return nil, err
			}
			x[k] = c
		}
	}
	return v, nil
}

func jsonNumber(n string) (any, error) {
	if !strings.ContainsAny(n, ".eE") {
		if i, err := strconv.ParseInt(n, 10, 64); err == nil {
			return i, nil
		}
	}
	f, err := strconv.ParseFloat(n, 64)
	if math.IsInf(f, 0) || math.IsNaN(f) || (err != nil && !errors.Is(err, strconv.ErrRange)) {
		if len(n) > 40 {
			n = n[:40] + "…"
		}
		return nil, fmt.Errorf("the number %s is out of range", n)
	}
	if f == math.Trunc(f) && math.Abs(f) <= 1<<53 {
		return int64(f), nil
	}
	return f, nil
}
