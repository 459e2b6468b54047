package lint

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/tools/go/analysis"

	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/item/syntax"
	"github.com/ryekit/rye/report"
)

// ryeOS lints the items of ryeOS 0.2+ with ryeOS's own rules (spec 7.5):
// what ryeOS refuses is an error, anything rye adds is advice.
var ryeOS = &analysis.Analyzer{
	Name: "ryeos",
	Doc: `check RyeOS 0.2+ items with RyeOS's own rules

An item is read as RyeOS 0.2+ reads it when it is of a kind only RyeOS
0.2+ has (config, node, service, handler, parser, protocol, runtime,
graph, client, surface, view, the bundle manifest), when RyeOS's Rust
engine signed it (r1, ryeos), when it is written in a form only RyeOS 0.2+
writes (a directive with --- front matter, a # ryeos-tool: header, ...),
or when it is unsigned (or signed in a RyeOS format) in a RyeOS 0.2+
project. rye's own rules (parse, metadata, ids, chain, schema, directive)
are not applied to it. The rule codes are RyeOS's: parse/* (the file does
not parse), metadata/* (name and category against the path),
contract/* (the kind's fields), requires/* and compose/* (directives,
graphs, surfaces, views), node/* (node items), knowledge/* (what the
knowledge runtime's validate reports), ref/* and alias/unknown (an
executor RyeOS cannot run). Each is an error: RyeOS refuses the item.
advice/* findings (a front-matter category or id that differs from the
path, a file shadowed by another of the same id, a tool that cannot be
invoked, a page without front matter) are information, never an error:
RyeOS does not require them.`,
	URL:      docURL("ryeos"),
	Requires: []*analysis.Analyzer{input, parse},
	Run:      runRyeOS,
}

// readsAsRyeOS decides whether an item file is read with ryeOS 0.2+'s
// rules (spec 7.5): a kind only ryeOS 0.2+ has; a Rust-engine signature;
// a 0.2+ form (md: rye's reading of the file, nil before or when it does
// not parse); in a ryeOS 0.2+ project, anything not signed in one of
// rye's formats.
func readsAsRyeOS(f *file, md *item.Metadata) bool {
	if f.Kind.IsRyeOSOnly() {
		return true
	}
	ext := path.Ext(f.Rel)
	if item.RustSigned(f.Src, ext) || item.RyeOSForm(f.Kind, ext, f.Src, md) {
		return true
	}
	return f.Space.Layout().RyeOS && !item.HasSignatureLine(f.Src, ext)
}

// ryeosFinding is one finding about a ryeOS item: its code, where, what.
type ryeosFinding struct {
	code string
	pos  syntax.Pos
	msg  string
}

func runRyeOS(pass *analysis.Pass) (any, error) {
	e, r := env(pass), reporter{pass}
	each(e.Files, func(_ int, f *file) {
		if !f.ryeos || !f.IsItem() || f.ReadErr != nil {
			return
		}
		d := item.ReadRyeOS(f.Kind, f.ID, path.Ext(f.Rel), f.Src)
		errs, advice := ryeosFindings(e, f, d)
		for _, x := range errs {
			r.at(sevError, x.code, f.Pos(x.pos), 0, x.msg)
		}
		for _, x := range advice {
			r.at(sevInfo, x.code, f.Pos(x.pos), 0, x.msg+" (advice: not required by RyeOS)")
		}
	})
	return nil, nil
}

