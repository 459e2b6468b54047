package params

import (
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ryekit/rye/internal/jsonschema"
	"github.com/ryekit/rye/internal/jsonvalue"
	"github.com/ryekit/rye/internal/paramschema"
	"github.com/ryekit/rye/item/syntax"
)

// Error is a mistake in the parameters given to a tool: the command
// line reports it with exit status 2 and lists the valid parameters.
type Error struct {
	Msg   string
	Valid []string // the tool's parameters, e.g. ["--name string (default \"World\")", "--count integer (required)"]
	// Unchecked is a tool that declares no schema: it takes any parameter.
	Unchecked bool
}

// Error is Msg, then "valid parameters:" and one parameter per line (or
// "this tool takes no parameters").
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Msg)
	if e.Unchecked {
		return b.String()
	}
	if len(e.Valid) == 0 {
		b.WriteString("\nthis tool takes no parameters")
		return b.String()
	}
	b.WriteString("\nvalid parameters:")
	for _, v := range e.Valid {
		b.WriteString("\n  ")
		b.WriteString(v)
	}
	return b.String()
}

// Parse builds a tool's parameter object from command-line arguments,
// driven by its JSON Schema (nil: the tool declares none, see
// parseUnchecked). The
// parameters are the properties the schema declares, as lint sees them:
// its "properties" and those of its local $ref targets and of its allOf,
// anyOf, oneOf, if/then/else, not and dependentSchemas branches
// (paramschema.Declare):
//
//   - --name value, --name=value; a bare --flag for booleans (and --flag=false);
//     a flag that is not a boolean takes the next argument as its value unless
//     that argument begins with "--" (write --name=--value for such values);
//   - typed conversion by the property's "type": integer, number, boolean,
//     string, array (repeat the flag, or give a JSON array), object (JSON);
//   - "-" and "_" are the same in names (--dry-run sets dry_run);
//   - one positional argument maps to the primary parameter: the property
//     with "x-primary": true, else the single required property; more
//     positionals, or a positional when there is no primary, is an error;
//     everything after "--" is positional;
//   - params is the --params value: a JSON object, or "@file.json" read from
//     disk with readFile (os.ReadFile when nil); its keys merge UNDER the
//     flags (a flag wins);
//   - unknown flags are rejected naming the valid ones (and the nearest one
//     by edit distance, "did you mean --name?");
//   - a property whose type is a list (["string","null"]) or absent takes
//     the value as JSON when it parses (and, for a list, the JSON value has
//     one of the listed types or the list has no "string"), else as a string.
//
// Integers come back as int64, other numbers as float64. It returns
// *Error for every mistake of the caller.
func Parse(schema *syntax.Node, args []string, params string, readFile func(string) ([]byte, error)) (map[string]any, error) {
	s := paramSchemaOf(schema)
	if schema.IsNull() {
		return s.parseUnchecked(args, params, readFile)
	}
	out := map[string]any{}
	if params != "" {
		m, err := s.parseParamsFlag(params, readFile)
		if err != nil {
			return nil, err
		}
		out = m
	}

	flags := map[string]any{}
	given := map[string]bool{}
	set := func(p *paramProp, raw string) error {
		if s.kind(p.Schema) == paramArray {
			items, err := s.convertArray(p, raw)
			if err != nil {
				return err
			}
			prev, _ := flags[p.Name].([]any)
			flags[p.Name] = append(prev, items...)
			return nil
		}
		if given[p.Name] {
			return s.errorf("--%s given more than once (only array parameters can be repeated)", p.Name)
		}
		v, err := s.convert(p, raw)
		if err != nil {
			return err
		}
		given[p.Name] = true
		flags[p.Name] = v
		return nil
	}

	var positionals []string
	onlyPositional := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case onlyPositional:
			positionals = append(positionals, a)
			continue
		case a == "--":
			onlyPositional = true
			continue
		case strings.HasPrefix(a, "--"):
			name, val, hasVal := strings.Cut(a[2:], "=")
			if name == "" {
				return nil, s.errorf("found %s, expected --name or --name=value", paramschema.Quote(a))
			}
			p := s.lookup(name)
			if p == nil {
				return nil, s.unknown([]string{name})
			}
			if !hasVal {
				if s.isBoolFlag(p.Schema) {
					if given[p.Name] {
						return nil, s.errorf("--%s given more than once (only array parameters can be repeated)", p.Name)
					}
					given[p.Name] = true
					flags[p.Name] = true
					continue
				}
				if i+1 >= len(args) || strings.HasPrefix(args[i+1], "--") {
					return nil, s.errorf("--%s needs a value (--%s VALUE, or --%s=VALUE for a value that begins with --)", p.Name, p.Name, p.Name)
				}
				i++
				val = args[i]
			}
			if err := set(p, val); err != nil {
				return nil, err
			}
			continue
		case len(a) > 1 && a[0] == '-' && !paramNumberStart(a[1]):
			// "-x": a flag with one dash ("-" alone and "-5" are values).
			msg := fmt.Sprintf("unknown flag %s: parameters are given with two dashes (--name value)", paramQuoteFlag(a))
			if near := s.nearest(strings.TrimLeft(a, "-")); near != "" {
				msg += "; did you mean --" + near + "?"
			}
			return nil, s.errorf("%s", msg)
		}
		positionals = append(positionals, a)
	}

	switch len(positionals) {
	case 0:
	case 1:
		p, why := s.primary()
		if p == nil {
			return nil, s.errorf("found the positional argument %s, but %s: give parameters as --name value", paramschema.Quote(positionals[0]), why)
		}
		if err := set(p, positionals[0]); err != nil {
			return nil, err
		}
	default:
		shown := make([]string, 0, 3)
		for i, a := range positionals {
			if i == 3 {
				shown = append(shown, "…")
				break
			}
			shown = append(shown, paramschema.Quote(a))
		}
		what := "at most one"
		if p, _ := s.primary(); p != nil {
			what += " (for --" + p.Name + ")"
		} else {
			what = "none (give parameters as --name value)"
		}
		return nil, s.errorf("found %d positional arguments (%s), expected %s", len(positionals), strings.Join(shown, ", "), what)
	}

	for k, v := range flags {
		out[k] = v
	}
	return out, nil
}

