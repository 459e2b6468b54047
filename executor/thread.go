package executor

import (
	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/item/syntax"
	"github.com/ryekit/rye/params"
)

// ThreadRunner is the tool rye thread executes. rye ships no agent loop:
// a bundle that provides one installs this tool.
const ThreadRunner item.ID = "rye/agent/threads/thread_directive"

// threadFlags are rye thread's own options, with their types.
var threadFlags = []struct{ name, typ, desc string }{
	{"model", "string", "the model the thread uses"},
	{"max_spend", "number", "stop when the thread has spent this much"},
	{"max_turns", "integer", "stop after this many turns"},
	{"async", "boolean", "start the thread and return without waiting for it"},
}

// ThreadSchema is the command line of rye thread DIRECTIVE: the
// directive's declared inputs and the thread's options (--model,
// --max-spend, --max-turns, --async) in one schema, so that one parser
// reads them. A declared input wins over a thread option of the same
// name: the directive's author named it, the caller means it.
func ThreadSchema(md *item.Metadata) *syntax.Node {
	schema := InputSchema(md)
	props := schema.Get("properties")
	for _, f := range threadFlags {
		if props.Get(f.name) != nil {
			continue
		}
		p := syntax.NewMap(syntax.Pos{})
		p.Set("type", syntax.Pos{}, syntax.NewString(f.typ, syntax.Pos{}))
		p.Set("description", syntax.Pos{}, syntax.NewString(f.desc, syntax.Pos{}))
		props.Set(f.name, syntax.Pos{}, p)
	}
	return schema
}

// SplitThreadArgs separates what params.Parse read with ThreadSchema into
// the directive's inputs and the thread runner's parameters:
// {directive_id, inputs, model, max_spend, max_turns, async}. Anything
// that is neither a declared input nor a thread option (a key smuggled in
// through --params, such as directive_id) is a *params.Error: the runner
// must receive the directive that rye verified, and nothing else.
func SplitThreadArgs(md *item.Metadata, id item.ID, parsed map[string]any) (inputs, runner map[string]any, err error) {
	declared := map[string]bool{}
	for _, in := range md.Get("inputs").ListItems() {
		declared[in.Get("name").String()] = true
	}
	options := map[string]bool{}
	for _, f := range threadFlags {
		options[f.name] = true
	}
	inputs, runner = map[string]any{}, map[string]any{}
	for k, v := range parsed {
		switch {
		case declared[k]:
			inputs[k] = v
		case options[k]:
			runner[k] = v
		default:
			return nil, nil, params.Unknown(ThreadSchema(md), k)
		}
	}
	runner["directive_id"] = string(id)
	runner["inputs"] = inputs
	return inputs, runner, nil
}
