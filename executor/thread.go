package executor

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/item/syntax"
	"github.com/ryekit/rye/params"
	"github.com/ryekit/rye/space"
)

// threadRunner is the tool rye thread executes. rye ships no agent loop:
// a bundle that provides one installs this tool.
const threadRunner item.ID = "rye/agent/threads/thread_directive"

// threadFlags are rye thread's own options, with their types.
var threadFlags = []struct{ name, typ, desc string }{
	{"model", "string", "the model the thread uses"},
	{"max_spend", "number", "stop when the thread has spent this much"},
	{"max_turns", "integer", "stop after this many turns"},
	{"async", "boolean", "start the thread and return without waiting for it"},
}

// threadSchema is the command line of rye thread DIRECTIVE: the
// directive's declared inputs and the thread's options (--model,
// --max-spend, --max-turns, --async) in one schema, so that one parser
// reads them. A declared input wins over a thread option of the same
// name: the directive's author named it, the caller means it.
func threadSchema(md *item.Metadata) *syntax.Node {
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

// splitThreadArgs separates what params.Parse read with threadSchema into
// the directive's inputs and the thread runner's parameters:
// {directive_id, inputs, model, max_spend, max_turns, async}. Anything
// that is neither a declared input nor a thread option (a key smuggled in
// through --params, such as directive_id) is a *params.Error: the runner
// must receive the directive that rye verified, and nothing else.
func splitThreadArgs(md *item.Metadata, id item.ID, parsed map[string]any) (inputs, runner map[string]any, err error) {
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
			return nil, nil, params.Unknown(threadSchema(md), k)
		}
	}
	runner["directive_id"] = string(id)
	runner["inputs"] = inputs
	return inputs, runner, nil
}

// NoThreadRunnerError is rye thread where no space has the thread runner.
type NoThreadRunnerError struct {
	Directive item.ID
	Searched  []string
}

func (e *NoThreadRunnerError) Error() string {
	return fmt.Sprintf("no thread runner is installed: rye thread runs the tool %s, which is in no space (searched %s); install a bundle that provides it, or follow the directive yourself: rye execute directive %s",
		threadRunner, strings.Join(e.Searched, ", "), e.Directive)
}

// Thread runs directive id in an agent thread (rye thread): the directive
// must verify and take the inputs parse reads (against threadSchema of the
// verified directive) before anything starts; then the thread runner tool
// runs, through the same verified pipeline as any tool, with
// {directive_id, inputs, model, max_spend, max_turns, async}. The result
// and error are those of the directive's check when it fails (its Type is
// "directive"), else of the runner's run.
func (x *Executor) Thread(ctx context.Context, id item.ID, parse func(schema *syntax.Node) (map[string]any, error), dryRun bool, timeout time.Duration) (*Result, error) {
	if _, err := x.Spaces.Resolve(item.Tool, threadRunner, nil); err != nil {
		var nf *space.NotFoundError
		if errors.As(err, &nf) {
			return nil, &NoThreadRunnerError{Directive: id, Searched: nf.Searched}
		}
		return nil, err
	}
	var runner map[string]any
	inputs := func(md *item.Metadata) (map[string]any, error) {
		parsed, err := parse(threadSchema(md))
		if err != nil {
			return nil, err
		}
		in, r, err := splitThreadArgs(md, id, parsed)
		runner = r
		return in, err
	}
	if r, err := x.Execute(ctx, &Request{Kind: item.Directive, ID: id, Inputs: inputs, DryRun: true}); err != nil {
		return r, err
	}
	return x.Execute(ctx, &Request{Kind: item.Tool, ID: threadRunner, DryRun: dryRun, Timeout: timeout,
		ToolParams: func(*syntax.Node) (map[string]any, error) { return runner, nil }})
}
