package chain

import (
	"fmt"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/item/syntax"
)

// contextNames are the values the executor provides to templates (spec
// 3.3): a {name} in a config may always use them.
var contextNames = []string{"tool_path", "tool_dir", "tool_parent", "project_path", "user_space", "system_space", "params_json", "anchor_path", "runtime_lib", "node_modules", "run_dir"}

// Problem is a chain that was built but does not hold together.
type Problem struct {
	Element *Element     // the element the problem is in
	Node    *syntax.Node // the value to point at, when there is one
	Msg     string
}

func (p Problem) String() string { return string(p.Element.ID()) + ": " + p.Msg }

// Options tune validation.
type Options struct {
	// SkipIO leaves out the placeholder checks, for chains whose first
	// element is itself a runtime or primitive: its placeholders are meant
	// for the tools that will use it.
	SkipIO bool
}

// Validate checks a built chain (spec 3.3): each child depends on its own
// space or a lower one; the last element is a known primitive and those
// between are runtimes; child_constraints versions hold; every {name} in a
// config is provided; the primitive's required config is present; declared
// inputs and outputs fit; every anchor, verify_deps and library
// declaration reads (anchor.go).
func Validate(c *Chain, o Options) []Problem {
	var ps []Problem
	add := func(e *Element, n *syntax.Node, format string, args ...any) {
		ps = append(ps, Problem{Element: e, Node: n, Msg: fmt.Sprintf(format, args...)})
	}
	els := c.Elements
	for i := 0; i+1 < len(els); i++ {
		child, parent := els[i], els[i+1]
		if parent.Space().Rank() > child.Space().Rank() {
			add(child, child.Meta.Get("executor_id"), "%s (%s space) depends on %s in the %s space: an item may only depend on its own space or a lower one (project > user > system)",
				child.ID(), child.Space(), parent.ID(), parent.Space())
		}
		checkConstraints(child, parent, add)
		checkIO(child, parent, add)
	}
	root := c.Root()
	switch {
	case root.ToolType() != "primitive" && len(els) == 1:
		add(root, root.Meta.Get("executor_id"), "%s has no executor_id: it is not executable (a library or configuration item); set executor_id to the runtime that runs it", root.ID())
	case root.ToolType() != "primitive":
		add(root, root.Meta.Get("tool_type"), "the chain ends at %s, whose tool_type is %q: a chain ends at a primitive", root.ID(), root.ToolType())
	case !isPrimitive(root.ID()):
		add(root, root.Meta.Get("tool_type"), "unknown primitive %s: rye runs rye/core/primitives/subprocess and rye/core/primitives/http_client", root.ID())
	}
	for i := 1; i+1 < len(els); i++ {
		if tt := els[i].ToolType(); tt != "runtime" {
			add(els[i], els[i].Meta.Get("tool_type"), "%s sits between the tool and the primitive, so its tool_type must be \"runtime\", found %q", els[i].ID(), tt)
		}
	}
	merged := MergedConfig(c)
	if isPrimitive(root.ID()) && len(els) > 1 {
		for _, req := range root.Meta.Schema().Get("required").ListItems() {
			if merged.Get(req.String()) == nil {
				add(els[len(els)-2], els[len(els)-2].Meta.Get("config"), "primitive %s needs config %q, and no element of the chain sets it", root.ID(), req.String())
			}
		}
	}
	ps = append(ps, checkBlocks(c)...)
	for _, el := range c.Elements {
		ps = append(ps, checkLoadPaths(el)...)
	}
	if !o.SkipIO {
		ps = append(ps, checkPlaceholders(c, merged)...)
	}
	return ps
}