// parseUnchecked reads the parameters of a tool that declares no schema.
// The reference passes such a tool's parameters on unchanged, and so does
// rye; the command line reads them the way it reads a declared parameter
// without a type:
//
//   - --name value and --name=value take the value as JSON when it parses
//     (3, true, ["a"], {"k": 1}), else as the text written;
//   - a bare --name (the last argument, or followed by another --flag) is
//     true;
//   - names are kept exactly as written: no schema says which spelling the
//     tool reads, so --dry-run gives "dry-run" and --dry_run "dry_run";
//   - a name given twice, a positional argument or a one-dash flag is an
//     error (write a list as JSON, or use --params);
//   - --params JSON|@file merges under the flags, unchanged.
func (s *paramSchema) parseUnchecked(args []string, params string, readFile func(string) ([]byte, error)) (map[string]any, error) {
	out := map[string]any{}
	if params != "" {
		m, err := s.parseParamsFlag(params, readFile)
		if err != nil {
			return nil, err
		}
		out = m
	}
	flags := map[string]any{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, val, hasVal := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		switch {
		case a == "--" || !strings.HasPrefix(a, "--"):
			return nil, s.errorf("found the argument %s: this tool declares no parameter schema, so there is no positional parameter; give parameters as --name value", paramschema.Quote(a))
		case name == "" || strings.HasPrefix(name, "-"):
			return nil, s.errorf("found %s, expected --name or --name=value", paramschema.Quote(a))
		}
		if _, dup := flags[name]; dup {
			return nil, s.errorf("--%s given more than once (give a list as JSON: --%s '[\"a\", \"b\"]')", name, name)
		}
		switch {
		case hasVal:
			flags[name] = s.loose(nil, val)
		case i+1 < len(args) && !strings.HasPrefix(args[i+1], "--"):
			i++
			flags[name] = s.loose(nil, args[i])
		default:
			flags[name] = true
		}
	}
	for k, v := range flags {
		out[k] = v
	}
	return out, nil
}