// ryeosFindings are what ryeOS refuses of an item (errors: the first
// refusal of the steps it runs in order, spec 7.5.1, then what its
// knowledge runtime and its executor refuse) and rye's advice.
func ryeosFindings(e *Env, f *file, d *item.RyeOSDoc) (errs, advice []ryeosFinding) {
	ref := d.ID.Ref(d.Kind)
	if d.Refusal != nil {
		msg := d.Refusal.Msg
		if d.Refusal.Field != "" {
			msg = d.Refusal.Field + ": " + msg
		}
		if d.Refusal.Fix != "" {
			msg += " (fix: " + d.Refusal.Fix + ")"
		}
		return []ryeosFinding{{d.Refusal.Rule, d.Refusal.Pos, "RyeOS 0.2+ " + ref + ": " + msg}}, nil
	}
	if x := refusal(d); x != nil {
		x.msg = "RyeOS 0.2+ " + ref + ": " + x.msg
		return []ryeosFinding{*x}, nil
	}
	switch d.Kind {
	case item.Knowledge:
		errs = append(errs, knowledgeProblems(d)...)
	case item.Tool:
		exec := d.Value.Get("executor_id")
		switch {
		case exec.IsNull():
			pos := d.Value.Pos
			if exec != nil {
				pos = exec.Pos
			}
			advice = append(advice, ryeosFinding{"advice/executor-null", pos, "no executor_id: RyeOS loads " + ref + " as a chain terminal, which cannot be invoked directly"})
		case exec.Kind != syntax.StringNode:
			errs = append(errs, ryeosFinding{"ref/invalid", exec.Pos, "executor_id must be a string: RyeOS cannot run " + ref})
		default:
			if _, err := item.ResolveExecutor(item.Tool, exec.Str); err != nil {
				code := "ref/invalid"
				if re, ok := err.(*item.RefError); ok {
					code = re.Code
				}
				errs = append(errs, ryeosFinding{code, exec.Pos, "executor_id: " + err.Error() + ": " + ref + " loads but RyeOS cannot run it"})
			}
		}
		if graphShaped(d) {
			advice = append(advice, ryeosFinding{"advice/graph-shaped", d.Value.Pos, ref + " looks like a graph (RyeOS's sign warns): a graph belongs in .ai/graphs/, where RyeOS runs it as one"})
		}
	}
	advice = append(advice, identityAdvice(d)...)
	if by := e.shadowedBy(f); by != "" {
		advice = append(advice, ryeosFinding{"advice/shadowed", syntax.Pos{}, "RyeOS resolves " + ref + " to " + by + ", which comes first in the kind's order of file forms: this file is never read"})
	}
	return errs, advice
}

// refusal is the first of the checks after parsing that refuses the item
// (spec 7.5.1 steps 5 and 6, 7.5.3): composition, the kind's contract,
// node items.
func refusal(d *item.RyeOSDoc) *ryeosFinding {
	v := d.Value
	switch d.Kind {
	case item.Directive, item.Graph, item.Surface, item.View:
		if x := composition(d); x != nil {
			return x
		}
	case item.Node:
		return nodeProblem(d)
	}
	if c := contracts()[d.Kind]; c != nil {
		return checkFields(c, v, "")
	}
	return nil
}

// composition checks what ryeOS's composers refuse (spec 7.5.3): a
// top-level permissions, a requires that is not capabilities, a
// directive's context, model, limits and inputs of the wrong shape.
func composition(d *item.RyeOSDoc) *ryeosFinding {
	v := d.Value
	if p := v.Get("permissions"); p != nil && !p.IsNull() {
		return &ryeosFinding{"requires/legacy-permissions", p.Pos, "a top-level permissions is refused: declare action authority under requires.capabilities.declared"}
	}
	if req := v.Get("requires"); req != nil && !req.IsNull() {
		bad := func(n *syntax.Node, msg string) *ryeosFinding {
			return &ryeosFinding{"requires/shape", n.Pos, "requires: " + msg}
		}
		if req.Kind != syntax.MapNode {
			return bad(req, "must be a mapping with only capabilities")
		}
		for _, fl := range req.Fields {
			if fl.Key != "capabilities" {
				return bad(fl.Value, "holds "+strconv.Quote(fl.Key)+": only capabilities is allowed")
			}
		}
		if caps := req.Get("capabilities"); caps != nil && !caps.IsNull() {
			if caps.Kind != syntax.MapNode {
				return bad(caps, "capabilities must be a mapping of declared and manifest")
			}
			for _, fl := range caps.Fields {
				switch fl.Key {
				case "declared":
					if !isStrings(fl.Value) {
						return bad(fl.Value, "capabilities.declared must be a list of strings")
					}
				case "manifest":
					if fl.Value.Kind != syntax.MapNode {
						return bad(fl.Value, "capabilities.manifest must be a mapping")
					}
				default:
					return bad(fl.Value, "capabilities holds "+strconv.Quote(fl.Key)+": only declared and manifest are allowed")
				}
			}
		}
	}
	if d.Kind != item.Directive {
		return nil
	}
	shape := func(n *syntax.Node, msg string) *ryeosFinding { return &ryeosFinding{"compose/shape", n.Pos, msg} }
	if c := v.Get("context"); c != nil && !c.IsNull() {
		if c.Kind != syntax.MapNode {
			return shape(c, "context must be a mapping of lists of strings")
		}
		for _, fl := range c.Fields {
			if !isStrings(fl.Value) {
				return shape(fl.Value, "context."+fl.Key+" must be a list of strings")
			}
		}
	}
	for _, name := range []string{"model", "limits"} {
		if n := v.Get(name); n != nil && !n.IsNull() && n.Kind != syntax.MapNode {
			return shape(n, name+" must be a mapping")
		}
	}
	if in := v.Get("inputs"); in != nil && !in.IsNull() {
		if in.Kind != syntax.ListNode {
			return shape(in, "inputs must be a list of mappings, each with a name")
		}
		for i, it := range in.Items {
			if it.Kind != syntax.MapNode || it.Get("name").String() == "" {
				return shape(it, fmt.Sprintf("inputs[%d] must be a mapping with a non-empty string name", i))
			}
		}
	}
	return nil
}