// checkConstraints applies the parent's child_constraints to the child:
// {<child id or glob>: {min_version, max_version}}.
func checkConstraints(child, parent *Element, add func(*Element, *syntax.Node, string, ...any)) {
	cons := parent.Meta.Get("child_constraints")
	if cons == nil || cons.Kind != syntax.MapNode {
		return
	}
	for _, f := range cons.Fields {
		if ok, _ := doublestar.Match(f.Key, string(child.ID())); !ok {
			continue
		}
		v, err := item.ParseSemver(child.Version())
		if err != nil {
			add(child, child.Meta.Get("version"), "%s constrains the version of %s, whose version %q is not a semantic version", parent.ID(), child.ID(), child.Version())
			continue
		}
		for _, bound := range []struct {
			key  string
			bad  int
			word string
		}{{"min_version", -1, "at least"}, {"max_version", 1, "at most"}} {
			n := f.Value.Get(bound.key)
			if n == nil {
				continue
			}
			b, err := item.ParseSemver(n.String())
			if err != nil {
				add(parent, n, "child_constraints %s.%s: %v", f.Key, bound.key, err)
				continue
			}
			if v.Compare(b) == bound.bad {
				add(child, child.Meta.Get("version"), "%s requires %s version %s %s, found %s", parent.ID(), child.ID(), bound.word, n.String(), child.Version())
			}
		}
	}
}

// checkIO: where the child declares outputs and the parent inputs (lists
// of names), the parent's inputs must be among the child's outputs.
func checkIO(child, parent *Element, add func(*Element, *syntax.Node, string, ...any)) {
	outs, ins := child.Meta.Get("outputs"), parent.Meta.Get("inputs")
	if outs == nil || ins == nil || outs.Kind != syntax.ListNode || ins.Kind != syntax.ListNode {
		return
	}
	have := map[string]bool{}
	for _, o := range outs.Items {
		have[o.String()] = true
	}
	for _, in := range ins.Items {
		if !have[in.String()] {
			add(child, outs, "%s needs input %q, which %s does not list in its outputs", parent.ID(), in.String(), child.ID())
		}
	}
}

// MergedConfig merges the config of every element: the primitive's first,
// then each runtime's, then the tool's; a nearer element's key wins.
// Merging is by top-level key.
func MergedConfig(c *Chain) *syntax.Node {
	merged := syntax.NewMap(syntax.Pos{})
	for i := len(c.Elements) - 1; i >= 0; i-- {
		cfg := c.Elements[i].Meta.Get("config")
		if cfg == nil || cfg.Kind != syntax.MapNode {
			continue
		}
		for _, f := range cfg.Fields {
			merged.Set(f.Key, f.KeyPos, f.Value)
		}
	}
	return merged
}

// checkPlaceholders: every {name} in any element's config must be provided
// by the execution context, a key of the merged config, or a parameter the
// tool declares in its schema. A tool that declares no schema takes its
// parameters as they are given (the reference passes them on), so any
// name may come from them: only {runtime_lib} is checked then.
func checkPlaceholders(c *Chain, merged *syntax.Node) []Problem {
	provided := map[string]bool{}
	for _, n := range contextNames {
		provided[n] = true
	}
	// {runtime_lib} is the folder of an anchor's lib or of the library
	// items an element names in runtime_lib; without one, there is nothing
	// for it to point at.
	lib, _ := LibOf(c)
	provided["runtime_lib"] = lib != nil
	for _, f := range merged.Fields {
		provided[f.Key] = true
	}
	schemaless := c.Tool().Meta.Schema().IsNull()
	params := map[string]bool{}
	for _, f := range c.Tool().Meta.Schema().Get("properties").MapFields() {
		params[f.Key] = true
	}
	var ps []Problem
	for _, el := range c.Elements {
		walkStrings(el.Meta.Get("config"), func(s *syntax.Node) {
			for _, p := range Placeholders(s.Str) {
				if provided[p.Name] || params[p.Name] {
					continue
				}
				if p.Name == "runtime_lib" {
					ps = append(ps, Problem{Element: el, Node: s, Msg: fmt.Sprintf("%s uses {runtime_lib} but no element of the chain declares anchor.lib (a library folder) or runtime_lib (library item ids)", el.ID())})
					continue
				}
				if schemaless {
					continue
				}
				role := "runtime"
				switch {
				case el == c.Tool():
					role = "tool"
				case el == c.Root():
					role = "primitive"
				}
				ps = append(ps, Problem{Element: el, Node: s, Msg: fmt.Sprintf("%s %s needs {%s} but tool %s declares no parameter %q (declared: %s)",
					role, el.ID(), p.Name, c.Tool().ID(), p.Name, declared(params))})
			}
		})
	}
	return ps
}

func declared(params map[string]bool) string {
	if len(params) == 0 {
		return "none"
	}
	names := make([]string, 0, len(params))
	for n := range params {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}