// Prepare applies the schema's defaults (of the properties it always
// declares, at the top level and in object parameters that are present or
// defaulted) and validates the result against the schema (JSON Schema,
// draft 2020-12 unless "$schema" says otherwise). Unknown top-level
// parameters are an error naming the valid ones even when the schema does
// not forbid additional properties (spec 3.4 step 5); only a schema that
// explicitly allows more ("additionalProperties" other than false, or a
// matching "patternProperties") takes them. Mistakes of the caller come back as
// *Error with short readable messages ("--count: found \"x\",
// expected an integer", "missing required parameter --name"); a schema
// that cannot be compiled is a plain error. The params map is not changed.
func Prepare(schema *syntax.Node, params map[string]any) (map[string]any, error) {
	s := paramSchemaOf(schema)
	if schema.IsNull() {
		// No schema: the parameters are passed on unchanged (spec 6.6).
		out := make(map[string]any, len(params))
		for k, v := range params {
			out[k] = v
		}
		return out, nil
	}
	var unknown []string
	for k := range params {
		if !s.takes(k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return nil, s.unknown(unknown)
	}
	sch, err := paramCompile(schema)
	if err != nil {
		return nil, err
	}
	out := s.withDefaults(s.decl, params, 0)
	if err := paramschema.Validate(sch, out); err != nil {
		var verr *jsonschema.ValidationError
		if !errors.As(err, &verr) {
			return nil, fmt.Errorf("the parameters could not be checked: %w", err)
		}
		return nil, s.errorf("%s", strings.Join(paramExplain(verr, out), "\n"))
	}
	return out, nil
}

// Usage is the help text of a tool's parameters (rye execute tool ID
// --help): one line per property in schema order, "--name TYPE", then the
// description and, in parentheses, whether it is required, whether it is
// the primary (positional) parameter, its enum values and its default.
func Usage(schema *syntax.Node) string {
	s := paramSchemaOf(schema)
	if schema.IsNull() {
		return "this tool declares no parameter schema: every --name value is passed on unchecked\n(the value as JSON when it parses, else as text; a bare --name is true)\n"
	}
	if len(s.props) == 0 {
		return "this tool takes no parameters\n"
	}
	primary, _ := s.primary()
	const maxWidth = 30
	lefts := make([]string, len(s.props))
	width := 0
	for i := range s.props {
		p := &s.props[i]
		lefts[i] = "--" + p.Name + " " + s.typeName(p.Schema)
		if n := utf8.RuneCountInString(lefts[i]); n > width && n <= maxWidth {
			width = n
		}
	}
	var b strings.Builder
	for i := range s.props {
		p := &s.props[i]
		notes := s.notes(p, primary, true)
		text := strings.Join(strings.Fields(s.kw(p.Schema, "description").String()), " ")
		if len(notes) > 0 {
			if text != "" {
				text += " "
			}
			text += "(" + strings.Join(notes, "; ") + ")"
		}
		b.WriteString("  ")
		b.WriteString(lefts[i])
		if text != "" {
			pad := width - utf8.RuneCountInString(lefts[i])
			if pad < 0 {
				pad = 0
			}
			b.WriteString(strings.Repeat(" ", pad+2))
			b.WriteString(text)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// Names lists the flag names (--name) for shell completion, in schema order.
func Names(schema *syntax.Node) []string {
	s := paramSchemaOf(schema)
	out := make([]string, len(s.props))
	for i, p := range s.props {
		out[i] = "--" + p.Name
	}
	return out
}

// --- the schema, as the command line sees it ---

// paramProp is a parameter: its name and schema.
type paramProp = paramschema.Prop

type paramSchema struct {
	root     *syntax.Node
	res      *paramschema.Resolver
	decl     *paramschema.Declared // nil when the schema is not an object
	props    []paramProp           // schema order
	required map[string]bool
}

// paramSchemaOf reads the parameters a schema declares: the same walk as
// lint's check of "required" names (paramschema.Declare), so that a
// parameter declared in an allOf, anyOf or if/then branch is one the
// command line takes.
func paramSchemaOf(schema *syntax.Node) *paramSchema {
	s := &paramSchema{root: schema, res: paramschema.NewResolver(schema), required: map[string]bool{}}
	if schema == nil || schema.Kind != syntax.MapNode {
		return s
	}
	s.decl = s.res.Declare(schema)
	s.props = s.decl.Props
	for _, r := range s.decl.Required {
		if s.decl.Lookup(r) != nil {
			s.required[r] = true
		}
	}
	return s
}

// errorf is a *Error listing the valid parameters.
func (s *paramSchema) errorf(format string, args ...any) *Error {
	return &Error{Msg: fmt.Sprintf(format, args...), Valid: s.valid(), Unchecked: s.root.IsNull()}
}

// valid lists the parameters for a Error:
// `--name string (default "World")`, "--count integer (required)".
func (s *paramSchema) valid() []string {
	var out []string
	for i := range s.props {
		p := &s.props[i]
		v := "--" + p.Name + " " + s.typeName(p.Schema)
		if notes := s.notes(p, nil, false); len(notes) > 0 {
			v += " (" + strings.Join(notes, ", ") + ")"
		}
		out = append(out, v)
	}
	return out
}

// notes are what Usage (usage) and Error.Valid say about a
// parameter in parentheses: whether it is required, for the usage text
// whether it is the primary one and its enum values, and the default
// Prepare fills in.
func (s *paramSchema) notes(p, primary *paramProp, usage bool) []string {
	var notes []string
	if s.required[p.Name] {
		notes = append(notes, "required")
	}
	if usage && primary == p {
		notes = append(notes, "primary: may be given without --"+p.Name)
	}
	if e := s.kw(p.Schema, "enum"); usage && e != nil && e.Kind == syntax.ListNode {
		vals := make([]string, len(e.Items))
		for j, it := range e.Items {
			vals[j] = paramschema.Shorten(paramschema.Compact(it.Plain()), 40)
		}
		notes = append(notes, "one of "+strings.Join(vals, ", "))
	}
	if d := s.kw(p.Schema, "default"); d != nil && p.Always { // withDefaults fills in only these
		notes = append(notes, "default "+paramschema.Shorten(paramschema.Compact(d.Plain()), 40))
	}
	return notes
}

// kw is a keyword of a (sub)schema, looked up through local "$ref"s
// ("#/$defs/x") when the schema itself does not have it.
func (s *paramSchema) kw(n *syntax.Node, key string) *syntax.Node {
	for hops := 0; n != nil && n.Kind == syntax.MapNode && hops < 16; hops++ {
		if v := n.Get(key); v != nil {
			return v
		}
		ref := n.Get("$ref")
		if ref == nil || ref.Kind != syntax.StringNode {
			return nil
		}
		n = s.res.Resolve(ref.Str)
	}
	return nil
}

// exact is the property named name, or nil.
func (s *paramSchema) exact(name string) *paramProp {
	if s.decl == nil {
		return nil
	}
	return s.decl.Lookup(name) // an element of s.props
}

// lookup finds a flag's property: by its exact name, else with "-" and "_"
// taken as the same.
func (s *paramSchema) lookup(name string) *paramProp {
	if p := s.exact(name); p != nil {
		return p
	}
	norm := paramNorm(name)
	for i := range s.props {
		if paramNorm(s.props[i].Name) == norm {
			return &s.props[i]
		}
	}
	return nil
}

func paramNorm(name string) string { return strings.ReplaceAll(name, "-", "_") }

// takes says whether the schema takes a parameter: one it declares (by
// name or "patternProperties"), or any when it explicitly allows more
// ("additionalProperties" other than false).
func (s *paramSchema) takes(name string) bool {
	if s.decl == nil {
		return false
	}
	if s.decl.Has(name) {
		return true
	}
	ap := s.root.Get("additionalProperties")
	return ap != nil && (ap.Kind == syntax.MapNode || ap.IsTrue())
}

// Unknown is the error for parameters that schema does not take, with the
// nearest declared name suggested for each (rye thread uses it for names
// that are neither a directive input nor a runner option).
func Unknown(schema *syntax.Node, names ...string) *Error {
	return paramSchemaOf(schema).unknown(names)
}

// unknown is the error for parameters the tool does not take.
func (s *paramSchema) unknown(names []string) *Error {
	if len(names) == 1 {
		msg := "unknown parameter " + paramQuoteFlag("--"+names[0])
		if near := s.nearest(names[0]); near != "" {
			msg += "; did you mean --" + near + "?"
		}
		return s.errorf("%s", msg)
	}
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = paramQuoteFlag("--" + n)
		if near := s.nearest(n); near != "" {
			parts[i] += " (did you mean --" + near + "?)"
		}
	}
	return s.errorf("unknown parameters %s", strings.Join(parts, ", "))
}

// nearest is the property a mistyped name most likely meant, or "".
func (s *paramSchema) nearest(name string) string {
	typed := strings.ToLower(paramNorm(name))
	if typed == "" {
		return ""
	}
	best, bestD := "", math.MaxInt
	var prefixed []string
	for _, p := range s.props {
		cand := strings.ToLower(paramNorm(p.Name))
		if cand == typed {
			return p.Name
		}
		if len(typed) >= 2 && strings.HasPrefix(cand, typed) {
			prefixed = append(prefixed, p.Name)
		}
		if d := paramEditDistance(typed, cand); d < bestD {
			best, bestD = p.Name, d
		}
	}
	limit := 1
	switch n := utf8.RuneCountInString(typed); {
	case n > 8:
		limit = 3
	case n > 3:
		limit = 2
	}
	if bestD <= limit && bestD < utf8.RuneCountInString(typed) {
		return best
	}
	if len(prefixed) == 1 {
		return prefixed[0]
	}
	return ""
}

// paramEditDistance is the optimal string alignment distance of a and b
// (insertions, deletions, substitutions and swaps of neighbours), in runes.
func paramEditDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	if len(ra) > 64 || len(rb) > 64 {
		if a == b {
			return 0
		}
		return math.MaxInt / 2
	}
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// primary is the parameter a positional argument sets, or nil and why
// there is none.
func (s *paramSchema) primary() (*paramProp, string) {
	var marked []*paramProp
	for i := range s.props {
		if s.kw(s.props[i].Schema, "x-primary").IsTrue() {
			marked = append(marked, &s.props[i])
		}
	}
	if len(marked) == 1 {
		return marked[0], ""
	}
	if len(marked) > 1 {
		return nil, "several parameters are marked \"x-primary\" (" + paramFlagList(marked) + ")"
	}
	var req []*paramProp
	for i := range s.props {
		if s.required[s.props[i].Name] {
			req = append(req, &s.props[i])
		}
	}
	switch len(req) {
	case 1:
		return req[0], ""
	case 0:
		if len(s.props) == 0 {
			return nil, "this tool takes no parameters"
		}
		return nil, "this tool has no primary parameter"
	}
	return nil, "this tool has several required parameters (" + paramFlagList(req) + ") and none is marked \"x-primary\""
}

func paramFlagList(ps []*paramProp) string {
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = "--" + p.Name
	}
	return strings.Join(names, ", ")
}

// --- types and conversion ---

type paramKind int

const (
	paramAny paramKind = iota // no type, a list of types or an unknown one
	paramString
	paramInteger
	paramNumber
	paramBoolean
	paramArray
	paramObject
)

func (s *paramSchema) kind(n *syntax.Node) paramKind {
	t := s.kw(n, "type")
	if t == nil || t.Kind != syntax.StringNode {
		return paramAny
	}
	switch t.Str {
	case "string":
		return paramString
	case "integer":
		return paramInteger
	case "number":
		return paramNumber
	case "boolean":
		return paramBoolean
	case "array":
		return paramArray
	case "object":
		return paramObject
	}
	return paramAny
}

// typeList is the list of a "type" given as a list (strings only).
func (s *paramSchema) typeList(n *syntax.Node) []string {
	var out []string
	for _, it := range s.kw(n, "type").ListItems() {
		if it.Kind == syntax.StringNode {
			out = append(out, it.Str)
		}
	}
	return out
}

// isBoolFlag says whether a bare --flag sets the property to true.
func (s *paramSchema) isBoolFlag(n *syntax.Node) bool {
	if s.kind(n) == paramBoolean {
		return true
	}
	for _, t := range s.typeList(n) {
		if t == "boolean" {
			return true
		}
	}
	return false
}

// typeName is how a property's type is shown: "string", "array of integer",
// "string|null", "value" (any JSON value).
func (s *paramSchema) typeName(n *syntax.Node) string { return s.typeNameAt(n, 0) }

// typeNameAt bounds the descent through items (and the $refs behind
// them): a schema may refer to itself ("items": {"$ref": "#/properties/x"}).
func (s *paramSchema) typeNameAt(n *syntax.Node, depth int) string {
	t := s.kw(n, "type")
	switch {
	case t != nil && t.Kind == syntax.StringNode:
		if t.Str == "array" && depth < 4 {
			if it := s.kw(n, "items"); it != nil && it.Kind == syntax.MapNode {
				if sub := s.typeNameAt(it, depth+1); sub != "value" {
					return "array of " + sub
				}
			}
		}
		return t.Str
	case len(s.typeList(n)) > 0:
		return strings.Join(s.typeList(n), "|")
	}
	return "value"
}

// convert turns one command-line value into the property's type.
func (s *paramSchema) convert(p *paramProp, raw string) (any, error) {
	return s.convertAs(p.Name, p.Schema, raw, 0)
}

func (s *paramSchema) convertAs(name string, n *syntax.Node, raw string, depth int) (any, error) {
	switch s.kind(n) {
	case paramString:
		return raw, nil
	case paramInteger:
		i, err := paramParseInt(raw)
		if err != nil {
			return nil, s.errorf("--%s: found %s, expected an integer%s", name, paramschema.Quote(raw), err.Error())
		}
		return i, nil
	case paramNumber:
		f, ok := paramParseNumber(raw)
		if !ok {
			return nil, s.errorf("--%s: found %s, expected a number", name, paramschema.Quote(raw))
		}
		return f, nil
	case paramBoolean:
		b, ok := paramParseBool(raw)
		if !ok {
			return nil, s.errorf("--%s: found %s, expected true or false", name, paramschema.Quote(raw))
		}
		return b, nil
	case paramObject:
		v, err := paramParseJSON(raw)
		if err != nil {
			return nil, s.errorf("--%s: found %s, expected a JSON object ({\"key\": value, ...}): %s", name, paramschema.Quote(raw), err.Error())
		}
		if _, ok := v.(map[string]any); !ok {
			return nil, s.errorf("--%s: found %s, expected a JSON object ({\"key\": value, ...})", name, paramschema.Quote(raw))
		}
		return v, nil
	case paramArray:
		if depth > 0 { // an array inside an array: JSON only
			return s.loose(nil, raw), nil
		}
	}
	return s.loose(s.typeList(n), raw), nil
}

// convertArray turns one value of an array parameter into its items: a JSON
// array gives its items, anything else is one item of the "items" type.
func (s *paramSchema) convertArray(p *paramProp, raw string) ([]any, error) {
	if strings.HasPrefix(strings.TrimSpace(raw), "[") {
		if v, err := paramParseJSON(raw); err == nil {
			if arr, ok := v.([]any); ok {
				return arr, nil
			}
		}
	}
	items := s.kw(p.Schema, "items")
	if items == nil || items.Kind != syntax.MapNode {
		return []any{s.loose(nil, raw)}, nil
	}
	v, err := s.convertAs(p.Name, items, raw, 1)
	if err != nil {
		return nil, err
	}
	return []any{v}, nil
}

// loose takes a value as JSON when it parses (and fits the listed types,
// when there is a list with "string" in it), else as a string.
func (s *paramSchema) loose(types []string, raw string) any {
	v, err := paramParseJSON(raw)
	if err != nil {
		return raw
	}
	if len(types) == 0 || paramHasType(v, types) {
		return v
	}
	for _, t := range types {
		if t == "string" {
			return raw
		}
	}
	return v
}

func paramHasType(v any, types []string) bool {
	for _, t := range types {
		switch x := v.(type) {
		case nil:
			if t == "null" {
				return true
			}
		case string:
			if t == "string" {
				return true
			}
		case bool:
			if t == "boolean" {
				return true
			}
		case int64:
			if t == "integer" || t == "number" {
				return true
			}
		case float64:
			if t == "number" || (t == "integer" && x == math.Trunc(x)) {
				return true
			}
		case []any:
			if t == "array" {
				return true
			}
		case map[string]any:
			if t == "object" {
				return true
			}
		}
	}
	return false
}

func paramNumberStart(c byte) bool { return c >= '0' && c <= '9' || c == '.' }

// paramNumberSyntax keeps to decimal numbers: no "Inf", "NaN", hex or "_".
func paramNumberSyntax(s string) bool {
	digit := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			digit = true
		case c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-':
		default:
			return false
		}
	}
	return digit
}

