package executor

import (
	"fmt"
	"time"

	"github.com/ryekit/rye/item"
)

// ExecuteItem runs a directive or a knowledge entry (spec 3.8): it is
// resolved, read once, verified and parsed; a directive's inputs are
// validated (defaults first, missing required and unknown inputs are
// *InputError) and {input:…} is interpolated into its body, its XML
// content and its actions. The result's data is the parsed item; with
// dryRun the instructions (the interpolated body) are left out.
//
// inputsOf builds the inputs from the verified metadata (the command line
// types them by the directive's declarations); nil means none.
func (x *Executor) ExecuteItem(k item.Kind, id item.ID, inputsOf func(*item.Metadata) (map[string]any, error), dryRun bool) (*Result, error) {
	started := time.Now()
	loc, err := x.Spaces.Resolve(k, id, nil)
	if err != nil {
		return nil, err
	}
	v := &verifier{trust: x.Trust, policy: x.Policy}
	f, err := v.load(loc, string(k))
	if err != nil {
		return nil, err
	}
	md, err := f.Item.Metadata()
	if err != nil {
		return nil, fmt.Errorf("%s: %v", loc.Path(), err)
	}
	var inputs map[string]any
	if inputsOf != nil {
		if inputs, err = inputsOf(md); err != nil {
			return nil, err
		}
	}
	data := map[string]any{"path": loc.Path(), "space": string(loc.Space.Name)}
	switch k {
	case item.Directive:
		in, err := DirectiveInputs(md, inputs)
		if err != nil {
			return nil, err
		}
		meta, _ := md.Fields.Plain().(map[string]any)
		if actions, ok := meta["actions"]; ok {
			meta["actions"] = InterpolateAll(actions, in)
		}
		data["metadata"] = meta
		data["inputs"] = in
		data["content"] = Interpolate(md.Content, in)
		if !dryRun {
			data["instructions"] = Interpolate(md.Body, in)
		}
	case item.Knowledge:
		if len(inputs) > 0 {
			return nil, &InputError{Msg: "a knowledge entry takes no inputs"}
		}
		data["metadata"] = md.Fields.Plain()
		if !dryRun {
			data["content"] = md.Body
		}
	default:
		return nil, fmt.Errorf("rye execute %s: use Prepare and Run for tools", k)
	}
	return &Result{Status: "success", Type: string(k), ItemID: string(id), DryRun: dryRun, Data: data,
		Metadata: ResultMeta{DurationMS: time.Since(started).Milliseconds()}}, nil
}
