package executor

import (
	"fmt"
	"path"
	"time"

	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/item/syntax"
	"github.com/ryekit/rye/sign"
	"github.com/ryekit/rye/verify"
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
	if err := servedCovered(f, md); err != nil {
		return nil, err
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
		in, err := directiveInputs(md, inputs)
		if err != nil {
			return nil, err
		}
		meta, _ := md.Fields.Plain().(map[string]any)
		if actions, ok := meta["actions"]; ok {
			meta["actions"] = interpolateAll(actions, in)
		}
		data["metadata"] = meta
		data["inputs"] = in
		data["content"] = interpolate(md.Content, in)
		if !dryRun {
			data["instructions"] = interpolate(md.Body, in)
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
	r := f.Result
	return &Result{Status: "success", Type: string(k), ItemID: string(id), DryRun: dryRun, Data: data, Verification: &r,
		Metadata: resultMeta{DurationMS: time.Since(started).Milliseconds()}}, nil
}

// uncoveredError is a directive or knowledge entry that verified, but
// whose signature (a legacy format) does not cover text that execute
// would serve: a directive's instructions, a knowledge entry's front
// matter. Anyone could have written that text after the signing, so it
// is not served.
type uncoveredError struct {
	Result verify.Result // verified, with the legacy format's warning
	Line   int           // the first uncovered line that would be served
	What   string        // what that line is part of
}

func (e *uncoveredError) Error() string {
	r := e.Result
	return fmt.Sprintf("%s %s (%s:%d): its %s signature does not cover %s, which would be served unsigned; nothing was served; %s", r.Kind, r.ID, r.Path, e.Line, r.Format, e.What, verify.ResignV2(r))
}

// servedCovered refuses a directive or knowledge entry whose signature
// leaves uncovered any text that ExecuteItem serves: for a directive, its
// XML (metadata and content) and the body after it (the instructions);
// for a knowledge entry, everything after the signature line (metadata
// and content). v1 signs only a directive's <directive> element and
// leaves a knowledge entry's --- front matter out (sign.Format.Uncovered).
func servedCovered(f *verifiedFile, md *item.Metadata) error {
	if f.Loc.Space.Embedded() {
		return nil // rye's own bytes, checked against its manifest
	}
	data := f.Item.Bytes
	found := sign.Find(data, path.Ext(f.Loc.Rel))
	cov := sign.CoverageOf(found, f.Loc.Kind, data)
	if len(cov.Uncovered) == 0 {
		return nil
	}
	type part struct {
		from, to int
		what     string
	}
	var parts []part
	switch f.Loc.Kind {
	case item.Directive:
		parts = []part{
			{md.ContentPos.Offset, md.ContentPos.Offset + len(md.Content), "part of its ```xml block (its metadata)"},
			{md.BodyPos.Offset, len(data), "the body after the XML block (its instructions)"},
		}
	case item.Knowledge:
		parts = []part{{found.End, len(data), "its front matter (its metadata)"}}
	}
	for _, p := range parts {
		if at := cov.FirstUncovered(data, p.from, p.to); at >= 0 {
			return &uncoveredError{Result: f.Result, Line: syntax.NewLineIndex(data).Pos(at).Line, What: p.what}
		}
	}
	return nil
}