// field is one field of a kind's composed_value_contract (spec 7.5.2).
type field struct {
	name     string
	typ      string // string, integer, boolean, mapping, sequence, strings, string|null, library, affordances
	required bool
	enum     []string // the allowed values (of each element, for strings)
	sub      []field  // a mapping's own contract
}

func req(name, typ string) field { return field{name: name, typ: typ, required: true} }
func opt(name, typ string) field { return field{name: name, typ: typ} }

// contracts are the kinds' contracts at the release spec 7 was read from.
var contracts = sync.OnceValue(func() map[item.Kind][]field {
	str := func(names ...string) []field {
		var out []field
		for _, n := range names {
			out = append(out, opt(n, "string"))
		}
		return out
	}
	maps := func(names ...string) []field {
		var out []field
		for _, n := range names {
			out = append(out, opt(n, "mapping"))
		}
		return out
	}
	required := func(fs []field) []field {
		for i := range fs {
			fs[i].required = true
		}
		return fs
	}
	enum := func(f field, values ...string) field { f.enum = values; return f }
	sub := func(f field, fs ...field) field { f.sub = fs; return f }
	return map[item.Kind][]field{
		item.Tool: {opt("requires", "mapping")},
		item.Service: append([]field{req("endpoint", "string"),
			enum(opt("availability", "string"), "both", "daemon_only", "offline"),
			opt("required_caps", "strings"), opt("record_thread", "boolean"), opt("ui_read_only", "boolean"),
			enum(opt("state_access", "string"), "read_write", "read_only_existing", "projection_rebuild"),
			enum(opt("ui_dispatch", "string"), "verified", "session_local"),
			opt("schema", "mapping"),
			sub(opt("history", "mapping"), sub(opt("retention", "mapping"), opt("terminal_for", "string"))),
		}, str("name", "version", "description", "offline_execute")...),
		item.Handler: append(required(str("category", "name", "binary_ref", "abi_version")),
			enum(req("kind", "string"), "handler"), enum(req("serves", "string"), "parser", "composer", "launch_preparer"),
			opt("required_caps", "strings"), opt("description", "string")),
		item.Runtime: append(required(str("serves", "binary_ref", "abi_version")),
			enum(req("kind", "string"), "runtime"),
			sub(req("launch_contract", "mapping"),
				req("primary_allowed_kinds", "strings"),
				enum(req("primary_allowed_spaces", "strings"), "bundle", "project"),
				enum(req("primary_allowed_trust", "strings"), "trusted_bundle", "trusted_project", "untrusted_project", "unsigned"),
				req("ref_bindings", "mapping"), req("preparation", "mapping"), req("config_inputs", "mapping"),
				sub(req("secret_policy", "mapping"), req("max_requirements", "integer"), req("allowed_names", "strings")),
				req("required_runtime_data", "strings"), req("runtime_facts", "mapping"), req("financial_authority", "mapping")),
			opt("default", "boolean"), opt("required_caps", "strings"), opt("description", "string")),
		item.Client: append([]field{
			sub(req("launch", "mapping"), enum(req("mode", "string"), "cli_exec", "daemon_ui"), req("binary_ref", "string"), opt("args", "mapping")),
			sub(req("serves", "mapping"), req("kind", "string"), opt("renderer", "string")),
			opt("capabilities", "mapping"),
		}, str("version", "description")...),
		item.Directive: append([]field{req("body", "string"), opt("extends", "string|null"), opt("inputs", "sequence")},
			maps("context", "model", "limits", "requires")...),
		item.View: append([]field{req("widget", "string"), opt("affordances", "sequence")}, maps("sources", "selection", "projections", "refresh")...),
		item.Surface: append(maps("tiling", "slots", "style", "input", "ambient", "capabilities", "overlays"),
			opt("tiles", "sequence"), opt("instruments", "sequence"), opt("affordances", "affordances"), opt("library", "library"),
			opt("backdrop", "string"), opt("extends", "string|null")),
		item.Graph: append([]field{opt("description", "string")}, maps("config", "requires")...),
	}
})

