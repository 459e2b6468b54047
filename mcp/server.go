package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ryekit/rye/config"
	"github.com/ryekit/rye/executor"
	"github.com/ryekit/rye/project"
	"github.com/ryekit/rye/sign"
	"github.com/ryekit/rye/space"
	"github.com/ryekit/rye/verify"
)

// Options configure the server.
type Options struct {
	// Getenv reads the environment each project is opened with (the user
	// space: USER_SPACE, HOME; RYE_SYSTEM_PATH); nil is os.Getenv.
	Getenv func(string) string
	// Open opens the project of one call; nil is project.Open, the opener
	// of every rye verb, so that the server trusts exactly what rye
	// execute and rye load trust. Tests wrap it to act between the check
	// of a folder and its opening.
	Open func(dir string, o project.Options) (*project.Project, error)
	// Pin, when set, is the root of the one project the server serves:
	// every call naming another project_path is refused, and the project
	// is loaded from the pin itself, resolved when the server starts,
	// never from the path a call gives.
	Pin string
	// Roots, when set and the server is not pinned, are the folders whose
	// projects it serves: a project_path elsewhere is refused. With or
	// without them, an unpinned server serves only folders the user owns.
	Roots []string
	// Key is the key the sign tool signs with. nil, the default, refuses
	// signing: an agent that holds the user's key is a choice the user
	// makes when starting the server (rye mcp --allow-sign).
	Key *sign.Key
	// AllowUserSpace lets load copy items into the user space and sign
	// sign the user space's items. Off, the default, the server writes to
	// the named project only: an item in the user space is used by every
	// project of the user (rye mcp --allow-user-space).
	AllowUserSpace bool
	// Timeout, when set, replaces the configured timeout of every tool
	// run, as rye execute --timeout does.
	Timeout time.Duration
	// Version is the server's version, as clients are told.
	Version string
	// Log receives what the user should know and the agent need not:
	// settings and trusted-key files that were ignored, no user cache
	// folder. nil discards it. It must not be the protocol's stream.
	Log io.Writer
}

// response is what every tool returns, as JSON text and as structured
// content: the reference's result object. Status is "success", "error",
// or for a dry run that passed "validation_passed".
type response struct {
	Status string `json:"status"`
	Type   string `json:"type,omitempty"`
	ItemID string `json:"item_id,omitempty"`
	Data   any    `json:"data,omitempty"`
	Error  string `json:"error,omitempty"`
	// Chain is a tool's chain, each element with its verdict; after a
	// refusal, the part read so far, ending with the element refused.
	Chain []executor.Link `json:"chain,omitempty"`
	// DeclaredInputs are what the item takes, when it refused what it was
	// given.
	DeclaredInputs []executor.DeclaredInput `json:"declared_inputs,omitempty"`
	// Verification is the verdict of an item that did not verify, with
	// the reason and its fix.
	Verification *verify.Result `json:"verification,omitempty"`
	// Confinement is a tool's confinement, as rye execute reports it
	// ("none", or the verdict and what was granted).
	Confinement any `json:"confinement,omitempty"`
	// Truncated says what was cut from Data to fit the message in
	// MaxResponse ("" when nothing was).
	Truncated string `json:"truncated,omitempty"`
	Metadata  any    `json:"metadata"`
}

// meta is the metadata of the tools other than execute.
type meta struct {
	DurationMS int64 `json:"duration_ms"`
}

func since(t time.Time) meta { return meta{DurationMS: time.Since(t).Milliseconds()} }

// instructionsFor are the instructions of a server pinned to pin ("" for
// none).
func instructionsFor(pin string) string {
	if pin == "" {
		return instructions
	}
	return strings.Replace(instructions, "Every call names the project by its absolute path (project_path).", "This server serves one project, "+pin+": project_path may be left out.", 1)
}

const instructions = `rye serves the items of RYE projects (the .ai/ folder): search finds them, load reads them, execute runs a tool or returns a directive to follow or a knowledge entry, sign signs them. Every call names the project by its absolute path (project_path). Nothing that does not verify against the project's trust store is run or loaded: such a call fails with the verdict and the fix.`