// paramIntError is why a value is not an integer: "" or " (out of range)",
// appended to "expected an integer".
type paramIntError string

func (e paramIntError) Error() string { return string(e) }

// paramParseInt reads an integer; a whole number written as a decimal
// ("5.0", "1e3") is one too, as in JSON Schema.
func paramParseInt(raw string) (int64, error) {
	t := strings.TrimSpace(raw)
	if !paramNumberSyntax(t) {
		return 0, paramIntError("")
	}
	i, err := strconv.ParseInt(t, 10, 64)
	if err == nil {
		return i, nil
	}
	if errors.Is(err, strconv.ErrRange) {
		return 0, paramIntError(" (out of range)")
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) || f != math.Trunc(f) {
		return 0, paramIntError("")
	}
	if f >= 1<<63 || f < -(1<<63) {
		return 0, paramIntError(" (out of range)")
	}
	return int64(f), nil
}

func paramParseNumber(raw string) (float64, bool) {
	t := strings.TrimSpace(raw)
	if !paramNumberSyntax(t) {
		return 0, false
	}
	f, err := strconv.ParseFloat(t, 64)
	if math.IsInf(f, 0) || math.IsNaN(f) || (err != nil && !errors.Is(err, strconv.ErrRange)) {
		return 0, false
	}
	return f, true
}

