package jsonvalue

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

// Decode reads exactly one JSON value (text after it is an error) as
// the plain values the executor passes around: integers as int64 (whole
// numbers within ±2^53 too), other numbers as float64, and a number that
// float64 cannot hold is an error rather than an infinity that JSON could
// not write back. Parameters given as JSON, a tool's JSON output and an
// HTTP response body are all read with it.
func Decode(data []byte) (any, error) {
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
	return plain(v)
}

func plain(v any) (any, error) {
	switch x := v.(type) {
	case json.Number:
		return number(string(x))
	case []any:
		for i, it := range x {
			c, err := plain(it)
			if err != nil {
				return nil, err
			}
			x[i] = c
		}
	case map[string]any:
		for k, it := range x {
			c, err := plain(it)
			if err != nil {
				return nil, err
			}
			x[k] = c
		}
	}
	return v, nil
}

func number(n string) (any, error) {
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

func IsScalar(v any) bool {
	switch v.(type) {
	case string, bool, int, int64, float64, json.Number:
		return true
	}
	return false
}

// Text writes a value as a command-line argument or variable: strings as
// they are, numbers in plain decimal (1e21 would surprise a shell script),
// booleans as true/false, anything else (lists, maps, null) as JSON.
func Text(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case json.Number:
		return x.String()
	}
	b, err := Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// Marshal is compact JSON without HTML escaping (a tool reading "<" should
// not get "\u003c").
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// Describe names the type of a config value for error messages.
func Describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("the string %q", x)
	case bool:
		return "a boolean"
	case int, int64, float64, json.Number:
		return "a number"
	case []any, []string:
		return "a list"
	case map[string]any, map[string]string:
		return "a map"
	}
	return fmt.Sprintf("a %T", v)
}
