// Package paramschema is the JSON Schema machinery for tools' parameter
// schemas, shared by the two places that use such a schema: lint's schema
// analyzer (is the schema itself right?, at authoring time) and the
// executor's parameter checker (do the caller's values fit it?, at run
// time). Keeping one copy keeps them agreeing on what a schema means.
//
// It holds:
//   - Doc: a schema node as the plain value the validator takes,
//     with the one set of limits (maxDepth, maxValues, finite numbers) a
//     schema must keep to;
//   - Compile: the validator's (internal/jsonschema) compiler, cached by
//     the schema's canonical JSON and never loading anything, and Validate;
//   - Explain: a validation error as structured leaves (where, found,
//     expected) that each caller words in its own style;
//   - Resolver: local "$ref" ("#/json/pointer") resolution in the node tree,
//     and the JSON pointer helpers;
//   - Declare: which properties a schema declares for its value (its own
//     "properties" and those of its $ref, allOf/anyOf/oneOf, if/then/else,
//     not and dependentSchemas branches);
//   - the wording helpers of schema messages: Quote, QuoteList, Article,
//     wantTypes, Compact, Display, Describe, joinOr, Plural, Rat.
package paramschema

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/ryekit/rye/item/syntax"
)

// maxDepth bounds the nesting of a schema given to the validator, whose
// meta-validation time grows with the square of the depth (each level's
// "$dynamicRef" resolves through the whole dynamic scope). Parameter
// schemas nest a dozen levels at most.
const maxDepth = 128

// maxValues bounds the size of a schema given to the validator, whose
// compile time grows with the number of subschemas (20,000 take about
// 0.2 s).
const maxValues = 20000

// A docProblem is a value of a schema that Doc cannot give the validator.
type docProblem struct {
	Node     *syntax.Node // the value (the root for a schema that is too large)
	Ptr      []string     // its JSON pointer tokens from the root (nil for a schema that is too large)
	Found    string       // without "found "
	Expected string       // without "expected "
}

// Text is "found …, expected …".
func (p docProblem) Text() string { return "found " + p.Found + ", expected " + p.Expected }

// Doc converts a schema node to the plain value the validator takes:
// numbers as json.Number, so that 5 is an integer and 5.5 is not; later
// duplicate keys win, as in Node.Get. It lists the values the validator
// cannot take: infinities and NaN (JSON has none; all of them are
// listed), nesting deeper than maxDepth and more than maxValues values.
// When there are problems the value is only good for showing (an infinity
// is its text, what is too deep or too much is nil), never for compiling.
//
// The limits are lint's: the executor's former copy allowed 512 levels and
// any size, so it ran schemas lint refused.
func Doc(n *syntax.Node) (any, []docProblem) {
	w := &docWalk{root: n}
	v, _ := w.value(n, nil)
	return v, w.problems
}

type docWalk struct {
	root     *syntax.Node
	values   int
	problems []docProblem
}

func (w *docWalk) add(n *syntax.Node, ptr []string, found, expected string) {
	w.problems = append(w.problems, docProblem{Node: n, Ptr: slices.Clone(ptr), Found: found, Expected: expected})
}

// value converts n and says whether n or something below it is refused.
// After a refusal below a node at the depth limit its other values are not
// looked at: one report of deep nesting is enough.
func (w *docWalk) value(n *syntax.Node, ptr []string) (any, bool) {
	if n == nil {
		return nil, false
	}
	if w.values++; w.values > maxValues {
		if w.values == maxValues+1 {
			w.add(w.root, nil, fmt.Sprintf("a parameter schema of more than %d values", maxValues), "a smaller one")
		}
		return nil, true
	}
	if len(ptr) > maxDepth {
		w.add(n, ptr, fmt.Sprintf("a value nested more than %d levels deep", maxDepth), "a shallower schema")
		return nil, true
	}
	switch n.Kind {
	case syntax.StringNode:
		return n.Str, false
	case syntax.IntNode:
		return json.Number(strconv.FormatInt(n.Int, 10)), false
	case syntax.FloatNode:
		text := strconv.FormatFloat(n.Float, 'g', -1, 64)
		if math.IsInf(n.Float, 0) || math.IsNaN(n.Float) {
			raw := n.Raw
			if raw == "" {
				raw = text
			}
			w.add(n, ptr, raw, "a finite number (JSON has no infinity or NaN)")
			return text, true
		}
		return json.Number(text), false
	case syntax.BoolNode:
		return n.Bool, false
	case syntax.ListNode:
		out := make([]any, len(n.Items))
		bad := false
		for i, it := range n.Items {
			v, b := w.value(it, append(ptr, strconv.Itoa(i)))
			out[i] = v
			if b {
				bad = true
				if len(ptr) >= maxDepth {
					break
				}
			}
		}
		return out, bad
	case syntax.MapNode:
		fs := n.EffectiveFields()
		out := make(map[string]any, len(fs))
		bad := false
		for _, f := range fs {
			v, b := w.value(f.Value, append(ptr, f.Key))
			out[f.Key] = v
			if b {
				bad = true
				if len(ptr) >= maxDepth {
					break
				}
			}
		}
		return out, bad
	}
	return nil, false
}