func paramParseBool(raw string) (bool, bool) {
	switch strings.ToLower(strings.TrimSpace(raw)) {
	case "true", "yes", "on", "1":
		return true, true
	case "false", "no", "off", "0":
		return false, true
	}
	return false, false
}

// paramParseJSON reads a command-line value as exactly one JSON value
// (jsonvalue.Decode).
func paramParseJSON(s string) (any, error) { return jsonvalue.Decode([]byte(s)) }

// parseParamsFlag reads the --params value: a JSON object or @file.json.
func (s *paramSchema) parseParamsFlag(params string, readFile func(string) ([]byte, error)) (map[string]any, error) {
	what := "--params"
	text := params
	if path, ok := strings.CutPrefix(params, "@"); ok {
		if readFile == nil {
			readFile = os.ReadFile
		}
		what = "--params " + paramschema.Quote(params)
		if path == "" {
			return nil, s.errorf("--params @: expected a file name after @ (--params @params.json)")
		}
		b, err := readFile(path)
		if err != nil {
			return nil, s.errorf("%s: cannot read the file: %v", what, err)
		}
		text = string(b)
	}
	v, err := paramParseJSON(text)
	if err != nil {
		return nil, s.errorf("%s: expected a JSON object ({\"name\": value, ...}), found invalid JSON: %v", what, err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, s.errorf("%s: found %s, expected a JSON object ({\"name\": value, ...})", what, paramschema.Display(v))
	}
	return m, nil
}

// --- defaults ---

// withDefaults copies m, adding the defaults of the declared properties
// that m lacks, and going into object values whose schema declares
// properties. Only properties declared where the schema always applies
// are filled in: the default of a property of one anyOf branch could make
// another branch fail.
func (s *paramSchema) withDefaults(decl *paramschema.Declared, m map[string]any, depth int) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	if depth > 32 || decl == nil {
		return out
	}
	for _, p := range decl.Props {
		if !p.Always {
			continue
		}
		v, ok := out[p.Name]
		if !ok {
			d := s.kw(p.Schema, "default")
			if d == nil {
				continue
			}
			v = paramPlain(d.Plain())
			out[p.Name] = v
		}
		if sub, ok := v.(map[string]any); ok {
			if inner := s.res.Declare(p.Schema); len(inner.Props) > 0 {
				out[p.Name] = s.withDefaults(inner, sub, depth+1)
			}
		}
	}
	return out
}