// Folders checks the folders a server is to serve (Options.Roots): each
// must be a folder; they come back absolute.
func Folders(dirs []string) ([]string, error) {
	var out []string
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", d, err)
		}
		if info, err := os.Stat(abs); err != nil || !info.IsDir() {
			return nil, fmt.Errorf("%s: not a folder", d)
		}
		out = append(out, abs)
	}
	return out, nil
}

// NewServer returns the MCP server with its four tools: search, load,
// execute and sign. It offers tools only.
func NewServer(o Options) *sdk.Server { return newServer(context.Background(), o) }

// newServer is NewServer for a server whose running tools end with life:
// the SDK does not end the calls in flight when its Run returns.
func newServer(life context.Context, o Options) *sdk.Server {
	s := &server{o: o, life: life}
	if o.Pin != "" {
		if s.pin.root, s.pin.err = filepath.EvalSymlinks(o.Pin); s.pin.err == nil {
			s.pin.info, s.pin.err = os.Stat(s.pin.root)
		}
	}
	for _, r := range o.Roots {
		if real, err := filepath.EvalSymlinks(r); err == nil {
			s.roots = append(s.roots, real)
		} else {
			s.roots = append(s.roots, filepath.Clean(r)) // nothing is inside a folder that does not exist
		}
	}
	srv := sdk.NewServer(&sdk.Implementation{Name: "rye", Version: o.Version}, &sdk.ServerOptions{
		Instructions: instructionsFor(o.Pin),
		// Tools only: no logging, the default capability, which the
		// protocol deprecates.
		Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{}},
	})
	sdk.AddTool(srv, &sdk.Tool{Name: "search", Description: searchDescription, InputSchema: forPin(searchSchema, o.Pin), Annotations: searchAnnotations}, s.search)
	sdk.AddTool(srv, &sdk.Tool{Name: "load", Description: loadDescription, InputSchema: forPin(loadSchema, o.Pin), Annotations: loadAnnotations}, s.load)
	sdk.AddTool(srv, &sdk.Tool{Name: "execute", Description: executeDescription, InputSchema: forPin(executeSchema, o.Pin), Annotations: executeAnnotations}, s.execute)
	sdk.AddTool(srv, &sdk.Tool{Name: "sign", Description: signDescription, InputSchema: forPin(signSchema, o.Pin), Annotations: signAnnotations}, s.sign)
	return srv
}

// Serve runs the server on r and w (rye mcp: stdin and stdout, see
// Transport) until the client closes the stream or ctx ends; either way
// the tools still running are killed.
func Serve(ctx context.Context, o Options, r io.Reader, w io.Writer) error {
	err := newServer(ctx, o).Run(ctx, transport(r, w))
	if errors.Is(err, io.EOF) {
		return nil // the client closed the stream: the normal end
	}
	return err
}

type server struct {
	o Options
	// life ends the tools still running when the server stops.
	life context.Context
	// pin is Options.Pin resolved when the server started.
	pin struct {
		root string      // the real folder, every link resolved
		info os.FileInfo // its identity
		err  error       // why it could not be resolved
	}
	// roots are Options.Roots resolved when the server started.
	roots []string
}

// logf writes to the log, when there is one.
func (s *server) logf(format string, args ...any) {
	if s.o.Log != nil {
		fmt.Fprintf(s.o.Log, "rye mcp: "+format+"\n", args...)
	}
}

// opened is the project of one call, held open for the call.
type opened struct {
	*project.Project
	// userSpace is a project that is, or reaches through a link, the user
	// space: the server writes to it only with Options.AllowUserSpace.
	userSpace bool
	held      *os.File
}

// close lets the project's folder go at the end of the call.
func (o *opened) close() { o.held.Close() }