// checkFields checks a mapping against a contract: the first field that
// is missing, of the wrong type or not one of its values.
func checkFields(fs []field, v *syntax.Node, prefix string) *ryeosFinding {
	for _, c := range fs {
		n := v.Get(c.name)
		name := prefix + c.name
		if n == nil || (n.IsNull() && c.typ != "string|null") {
			if c.required {
				return &ryeosFinding{"contract/required", v.Pos, name + " is required"}
			}
			continue
		}
		if !typeOK(c.typ, n) {
			return &ryeosFinding{"contract/type", n.Pos, fmt.Sprintf("%s must be %s, not %s", name, typeText(c.typ), kindText(n))}
		}
		if len(c.enum) > 0 {
			vals := []*syntax.Node{n}
			if c.typ == "strings" {
				vals = n.Items
			}
			for _, x := range vals {
				if !slices.Contains(c.enum, x.Str) {
					return &ryeosFinding{"contract/enum", x.Pos, fmt.Sprintf("%s: %q is not one of %s", name, x.Str, strings.Join(c.enum, ", "))}
				}
			}
		}
		if c.sub != nil {
			if x := checkFields(c.sub, n, name+"."); x != nil {
				return x
			}
		}
	}
	return nil
}

func typeOK(typ string, n *syntax.Node) bool {
	switch typ {
	case "string":
		return n.Kind == syntax.StringNode
	case "string|null":
		return n.Kind == syntax.StringNode || n.Kind == syntax.NullNode
	case "integer":
		return n.Kind == syntax.IntNode
	case "boolean":
		return n.Kind == syntax.BoolNode
	case "mapping":
		return n.Kind == syntax.MapNode
	case "sequence":
		return n.Kind == syntax.ListNode
	case "strings":
		return isStrings(n)
	case "library":
		return n.Kind == syntax.ListNode && !slices.ContainsFunc(n.Items, func(x *syntax.Node) bool { return x.Kind != syntax.StringNode && x.Kind != syntax.MapNode })
	case "affordances":
		return n.Kind == syntax.ListNode && !slices.ContainsFunc(n.Items, func(x *syntax.Node) bool {
			id := x.Get("id")
			return x.Kind != syntax.MapNode || id == nil || id.Kind != syntax.StringNode
		})
	}
	return false
}

func typeText(typ string) string {
	switch typ {
	case "strings":
		return "a list of strings"
	case "string|null":
		return "a string or null"
	case "library":
		return "a list of strings or mappings"
	case "affordances":
		return "a list of mappings, each with a string id"
	case "integer":
		return "an integer"
	}
	return "a " + typ
}

func kindText(n *syntax.Node) string {
	switch n.Kind {
	case syntax.StringNode:
		return "a string"
	case syntax.IntNode:
		return "an integer"
	case syntax.FloatNode:
		return "a number"
	case syntax.BoolNode:
		return "a boolean"
	case syntax.ListNode:
		return "a list"
	case syntax.MapNode:
		return "a mapping"
	}
	return "null"
}