// paramPlain makes whole float64s of a Plain value int64, as paramParseJSON does.
func paramPlain(v any) any {
	switch x := v.(type) {
	case float64:
		if x == math.Trunc(x) && math.Abs(x) <= 1<<53 {
			return int64(x)
		}
	case []any:
		for i, it := range x {
			x[i] = paramPlain(it)
		}
	case map[string]any:
		for k, it := range x {
			x[k] = paramPlain(it)
		}
	}
	return v
}

// --- compiling and explaining ---

// paramCompile compiles a tool's schema (once per canonical JSON text,
// shared with lint). A schema that cannot be compiled is the tool's
// mistake: a plain error.
func paramCompile(schema *syntax.Node) (*jsonschema.Schema, error) {
	doc, refused := paramschema.Doc(schema)
	if len(refused) > 0 {
		p := refused[0]
		where := ""
		if len(p.Ptr) > 0 {
			where = "at " + paramschema.JSONPointer(p.Ptr) + ": "
		}
		return nil, fmt.Errorf("the tool's parameter schema cannot be used (rye lint explains): %s%s", where, p.Text())
	}
	c := paramschema.Compile(doc)
	if c.Err != nil {
		if errors.As(c.Err, new(*paramschema.PanicError)) {
			return nil, fmt.Errorf("the tool's parameter schema cannot be used: %w", c.Err)
		}
		return nil, fmt.Errorf("the tool's parameter schema is not valid (rye lint explains): %s", paramschema.StripBase(c.Err.Error()))
	}
	return c.Schema, nil
}

