package lint

import (
	"fmt"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/ryekit/rye/chain"
	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/item/syntax"
	"github.com/ryekit/rye/space"
)

// Chain builds and validates every tool's executor chain, offline.
var Chain = &analysis.Analyzer{
	Name: "chain",
	Doc: `build and validate every tool's executor chain

A tool names its runtime in executor_id; the runtime names a primitive. The
chain is resolved as the executor would (the tool's own space first, never
a higher one; at most 10 elements; no cycles) and validated: the last
element is a known primitive, those between are runtimes, version
constraints hold, every {placeholder} in a config is provided by the
execution context, the merged config or a parameter the tool declares, and
the primitive's required config is present; an anchor: block, verify_deps
and the library behind {runtime_lib} read. A tool without executor_id is a
library or configuration item (absent means null, as in the reference); it
is a warning only when it declares what only a run uses (a parameter
schema, config or env_config) and its tool_type is not one that needs no
executor (library, config, extractor, ...).`,
	URL:      docURL("chain"),
	Requires: []*analysis.Analyzer{input, parse},
	Run:      runChain,
}

// notExecutable are tool types that need no executor.
var notExecutable = map[string]bool{"primitive": true, "library": true, "config": true, "extractor": true, "parser": true, "mcp_server": true, "data": true, "schema": true}

func runChain(pass *analysis.Pass) (any, error) {
	e, r := env(pass), reporter{pass}
	parsed := pass.ResultOf[parse].(parsed)
	load := e.chainLoader(parsed)
	cache := e.sharedState().chainCache()
	each(e.Files, func(_ int, f *file) {
		md := parsed[f]
		if md == nil || f.Kind != item.Tool {
			return
		}
		exec := md.Get("executor_id")
		tt := md.Str("tool_type")
		if md.Str("executor_id") == "" {
			if what := runOnly(md); what != "" && !notExecutable[tt] && (exec == nil || exec.IsNull()) {
				r.at(sevWarning, "no-executor", f.Pos(nodePos(exec, md)), 0, fmt.Sprintf("no executor_id: this %q tool declares %s, which only a run uses, but it cannot be executed; name its runtime in executor_id, or give it a tool_type that needs none (library, config, ...)", tt, what))
			}
			return
		}
		if e.Spaces == nil {
			return
		}
		c, err := chain.BuildFrom(e.Spaces, &space.Located{Space: f.Space, Kind: f.Kind, ID: f.ID, Rel: f.Rel}, load, cache)
		if err != nil {
			r.at(sevError, "build", f.Pos(exec.Pos), endPos(f, exec), err.Error())
			return
		}
		opts := chain.Options{SkipIO: tt == "runtime" || tt == "primitive"}
		for _, p := range chain.Validate(c, opts) {
			if p.Element == c.Tool() && p.Node != nil && p.Node.Pos.IsValid() {
				r.at(sevError, "validate", f.Pos(p.Node.Pos), endPos(f, p.Node), p.Msg)
				continue
			}
			r.at(sevError, "validate", f.Pos(exec.Pos), endPos(f, exec), chainText(c)+": "+p.Msg)
		}
	})
	return nil, nil
}

// chainLoader reads a chain's elements from the run's files (of any chunk:
// the bytes lint judges, read again when their chunk is done) before the
// disk.
func (e *Env) chainLoader(parsed parsed) chain.Loader {
	mine := e.itemFiles()
	return func(loc *space.Located) (*item.Item, error) {
		if f := mine[loc.Space.Label+"\x00"+loc.Rel]; f != nil {
			data, err := f.bytes()
			if err != nil {
				return nil, err
			}
			it := &item.Item{Kind: f.Kind, ID: f.ID, Space: string(loc.Space.Name), Path: f.Name, Bytes: data}
			if md := parsed[f]; md != nil && f.Src != nil {
				it.Parsed(md) // the parse analyzer read these very bytes
			}
			return it, nil
		}
		return loc.Load()
	}
}

// runOnly names what a tool declares that only matters when it runs (its
// parameters, its config, its environment), or "". A tool without
// executor_id that declares none of these is a library module or a
// configuration item, like the reference's many modules that a tool of
// their package imports.
func runOnly(md *item.Metadata) string {
	for _, f := range []string{"config_schema", "input_schema", "config", "env_config"} {
		if v := md.Get(f); !v.IsNull() {
			return item.Spelling(md.Form, f)
		}
	}
	return ""
}

// nodePos is a field's position, or the metadata block's.
func nodePos(n *syntax.Node, md *item.Metadata) syntax.Pos {
	if n != nil && n.Pos.IsValid() {
		return n.Pos
	}
	return md.Fields.Pos
}

func chainText(c *chain.Chain) string {
	var ids []string
	for _, id := range c.IDs() {
		ids = append(ids, string(id))
	}
	return strings.Join(ids, " → ")
}