func isStrings(n *syntax.Node) bool {
	return n != nil && n.Kind == syntax.ListNode && !slices.ContainsFunc(n.Items, func(x *syntax.Node) bool { return x.Kind != syntax.StringNode })
}

// commandName is what every part of a node command's path must match.
var commandName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9-]*$`) })

// commandFields are the fields a node command record may have.
var commandFields = []string{"tokens", "description", "dispatch", "aliases", "help", "arguments", "forms", "sensitive_fields", "defaults", "parameter_binding", "project", "control_flags"}

// nodeProblem is what ryeOS's node-configuration checks refuse of a node
// item (spec 7.5.4), by its section (the first folder below node/).
func nodeProblem(d *item.RyeOSDoc) *ryeosFinding {
	v, section := d.Value, d.Identity.Section
	rest := strings.TrimPrefix(string(d.ID), section+"/")
	switch section {
	case "verbs", "aliases":
		return &ryeosFinding{"node/legacy-section", v.Pos, "the " + section + " section of node/ is a legacy one that RyeOS refuses"}
	case "bundles", "hosted", "routes", "commands":
	default:
		return nil // the kind schemas (engine/kinds) and the sections ryeOS does not check
	}
	for _, k := range []string{"category", "section"} {
		if n := v.Get(k); n != nil {
			return &ryeosFinding{"node/legacy-field", n.Pos, "a top-level " + k + " is refused in node/" + section + "/: the section and category come from the path"}
		}
	}
	switch section {
	case "commands":
		for _, part := range strings.Split(rest, "/") {
			if !commandName().MatchString(part) {
				return &ryeosFinding{"node/command-name", v.Pos, fmt.Sprintf("%q: every folder and the file name of a command must match [a-z][a-z0-9-]*", part)}
			}
		}
		return commandProblem(v)
	case "routes":
		for _, k := range []string{"id", "path", "methods", "auth", "response"} {
			if v.Get(k) == nil {
				return &ryeosFinding{"node/route", v.Pos, "a route needs " + k}
			}
		}
		if m := v.Get("methods"); m.Kind != syntax.ListNode || len(m.Items) == 0 {
			return &ryeosFinding{"node/route", m.Pos, "methods must be a non-empty list"}
		}
		if mode := v.Get("response").Get("mode"); mode.String() == "" {
			return &ryeosFinding{"node/route", v.Get("response").Pos, "response.mode must be a non-empty string"}
		}
		if ref := v.Get("execute").Get("item_ref"); ref != nil {
			if _, err := item.ParseRef(ref.String()); err != nil || ref.Kind != syntax.StringNode {
				return &ryeosFinding{"node/route", ref.Pos, "execute.item_ref must be a canonical ref (kind:id)"}
			}
		}
	case "bundles":
		if strings.Contains(rest, "/") {
			return &ryeosFinding{"node/bundle", v.Pos, "bundle records sit directly in node/bundles/"}
		}
		for _, k := range []string{"kind", "path", "command_registration_caps"} {
			if v.Get(k) == nil {
				return &ryeosFinding{"node/bundle", v.Pos, "a bundle record needs " + k}
			}
		}
		if p := v.Get("path"); !strings.HasPrefix(p.String(), "/") {
			return &ryeosFinding{"node/bundle", p.Pos, "path must be an absolute path"}
		}
	case "hosted":
		if rest != "policy" {
			return &ryeosFinding{"node/hosted", v.Pos, "node/hosted/ holds only policy.yaml"}
		}
	}
	return nil
}

// commandProblem checks a node command record.
func commandProblem(v *syntax.Node) *ryeosFinding {
	bad := func(n *syntax.Node, msg string) *ryeosFinding { return &ryeosFinding{"node/command", n.Pos, msg} }
	for _, fl := range v.Fields {
		if fl.Key == "name" {
			return &ryeosFinding{"node/command", fl.KeyPos, "a command has no name field: its name is its path"}
		}
		if !slices.Contains(commandFields, fl.Key) {
			return &ryeosFinding{"node/command", fl.KeyPos, fmt.Sprintf("unknown field %q in a command (known: %s)", fl.Key, strings.Join(commandFields, ", "))}
		}
	}
	tokens := v.Get("tokens")
	if tokens == nil || tokens.Kind != syntax.ListNode || len(tokens.Items) == 0 {
		return bad(v, "tokens must be a non-empty list")
	}
	for _, t := range tokens.Items {
		if t.Kind != syntax.StringNode || t.Str == "" || strings.HasPrefix(t.Str, "-") {
			return bad(t, "each token must be a non-empty string that does not start with -")
		}
	}
	if v.Get("description").String() == "" {
		return bad(v, "description must be a non-empty string")
	}
	dispatch := v.Get("dispatch")
	if dispatch == nil || dispatch.Kind != syntax.MapNode {
		return bad(v, "dispatch must be a mapping with a kind")
	}
	need := map[string]string{"group": "", "local_handler": "handler", "direct_execute_item_ref": "item_ref_arg", "execute_ref": "execute"}
	kind := dispatch.Get("kind").String()
	field, ok := need[kind]
	switch {
	case !ok:
		return bad(dispatch, fmt.Sprintf("dispatch.kind %q is not group, local_handler, direct_execute_item_ref or execute_ref", kind))
	case field != "" && dispatch.Get(field).String() == "":
		return bad(dispatch, "a "+kind+" dispatch needs "+field)
	case kind == "execute_ref":
		if _, err := item.ParseRef(dispatch.Get("execute").String()); err != nil {
			return bad(dispatch.Get("execute"), "dispatch.execute must be a canonical ref: "+err.Error())
		}
	}
	return nil
}

// knowledgeProblems are what the knowledge runtime's validate reports as
// errors (spec 7.5.5).
func knowledgeProblems(d *item.RyeOSDoc) []ryeosFinding {
	if p := d.FrontProblem; p != nil {
		return []ryeosFinding{{p.Rule, p.Pos, p.Msg}}
	}
	refs := d.Front.Get("references")
	if refs == nil || refs.IsNull() {
		return nil
	}
	var tokens []*syntax.Node
	switch refs.Kind {
	case syntax.StringNode:
		for _, t := range strings.Split(refs.Str, ",") {
			tokens = append(tokens, syntax.NewString(strings.TrimSpace(t), refs.Pos))
		}
	case syntax.ListNode:
		tokens = refs.Items
	default:
		return []ryeosFinding{{"knowledge/references", refs.Pos, "references must be a string or a list of strings"}}
	}
	for _, t := range tokens {
		if t.Kind != syntax.StringNode || t.Str == "" || strings.ContainsFunc(t.Str, func(r rune) bool {
			return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune(" _-./:@", r))
		}) {
			return []ryeosFinding{{"knowledge/references", t.Pos, fmt.Sprintf("reference %q: a reference is a non-empty string of letters, digits and _ - . / : @", t.Str)}}
		}
	}
	return nil
}

// identityAdvice notes identity fields of an item that ryeOS ignores
// because it takes them from the path (spec 7.3): a category, name or id
// in a knowledge page's front matter, a directive's header or the YAML of
// a graph, client, surface or service that differs from the path; and a
// knowledge page without front matter.
func identityAdvice(d *item.RyeOSDoc) []ryeosFinding {
	var meta *syntax.Node
	switch d.Kind {
	case item.Knowledge:
		if d.Ext == ".md" && d.Front == nil && d.FrontProblem == nil {
			return []ryeosFinding{{"advice/knowledge-missing-frontmatter", syntax.Pos{}, "no front matter (--- or ```yaml right after the signature line): RyeOS's knowledge runtime shows no title, category or tags for " + d.ID.Ref(d.Kind)}}
		}
		meta = d.Front
	case item.Directive, item.Graph, item.Client, item.Surface, item.Service:
		meta = d.Value
	default:
		return nil
	}
	var out []ryeosFinding
	if c := meta.Get("category"); c != nil && c.Kind == syntax.StringNode && c.Str != d.ID.Dir() {
		out = append(out, ryeosFinding{"advice/frontmatter-category", c.Pos, fmt.Sprintf("category %q differs from the folder %q, which RyeOS uses: the field is ignored", c.Str, d.ID.Dir())})
	}
	for _, k := range []string{"name", "id"} {
		want := d.ID.Name()
		if k == "id" {
			want = string(d.ID)
		}
		if n := meta.Get(k); n != nil && n.Kind == syntax.StringNode && n.Str != want {
			out = append(out, ryeosFinding{"advice/frontmatter-identity", n.Pos, fmt.Sprintf("%s %q differs from %q, which RyeOS takes from the path: the field is data, not the item's identity", k, n.Str, want)})
		}
	}
	return out
}