const paramMaxMessages = 8

// paramExplain turns a validation error into sorted, distinct one-line
// messages.
func paramExplain(e *jsonschema.ValidationError, doc any) []string {
	seen := map[string]bool{}
	var msgs []string
	for _, l := range paramschema.Explain(e, doc, paramschema.Style{}) {
		m := paramMessage(l)
		if !seen[m] {
			seen[m] = true
			msgs = append(msgs, m)
		}
	}
	slices.Sort(msgs)
	if len(msgs) == 0 {
		msgs = []string{"the parameters do not match the tool's schema"}
	}
	if len(msgs) > paramMaxMessages {
		n := len(msgs) - paramMaxMessages
		msgs = append(msgs[:paramMaxMessages], fmt.Sprintf("and %d more problems", n))
	}
	return msgs
}

// paramMessage words one failure for the command line: the parameter
// path in front ("--opts.depth: found \"x\", expected an integer"), missing
// and unknown top-level properties as parameters ("missing required
// parameter --name").
func paramMessage(l paramschema.Leaf) string {
	msg := l.Text()
	switch k := l.Kind.(type) {
	case *jsonschema.Required:
		if len(l.Loc) == 0 {
			flags := make([]string, len(k.Missing))
			for i, m := range k.Missing {
				flags[i] = paramQuoteFlag("--" + m)
			}
			slices.Sort(flags)
			if len(flags) == 1 {
				return "missing required parameter " + flags[0]
			}
			return "missing required parameters " + strings.Join(flags, ", ")
		}
	case *jsonschema.AdditionalProperties:
		what := "property"
		if len(l.Loc) == 0 {
			what = "parameter"
		}
		msg = "unknown " + paramschema.QuoteList(what, k.Properties)
	}
	if len(l.Loc) == 0 {
		return "parameters: " + msg
	}
	var b strings.Builder
	b.WriteString("--")
	b.WriteString(l.Loc[0])
	for _, t := range l.Loc[1:] {
		if paramschema.IsIndex(t) {
			b.WriteString("[" + t + "]")
		} else {
			b.WriteString("." + t)
		}
	}
	return b.String() + ": " + msg
}

// paramQuoteFlag shows a flag as typed, quoted only when it holds
// something a terminal would not show plainly.
func paramQuoteFlag(s string) string {
	s = paramschema.Shorten(s, 60)
	for _, r := range s {
		if r == utf8.RuneError || !unicode.IsPrint(r) || r == '"' {
			return strconv.Quote(s)
		}
	}
	return s
}