// project checks a call's project_path and opens the project: an absolute
// path to an existing folder with a .ai/ folder; when the server is
// pinned, the pinned project, and otherwise a folder of the caller's own,
// inside one of Options.Roots when there are any. The caller closes it
// when the call ends.
//
// The folder checked is the folder read, for the whole call: it is held
// open from before its checks, opened as that very folder
// (project.Options.Held), and, for an unpinned server, every folder above
// it must be the user's or root's and writable by nobody else (sticky
// folders such as /tmp excepted), so that nobody else can put another
// folder in its place. The agent's path itself is never opened again after
// it is resolved, so a symbolic link swapped in between changes nothing.
func (s *server) project(path string) (*opened, error) {
	switch {
	case path == "" && s.o.Pin != "":
		path = s.o.Pin // a pinned server's project, when the call names none
	case path == "":
		return nil, errors.New("project_path is missing: give the absolute path of the project root (the folder that holds .ai/); a server started with rye mcp -C DIR needs none")
	}
	if !filepath.IsAbs(path) {
		return nil, fmt.Errorf("project_path %q is not an absolute path: give the absolute path of the project root (the folder that holds .ai/)", path)
	}
	path = filepath.Clean(path)
	info, err := os.Stat(path)
	switch {
	case err != nil:
		return nil, fmt.Errorf("project_path %s: %v", path, errors.Unwrap(err))
	case !info.IsDir():
		return nil, fmt.Errorf("project_path %s is not a folder: give the project root (the folder that holds .ai/)", path)
	}
	var root string
	var held *os.File
	if s.o.Pin != "" {
		root, held, err = s.pinned(path, info)
	} else {
		root, held, err = s.unpinned(path)
	}
	if err != nil {
		return nil, err
	}
	open := s.o.Open
	if open == nil {
		open = project.Open
	}
	p, err := open(root, project.Options{Root: root, Held: held, Getenv: s.o.Getenv})
	if err != nil {
		held.Close()
		return nil, err
	}
	for _, i := range p.Settings.Ignored() {
		s.logf("warning: %s", i)
	}
	for _, pr := range p.Trust.Problems {
		s.logf("warning: %s: %s", pr.Path, pr.Reason)
	}
	return &opened{Project: p, held: held, userSpace: reachesUserSpace(root, p.Spaces.User)}, nil
}

// reachesUserSpace reports whether the project at root is the user space,
// or its .ai/ folder is (or lies in, or holds) the user space's through a
// link, on either side: the project's .ai may lead into ~/.ai, or ~/.ai
// may lead to the project's .ai (a user space kept in a repository).
func reachesUserSpace(root string, user *space.Space) bool {
	if user == nil {
		return false
	}
	realUser, err := filepath.EvalSymlinks(user.Root)
	if err != nil {
		return false
	}
	realAI, err := filepath.EvalSymlinks(filepath.Join(root, space.AIDir))
	if err != nil {
		return false
	}
	ri, err1 := os.Stat(root)
	ui, err2 := os.Stat(realUser)
	if err1 == nil && err2 == nil && os.SameFile(ri, ui) || space.Within(filepath.Join(realUser, space.AIDir), realAI) {
		return true
	}
	userAI, err := filepath.EvalSymlinks(filepath.Join(realUser, space.AIDir))
	return err == nil && (space.Within(userAI, realAI) || space.Within(realAI, userAI))
}

// pinned returns the pinned project's root, resolved when the server
// started, held open, when path (whose stat is info) is that folder.
func (s *server) pinned(path string, info os.FileInfo) (string, *os.File, error) {
	refuse := fmt.Errorf("project_path %s: this server serves only the project %s (it was started with rye mcp -C %s); start another server for another project", path, s.o.Pin, s.o.Pin)
	if s.pin.err != nil {
		return "", nil, fmt.Errorf("the pinned project %s: %v", s.o.Pin, s.pin.err)
	}
	if !os.SameFile(info, s.pin.info) {
		return "", nil, refuse
	}
	// The root was resolved at start; it must still be the folder it was
	// then (nobody moved another folder in its place).
	held, err := os.Open(s.pin.root)
	if err != nil {
		return "", nil, fmt.Errorf("the pinned project %s: %v", s.o.Pin, err)
	}
	if now, err := held.Stat(); err != nil || !os.SameFile(now, s.pin.info) {
		held.Close()
		return "", nil, fmt.Errorf("the pinned project %s is no longer the folder the server started with (%s was replaced): restart the server", s.o.Pin, s.pin.root)
	}
	if ai, err := os.Stat(filepath.Join(s.pin.root, space.AIDir)); err != nil || !ai.IsDir() {
		held.Close()
		return "", nil, fmt.Errorf("the pinned project %s has no %s/ folder any more", s.o.Pin, space.AIDir)
	}
	return s.pin.root, held, nil
}