// graphShaped reports a YAML tool that ryeOS's sign would warn looks like
// a graph: below a graphs/ folder, or with a config of nodes and a start.
func graphShaped(d *item.RyeOSDoc) bool {
	if d.Ext != ".yaml" && d.Ext != ".yml" {
		return false
	}
	if slices.Contains(strings.Split(d.ID.Dir(), "/"), "graphs") {
		return true
	}
	c := d.Value.Get("config")
	return c.Get("nodes") != nil && c.Get("start") != nil
}

// shadowedBy names the file that wins f's id in ryeOS's resolution (the
// first of the kind's file forms that exists), when it is not f.
func (e *Env) shadowedBy(f *file) string {
	if e.shared == nil {
		e.shared = &shared{}
	}
	e.shared.formsOnce.Do(func() {
		e.shared.forms = map[string][]*file{}
		for _, g := range e.all() {
			if g.IsItem() {
				k := g.Space.Label + "\x00" + string(g.Kind) + "\x00" + string(g.ID)
				e.shared.forms[k] = append(e.shared.forms[k], g)
			}
		}
	})
	order := item.RyeOSExtensions(f.Kind)
	rank := func(g *file) int {
		if i := slices.Index(order, path.Ext(g.Rel)); i >= 0 {
			return i
		}
		return len(order)
	}
	var first *file
	for _, g := range e.shared.forms[f.Space.Label+"\x00"+string(f.Kind)+"\x00"+string(f.ID)] {
		if first == nil || rank(g) < rank(first) {
			first = g
		}
	}
	if first == nil || first == f {
		return ""
	}
	return first.Name
}

