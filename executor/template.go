package executor

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/ryekit/rye/chain"
	"github.com/ryekit/rye/internal/jsonvalue"
	"github.com/ryekit/rye/item/syntax"
)

// templateError is a {name} that nothing provides.
type templateError struct {
	Name  string
	Field string // the config key it is in
	Known []string
}

func (e *templateError) Error() string {
	return fmt.Sprintf("config %s: {%s} is not provided by the execution context, the config or the tool's parameters (known: %s); write {{%s}} for literal braces",
		e.Field, e.Name, strings.Join(e.Known, ", "), e.Name)
}

// render applies the two template passes of spec 3.6 to a merged config
// and returns it as plain values: first ${VAR} and ${VAR:-default} from
// the resolved environment in every string, then {name} from the execution
// context, the config's own keys and the validated parameters, looked up in
// that order. A string that is exactly "{name}" takes the value with its
// type; "{{" and "}}" write literal braces; any other brace text is literal;
// a {name} that nothing provides is an error, never left as it is. No
// shell is involved, so nothing is quoted.
func render(cfg *syntax.Node, env *env, context, params map[string]any) (map[string]any, error) {
	raw, _ := cfg.Plain().(map[string]any)
	if raw == nil {
		raw = map[string]any{}
	}
	// Pass 1: environment variables.
	envd := mapStrings(raw, env.Expand).(map[string]any)
	r := &renderer{context: context, params: params, config: envd, done: map[string]any{}, busy: map[string]bool{}}
	out := map[string]any{}
	for _, k := range slices.Sorted(maps.Keys(envd)) {
		v, err := r.key(k)
		if err != nil {
			return nil, err
		}
		out[k] = v
	}
	return out, nil
}

type renderer struct {
	context, params, config map[string]any
	done                    map[string]any
	busy                    map[string]bool
	field                   string
}

// key renders config key k once (a config value may use another key).
func (r *renderer) key(k string) (any, error) {
	if v, ok := r.done[k]; ok {
		return v, nil
	}
	if r.busy[k] {
		return nil, fmt.Errorf("config %s refers to itself through {placeholders}", k)
	}
	r.busy[k] = true
	prev := r.field
	r.field = k
	v, err := r.value(r.config[k])
	r.field = prev
	delete(r.busy, k)
	if err != nil {
		return nil, err
	}
	r.done[k] = v
	return v, nil
}

func (r *renderer) value(v any) (any, error) {
	switch x := v.(type) {
	case string:
		return r.str(x)
	case []any:
		out := make([]any, len(x))
		for i, it := range x {
			var err error
			if out[i], err = r.value(it); err != nil {
				return nil, err
			}
		}
		return out, nil
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, it := range x {
			var err error
			if out[k], err = r.value(it); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	return v, nil
}

// lookup finds a placeholder's value: the execution context, the config's
// own keys (rendered), then the parameters.
func (r *renderer) lookup(name string) (any, bool, error) {
	if v, ok := r.context[name]; ok {
		return v, true, nil
	}
	if _, ok := r.config[name]; ok {
		v, err := r.key(name)
		return v, true, err
	}
	if v, ok := r.params[name]; ok {
		return v, true, nil
	}
	return nil, false, nil
}

func (r *renderer) str(s string) (any, error) {
	ps := chain.Placeholders(s)
	if len(ps) == 1 && ps[0].Off == 0 && len(ps[0].Name)+2 == len(s) {
		v, ok, err := r.lookup(ps[0].Name)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, r.missing(ps[0].Name)
		}
		return v, nil // the whole string: keep the value's type
	}
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); {
		switch {
		case len(ps) > 0 && i == ps[0].Off:
			p := ps[0]
			ps = ps[1:]
			v, ok, err := r.lookup(p.Name)
			if err != nil {
				return nil, err
			}
			if !ok {
				return nil, r.missing(p.Name)
			}
			b.WriteString(s[last:i])
			b.WriteString(text(v))
			i += len(p.Name) + 2
			last = i
		case strings.HasPrefix(s[i:], "{{"), strings.HasPrefix(s[i:], "}}"):
			b.WriteString(s[last : i+1])
			i += 2
			last = i
		default:
			i++
		}
	}
	b.WriteString(s[last:])
	return b.String(), nil
}

func (r *renderer) missing(name string) error {
	var known []string
	for _, m := range []map[string]any{r.context, r.config, r.params} {
		for k := range m {
			known = append(known, k)
		}
	}
	sort.Strings(known)
	return &templateError{Name: name, Field: r.field, Known: known}
}

// text writes a value inside a longer string: nothing for null, else as
// every other place writes a value as text (jsonvalue.Text: strings as they are,
// numbers and booleans as text, the rest as compact JSON without HTML
// escaping).
func text(v any) string {
	if v == nil {
		return ""
	}
	return jsonvalue.Text(v)
}

// mapStrings applies fn to every string in a plain value.
func mapStrings(v any, fn func(string) string) any {
	switch x := v.(type) {
	case string:
		return fn(x)
	case []any:
		out := make([]any, len(x))
		for i, it := range x {
			out[i] = mapStrings(it, fn)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, it := range x {
			out[k] = mapStrings(it, fn)
		}
		return out
	}
	return v
}