// unpinned resolves path to its real folder, holds it open and checks it:
// a RYE project (a .ai/ folder), owned with its .ai/ by the user the
// server runs as, in folders nobody else can write (space.SafeFolder), and
// inside one of Options.Roots when there are any. An unpinned server
// trusts the keys of whatever project a call names; a folder another user
// controls must not be one, for root too (as git refuses a repository
// another user owns).
func (s *server) unpinned(path string) (root string, held *os.File, err error) {
	root, err = filepath.EvalSymlinks(path)
	if err != nil {
		return "", nil, fmt.Errorf("project_path %s: %v", path, err)
	}
	if len(s.roots) > 0 && !slices.ContainsFunc(s.roots, func(r string) bool { return space.Within(r, root) }) {
		return "", nil, fmt.Errorf("project_path %s is not inside the folders this server serves (rye mcp --root %s): start the server with --root for its folder, or pinned to it with -C", path, strings.Join(s.o.Roots, " --root "))
	}
	if held, err = os.Open(root); err != nil {
		return "", nil, fmt.Errorf("project_path %s: %v", path, err)
	}
	fail := func(err error) (string, *os.File, error) {
		held.Close()
		return "", nil, err
	}
	notOurs := func(err error) (string, *os.File, error) {
		return fail(fmt.Errorf("project_path %s: %v: this server runs the project's tools as you and trusts the keys in its %s/trusted_keys, so it serves only folders of your own that nobody else can change; if you trust this project, start a server for it: rye mcp -C %s", path, err, space.AIDir, path))
	}
	info, err := held.Stat()
	if err != nil {
		return fail(err)
	}
	if err := space.SafeFolder(root, info); err != nil {
		return notOurs(err)
	}
	ai := filepath.Join(root, space.AIDir)
	if info, err := os.Stat(ai); err != nil || !info.IsDir() {
		return fail(fmt.Errorf("project_path %s has no %s/ folder: it is not a RYE project (rye init makes one)", path, space.AIDir))
	}
	if err := space.OwnedByCaller(ai); err != nil {
		return notOurs(err)
	}
	realAI, err := filepath.EvalSymlinks(ai)
	if err != nil {
		return fail(fmt.Errorf("project_path %s: %v", path, err))
	}
	if aiInfo, err := os.Stat(realAI); err != nil {
		return fail(err)
	} else if err := space.SafeFolder(realAI, aiInfo); err != nil {
		return notOurs(err)
	}
	// The folders of the trust store and of the configuration decide what
	// the call trusts: nobody else may be able to add to them either.
	for _, dir := range trustFolders() {
		p := filepath.Join(realAI, filepath.FromSlash(dir))
		info, err := os.Lstat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			return fail(err)
		}
		if err := space.SafeFolder(p, info); err != nil {
			return notOurs(err)
		}
	}
	return root, held, nil
}

// trustFolders are the folders below .ai/ whose files decide what a call
// trusts: the trusted keys (rye's and RYE OS's) and the configuration.
func trustFolders() []string {
	return []string{verify.TrustedKeysDir, path.Dir(verify.ErasKeysDir), verify.ErasKeysDir, path.Dir(strings.TrimPrefix(config.Path, space.AIDir+"/"))}
}

// respond turns a response into the tool's result: one text content with
// the response's JSON (written without HTML escaping: directives are full
// of < and >), and the same object as structured content; its data cut
// first when the message would not fit in MaxResponse (fit).
func respond(r *response) (*sdk.CallToolResult, any, error) {
	r, err := fit(r)
	if err != nil {
		return nil, nil, err
	}
	text, err := encodeText(r)
	if err != nil {
		return nil, nil, err
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}, IsError: r.Status == "error"}, r, nil
}

// failure is the response of a call that stopped on err.
func failure(kind, id string, err error, started time.Time) *response {
	return &response{Status: "error", Type: kind, ItemID: id, Error: err.Error(), Metadata: since(started)}
}