// adviceText says in a few words what each advice of the ryeos analyzer
// is about, for the line that stands for many of them.
var adviceText = map[string]string{
	"advice/frontmatter-category":          "a category that differs from the folder RyeOS takes it from",
	"advice/frontmatter-identity":          "a name or id that differs from the path RyeOS takes it from",
	"advice/knowledge-missing-frontmatter": "knowledge pages without front matter",
	"advice/shadowed":                      "files that another file of the same id shadows",
	"advice/executor-null":                 "tools without an executor, which cannot be invoked directly",
	"advice/graph-shaped":                  "tools that look like graphs",
}

// groupRyeOS gives the ryeos analyzer's advice a group per code, so that
// many of one kind are one line in text (JSON and SARIF keep each); in a
// ryeOS 0.2+ tree (tree), the signature analyzer's failures are grouped
// by verdict as well: rye verify names each cause and its fix.
func groupRyeOS(rep *report.Report, tree bool) {
	for i := range rep.Findings {
		f := &rep.Findings[i]
		if f.Group != "" {
			continue
		}
		if code, ok := strings.CutPrefix(f.Rule, "ryeos/"); ok && strings.HasPrefix(code, "advice/") {
			what := adviceText[code]
			if what == "" {
				what = code
			}
			f.Group = f.Rule
			rep.AddGroup(report.Group{Key: f.Rule, Summary: "%s with advice: " + what + " (not required by RyeOS; -v lists them)"})
			continue
		}
		if verdict, ok := strings.CutPrefix(f.Rule, "signature/"); ok && tree && f.Severity == report.Error {
			f.Group = f.Rule
			rep.AddGroup(report.Group{Key: f.Rule, Summary: "%s that do not verify: " + verdict + " (-v lists them; rye verify says why, one line per cause, with the fix)"})
		}
	}
}
