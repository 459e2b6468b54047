package mcp

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ryekit/rye/executor"
	"github.com/ryekit/rye/internal/jsonvalue"
	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/project"
	"github.com/ryekit/rye/search"
	"github.com/ryekit/rye/sign"
	"github.com/ryekit/rye/space"
	"github.com/ryekit/rye/verify"
)

type executeArgs struct {
	ItemType    string          `json:"item_type"`
	ItemID      string          `json:"item_id"`
	ProjectPath string          `json:"project_path"`
	Parameters  json.RawMessage `json:"parameters"`
	DryRun      bool            `json:"dry_run"`
}

// execute runs executor.Execute, the pipeline of rye execute: a tool runs
// only when its whole chain verifies; ctx, which the client's cancellation
// ends, kills a running tool's process group.
func (s *server) execute(ctx context.Context, _ *sdk.CallToolRequest, a executeArgs) (*sdk.CallToolResult, any, error) {
	started := time.Now()
	k, id, err := item.ParseKindID(a.ItemType, a.ItemID)
	if err != nil {
		return respond(failure(a.ItemType, a.ItemID, err, started))
	}
	var params map[string]any
	if len(a.Parameters) > 0 {
		v, err := jsonvalue.Decode(a.Parameters)
		if err != nil {
			return respond(failure(a.ItemType, a.ItemID, fmt.Errorf("parameters: %v", err), started))
		}
		params, _ = v.(map[string]any) // the schema made it an object
	}
	p, err := s.project(a.ProjectPath)
	if err != nil {
		return respond(failure(a.ItemType, a.ItemID, err, started))
	}
	defer p.close()
	x, noCache, err := executor.New(p.Spaces, p.Trust, p.Policy, p.Settings, p.Spaces.Project.Root)
	if err != nil {
		return respond(failure(a.ItemType, a.ItemID, err, started))
	}
	if noCache != nil {
		s.logf("warning: no user cache folder (%v): run directories go in %s", noCache, os.TempDir())
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(s.life, cancel)()
	r, err := x.Execute(ctx, &executor.Request{Kind: k, ID: id, Params: params, DryRun: a.DryRun, Timeout: s.o.Timeout})
	resp := &response{Status: r.Status, Type: r.Type, ItemID: r.ItemID, Data: r.Data, Error: r.Error, Chain: r.Chain, DeclaredInputs: r.DeclaredInputs, Verification: r.Verification, Metadata: r.Metadata}
	if r.Confinement != nil {
		resp.Confinement = r.Confinement
	}
	if r.DryRun && r.Succeeded() {
		resp.Status = "validation_passed"
	}
	var ve *executor.VerifyError
	if errors.As(err, &ve) {
		resp.Verification = &ve.Result
	}
	return respond(resp)
}

type searchArgs struct {
	Scope       string `json:"scope"`
	Query       string `json:"query"`
	ProjectPath string `json:"project_path"`
	Space       string `json:"space"`
	Limit       int    `json:"limit"`
}

// search runs search.Run, the pipeline of rye search, with each result's
// verdict.
func (s *server) search(ctx context.Context, _ *sdk.CallToolRequest, a searchArgs) (*sdk.CallToolResult, any, error) {
	started := time.Now()
	fail := func(err error) (*sdk.CallToolResult, any, error) {
		return respond(&response{Status: "error", Type: "search", Error: err.Error(), Metadata: since(started)})
	}
	p, err := s.project(a.ProjectPath)
	if err != nil {
		return fail(err)
	}
	defer p.close()
	req, err := search.Over(p.Spaces, true)
	if err != nil {
		return fail(err)
	}
	req.Scope, req.Query, req.Tier, req.Limit, req.Trust, req.Policy = a.Scope, a.Query, a.Space, a.Limit, p.Trust, p.Policy
	res, err := search.Run(req)
	if err != nil {
		return fail(err)
	}
	d := &searchData{Scope: a.Scope, Query: a.Query, Space: a.Space, Total: res.Total, Results: res.Results}
	if d.Results == nil {
		d.Results = []search.Result{}
	}
	return respond(&response{Status: "success", Type: "search", Data: d, Metadata: since(started)})
}

// searchData is the data of a search response.
type searchData struct {
	Scope   string          `json:"scope"`
	Query   string          `json:"query"`
	Space   string          `json:"space"`
	Total   int             `json:"total"` // results before the limit
	Results []search.Result `json:"results"`
}

type loadArgs struct {
	ItemType    string `json:"item_type"`
	ItemID      string `json:"item_id"`
	ProjectPath string `json:"project_path"`
	Source      string `json:"source"`
	Destination string `json:"destination"`
}

// load runs verify.Load, the pipeline of rye load. The content of an item
// that does not verify is never returned; a copy is made only of an item
// that verifies, and never over an existing file.
func (s *server) load(ctx context.Context, _ *sdk.CallToolRequest, a loadArgs) (*sdk.CallToolResult, any, error) {
	started := time.Now()
	fail := func(err error) (*sdk.CallToolResult, any, error) {
		return respond(failure(a.ItemType, a.ItemID, err, started))
	}
	k, id, err := item.ParseKindID(a.ItemType, a.ItemID)
	if err != nil {
		return fail(err)
	}
	p, err := s.project(a.ProjectPath)
	if err != nil {
		return fail(err)
	}
	defer p.close()
	req := verify.LoadRequest{Spaces: p.Spaces, Trust: p.Trust, Policy: p.Policy, Kind: k, ID: id}
	if a.Source != "" {
		if req.From, err = p.Spaces.Named(a.Source); err != nil {
			return fail(err)
		}
		if len(req.From) == 0 {
			return fail(fmt.Errorf("there is no %s space: set USER_SPACE or HOME", a.Source))
		}
	}
	if a.Destination != "" {
		if req.To, err = s.writable(p, a.Destination, "load"); err != nil {
			return fail(err)
		}
	}
	l, err := verify.Load(req)
	var ce *verify.CopyError
	switch {
	case errors.As(err, &ce) && ce.Exists:
		return fail(fmt.Errorf("%s already exists: load never replaces a file; remove it first, or run rye load --destination %s --force %s %s", ce.Path, a.Destination, k, id))
	case err != nil:
		resp := failure(a.ItemType, a.ItemID, err, started)
		if l != nil && l.Result.Verdict.Failed() {
			resp.Verification = &l.Result
		}
		return respond(resp)
	}
	it, r := l.Item, l.Result
	if req.To != nil {
		return respond(&response{Status: "success", Type: string(k), ItemID: string(id), Verification: &r, Metadata: since(started),
			Data: copied(p.Spaces, l, req.To, k, id)})
	}
	if r.Verdict.Failed() {
		err := fmt.Errorf("%s %s (%s) is not verified: %s: %s; its content is withheld", it.Kind, it.ID, it.Path, r.Verdict, r.Reason)
		resp := failure(a.ItemType, a.ItemID, err, started)
		resp.Verification = &r
		return respond(resp)
	}
	// The content is the whole file: every byte of it that is not white
	// space must be covered by the signature (a legacy format leaves parts
	// out, which anyone could have written after the signing). The
	// embedded bundle's files are rye's own bytes.
	found := sign.Find(it.Bytes, path.Ext(it.Path))
	if at := sign.CoverageOf(found, it.Kind, it.Bytes).FirstUncovered(it.Bytes, 0, len(it.Bytes)); at >= 0 && !l.Loc.Space.Embedded() {
		line := bytes.Count(it.Bytes[:at], []byte("\n")) + 1
		err := fmt.Errorf("%s %s (%s:%d) verified, but its %s signature does not cover line %d (%s), which anyone could have written after the signing; its content is withheld: load serves only bytes a signature covers; %s",
			it.Kind, it.ID, it.Path, line, r.Format, line, found.Line.Format.Uncovered(it.Kind, path.Ext(it.Path)), verify.ResignV2(r))
		resp := failure(a.ItemType, a.ItemID, err, started)
		resp.Verification = &r
		return respond(resp)
	}
	d := &loadData{Path: it.Path, Space: string(l.Loc.Space.Name), Content: string(it.Bytes)}
	if md, err := it.Metadata(); err == nil {
		d.Metadata = md.Fields.Plain()
	} else {
		d.MetadataError = err.Error()
	}
	return respond(&response{Status: "success", Type: string(k), ItemID: string(id), Data: d, Verification: &r, Metadata: since(started)})
}

// loadData is the data of a load response: the file's content as it
// verified, and its parsed metadata.
type loadData struct {
	Path          string `json:"path"`
	Space         string `json:"space"`
	Content       string `json:"content"`
	Metadata      any    `json:"metadata,omitempty"`
	MetadataError string `json:"metadata_error,omitempty"`
}

// copyData is the data of a load response with a destination.
type copyData struct {
	From string `json:"from"`
	To   string `json:"to"`
	// Shadows is whether the copy takes precedence over the original in
	// the project the call named.
	Shadows bool `json:"shadows"`
	// OtherProjects says what a copy into the user space does for every
	// other project: each that has no copy of its own now finds it.
	OtherProjects string `json:"other_projects,omitempty"`
	Note          string `json:"note"`
}

// copied describes a copy truthfully: what it shadows in the named
// project, and, for the user space, in every other project of the user.
func copied(ss *space.Spaces, l *verify.Loaded, to *space.Space, k item.Kind, id item.ID) *copyData {
	d := &copyData{From: l.Item.Path, To: l.CopiedTo, Shadows: l.Shadows}
	if l.Shadows {
		d.Note = fmt.Sprintf("in this project it now shadows the %s copy, and must verify in the %s space: signed by a key the project trusts (the sign tool, or rye sign %s %s)", l.Loc.Space.Name, to.Name, k, id)
	} else {
		d.Note = fmt.Sprintf("in this project the %s copy still takes precedence over it", l.Loc.Space.Name)
	}
	if to.Name == space.User {
		d.OtherProjects = "every other project without a copy of its own now uses this one, wherever a chain or a call resolves " + string(k) + " " + string(id)
		if _, err := ss.Resolve(k, id, ss.System); err == nil {
			d.OtherProjects += ", in place of the system copy"
		}
		d.Note += "; " + d.OtherProjects
	}
	return d
}

// writable is the project or the user space, for a destination of verb
// (load or sign). The user space only when the user allowed it
// (Options.AllowUserSpace): what is written there is used by every
// project of the user, not just the one the call names.
func (s *server) writable(p *opened, name, verb string) (*space.Space, error) {
	ss := p.Spaces
	switch name {
	case "project":
		if p.userSpace && !s.o.AllowUserSpace {
			return nil, fmt.Errorf("%s writes only to the project, and this project is your user space (%s), or reaches it through a link: what is written there is used by every project of yours, so this server, started without --allow-user-space, does not write it. "+
				"Letting an agent write there is the user's choice: they can restart the server as rye mcp --allow-user-space, or do it themselves", verb, userRoot(ss))
		}
		return ss.Project, nil
	case "user":
		if !s.o.AllowUserSpace {
			return nil, fmt.Errorf("%s writes only to the project: this server was started without --allow-user-space. "+
				"An item written to the user space (%s) is used by every project of the user, in place of the system's, so letting an agent write there is the user's choice: "+
				"they can restart the server as rye mcp --allow-user-space, or do it themselves (rye load --destination user, rye sign with the user space's items)", verb, userRoot(ss))
		}
		if ss.User == nil {
			return nil, errors.New("there is no user space: set USER_SPACE or HOME")
		}
		return ss.User, nil
	}
	return nil, fmt.Errorf("%q is not a space items can be written to: use project or user", name)
}

// userRoot names the user space's folder, for messages.
func userRoot(ss *space.Spaces) string {
	if ss.User == nil {
		return "USER_SPACE or HOME"
	}
	return ss.User.AI()
}

type signArgs struct {
	ItemType    string `json:"item_type"`
	ItemID      string `json:"item_id"`
	ProjectPath string `json:"project_path"`
	Source      string `json:"source"`
	// Parameters is accepted and ignored: the February reference's sign
	// tool declares it and never reads it (spec 7.6.3), and clients of
	// that tool send it.
	Parameters json.RawMessage `json:"parameters"`
}

// errSigningOff is the answer of the sign tool when the user did not
// allow signing.
var errSigningOff = errors.New("signing is off: this server was started without --allow-sign, so it holds no signing key. " +
	"Letting an agent sign with the user's key is the user's choice: they can restart the server as rye mcp --allow-sign " +
	"(the key must load without a prompt: an unencrypted key, or its passphrase in RYE_KEY_PASSWORD), or sign themselves: rye sign")

// sign runs sign.Run, the pipeline of rye sign, with the key the server
// was given at start.
func (s *server) sign(ctx context.Context, _ *sdk.CallToolRequest, a signArgs) (*sdk.CallToolResult, any, error) {
	started := time.Now()
	fail := func(err error) (*sdk.CallToolResult, any, error) {
		return respond(failure(a.ItemType, a.ItemID, err, started))
	}
	if s.o.Key == nil {
		return fail(errSigningOff)
	}
	k, err := item.ParseKind(a.ItemType)
	if err != nil {
		return fail(err)
	}
	p, err := s.project(a.ProjectPath)
	if err != nil {
		return fail(err)
	}
	defer p.close()
	source := a.Source
	if source == "" {
		source = "project"
	}
	if _, err := s.writable(p, source, "sign"); err != nil {
		return fail(err)
	}
	req, err := p.SignRequest(project.Signing{Space: source})
	if err != nil {
		return fail(err)
	}
	req.Kinds, req.Patterns = []item.Kind{k}, []string{a.ItemID}
	req.Key = func() (*sign.Key, error) { return s.o.Key, nil }
	req.PublicKey = func() (ed25519.PublicKey, error) { return s.o.Key.Public, nil }
	// Another signer's valid signature is kept and reported: replacing it
	// is the user's call (rye sign --replace-other-signers), never an
	// agent's.
	out, err := sign.Run(req)
	if err != nil {
		return fail(err)
	}
	var failed []string
	for _, r := range out.Results {
		if r.Err != nil {
			failed = append(failed, fmt.Sprintf("%s (%s)", r.ID, r.Err))
		}
	}
	resp := &response{Status: "success", Type: string(k), ItemID: a.ItemID, Metadata: since(started), Data: sign.Summarize(s.o.Key.Fingerprint, req.Format, out.Results, false)}
	if len(failed) > 0 {
		resp.Status = "error"
		resp.Error = fmt.Sprintf("%d of %d not signed: %s", len(failed), len(out.Results), strings.Join(failed, "; "))
	}
	return respond(resp)
}
