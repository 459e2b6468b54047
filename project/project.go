// Package project opens a RYE project once, for every verb that acts on
// one: where its root is, its spaces, the settings a run may rely on (and
// where each came from), the trust store its verdicts are given under,
// the signature policy, and its git repository. The command line and the
// MCP server both get these from Open, so that they trust exactly the
// same things; nothing below them assembles a project.
//
// The gate's security lives here. What loosens a check never comes from
// the tree under check: the trust ref comes from the caller or the user's
// own configuration, the project's settings at that ref replace the
// tree's where they could loosen anything, the tree's trusted keys are
// reported and not trusted under a ref, and the policy is the strictest
// of the user's file, the ref's and the tree's.
package project

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ryekit/rye/config"
	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/report"
	"github.com/ryekit/rye/space"
	"github.com/ryekit/rye/verify"
)

// Options say how to open a project and what a run trusts.
type Options struct {
	// Root names the project root exactly (rye --project DIR; a relative
	// path is taken from the folder given to Open): no search upwards.
	Root string
	// Held is the project root as a folder the caller holds open, having
	// checked it (the MCP server): Open opens exactly that folder, and
	// fails when Root (or the folder given to Open) no longer names it.
	Held *os.File
	// Getenv reads the environment (USER_SPACE, HOME, RYE_SYSTEM_PATH);
	// nil is os.Getenv.
	Getenv func(string) string

	// TrustRef reads the project's trusted keys, and the project settings
	// that could loosen a check, from this git commit (the base of a
	// change under review), so that a change cannot trust itself.
	TrustRef string
	// TrustUser keeps the user space's keys under a trust ref.
	TrustUser bool
	// Staged reads the project's configuration and trusted keys from the
	// git index: what the commit being made will hold.
	Staged bool
	// Gate marks a run whose answer gates a change (verify, check, bundle
	// verify): without TrustRef it is anchored to the user's own
	// verify.trust_ref. A project's verify.trust_ref is never honoured.
	Gate bool
	// RequireV2 fails every signature but v2 (the settings'
	// min_signature_version: 2 asks for it too).
	RequireV2 bool
	// Now is when keys' expiry is judged; zero: when Open runs, in UTC.
	Now time.Time
	// SpacesOnly opens the spaces alone, for the verbs that read neither
	// settings nor trust (search, trust list, completion): a broken
	// configuration file does not stop them.
	SpacesOnly bool
}

// Project is one opened project: everything a verb needs, read once.
type Project struct {
	// Spaces are the project space (nil when there is no project: the
	// verbs that also work in the user and system spaces), the user space
	// and the system spaces.
	Spaces *space.Spaces
	// Settings are the configuration files the run may rely on, each with
	// where it came from (config.Settings). nil with Options.SpacesOnly.
	Settings *config.Settings
	// Trust is the store verdicts are given under: the project's keys of
	// the working tree, the index (Staged) or a git commit (the trust
	// ref), the user's and the system's. nil with Options.SpacesOnly.
	Trust *verify.TrustStore
	// Policy is the signature policy: the strictest of the caller's, the
	// user's file, the ref's and the tree's.
	Policy verify.Policy
	// Git is the project's repository when the run reads git (a trust
	// ref, staged); nil otherwise (Repo opens it on demand).
	Git *verify.Git
	// WorkDir is where the run acts: paths are shown relative to it.
	WorkDir string
	// opts are the options it was opened with (other projects of the same
	// run are opened with them).
	opts Options
}

// NoProjectError is a verb that needs a project where there is none.
type NoProjectError struct {
	// Dir is where the search for a .ai/ folder started.
	Dir string
	// Below are the projects below Dir (a repository's root with its
	// projects in subfolders), when a run over Dir looked for them.
	Below []string
	// Exact is a root named exactly (rye --project DIR) that is not one.
	Exact bool
}

func (e *NoProjectError) Error() string {
	if e.Exact {
		return fmt.Sprintf("no project: %s has no %s/ folder", e.Dir, space.AIDir)
	}
	return fmt.Sprintf("no project: no %s/ folder in %s or any folder above it", space.AIDir, e.Dir)
}

// BelowText names the projects below Dir as a message does: how many,
// then the first three, relative to from when they can be, and "…" for
// the rest ("4 projects (a, b/c, d, …)").
func (e *NoProjectError) BelowText(from string) string {
	shown := make([]string, 0, 4)
	for _, r := range e.Below[:min(3, len(e.Below))] {
		if rel, err := filepath.Rel(from, r); err == nil {
			r = rel
		}
		shown = append(shown, r)
	}
	if len(e.Below) > 3 {
		shown = append(shown, "…")
	}
	return fmt.Sprintf("%s (%s)", report.Plural(len(e.Below), "project"), strings.Join(shown, ", "))
}

// Is makes a NoProjectError match verify.ErrNoProject.
func (e *NoProjectError) Is(target error) bool { return target == verify.ErrNoProject }

// Open opens the project of dir (the working directory, or -C DIR; ""
// is the process's): the nearest folder at or above dir that has a .ai/
// folder, or exactly Options.Root. There may be no project: the project
// space is then nil, and the verbs that need one ask for it with Space.
func Open(dir string, o Options) (*Project, error) {
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, err
		}
		dir = wd
	}
	o = o.defaults()
	root := o.Root
	if root != "" && !filepath.IsAbs(root) {
		root = filepath.Join(dir, root)
	}
	if o.Held != nil {
		if root == "" {
			root = dir
		}
		if err := sameFolder(root, o.Held); err != nil {
			return nil, err
		}
	}
	if root != "" {
		// A root named exactly must be a project: a pipeline pinned to a
		// folder that a change moved must not go green on nothing.
		if info, err := os.Stat(filepath.Join(root, space.AIDir)); err != nil || !info.IsDir() {
			return nil, &NoProjectError{Dir: root, Exact: true}
		}
	}
	ss, err := space.Discover(space.Options{WorkDir: dir, ProjectDir: root, Getenv: o.Getenv})
	if err != nil {
		return nil, err
	}
	return open(ss, dir, o)
}

// defaults fills in what the zero Options leave to Open.
func (o Options) defaults() Options {
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.Now.IsZero() {
		o.Now = time.Now().UTC()
	}
	return o
}

// open finishes opening a project whose spaces are found: its settings,
// trust store and policy.
func open(ss *space.Spaces, dir string, o Options) (*Project, error) {
	p := &Project{Spaces: ss, WorkDir: dir, opts: o}
	if o.SpacesOnly {
		return p, nil
	}
	s, g, err := loadSettings(ss, o)
	if err != nil {
		return nil, err
	}
	ts, g, err := verify.LoadTrust(ss, verify.TrustOptions{Ref: s.TrustRef, User: o.TrustUser, Staged: o.Staged && s.TrustRef == "", Repo: g})
	if err != nil {
		return nil, err
	}
	p.Settings, p.Trust, p.Git = s, ts, g
	p.Policy = verify.Policy{RequireV2: o.RequireV2 || s.MinSignatureVersion() == 2, Now: o.Now}
	return p, nil
}

// sameFolder checks that path is the folder held open.
func sameFolder(path string, held *os.File) error {
	hi, err := held.Stat()
	if err != nil {
		return err
	}
	pi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !os.SameFile(hi, pi) {
		return fmt.Errorf("%s is no longer the folder that was checked (it was replaced)", path)
	}
	return nil
}

// Root is the project's root folder, "" when there is no project.
func (p *Project) Root() string {
	if p.Spaces.Project == nil {
		return ""
	}
	return p.Spaces.Project.Root
}

// Space is the project space, or a *NoProjectError for the verbs that
// need one.
func (p *Project) Space() (*space.Space, error) {
	if p.Spaces.Project == nil {
		return nil, &NoProjectError{Dir: p.WorkDir}
	}
	return p.Spaces.Project, nil
}

// Writable is the project or the user space ("" is the project), for
// the verbs that write items, keys or bundles; the system spaces are
// read-only.
func (p *Project) Writable(name string) (*space.Space, error) {
	switch space.Name(name) {
	case "", space.Project:
		return p.Space()
	case space.User:
		if p.Spaces.User == nil {
			return nil, errNoUserSpace
		}
		return p.Spaces.User, nil
	}
	return nil, fmt.Errorf("%q is not a space items can be written to: use project or user (the system space is read-only)", name)
}

// LoadRequest is the request of the load pipeline (verify.Load) for an
// item of this project: its spaces, the trust store of the working tree
// and the policy; copied into the space named destination (project or
// user; "" for none), over an existing file when overwrite. A person's
// copy may be of an item that does not verify (it must be signed in its
// new space whatever it was); the MCP server builds its own.
func (p *Project) LoadRequest(k item.Kind, id item.ID, destination string, overwrite bool) (verify.LoadRequest, error) {
	req := verify.LoadRequest{Spaces: p.Spaces, Trust: p.Trust, Policy: p.Policy, Kind: k, ID: id, Overwrite: overwrite, CopyUnverified: true}
	if destination != "" {
		to, err := p.Writable(destination)
		if err != nil {
			return req, verify.RequestErrorOf(FieldDestination, err)
		}
		req.To = to
	}
	return req, nil
}

// errNoUserSpace is a user space asked for where neither USER_SPACE nor
// HOME is set.
var errNoUserSpace = errors.New("no user space: set USER_SPACE or HOME")

// UserRoot is the user space's root, "" when there is none.
func (p *Project) UserRoot() string {
	if p.Spaces.User == nil {
		return ""
	}
	return p.Spaces.User.Root
}

// Repo is the project's repository, opened once when first asked for
// (Git, when the run has read git already).
func (p *Project) Repo() (*verify.Git, error) {
	if p.Git != nil {
		return p.Git, nil
	}
	sp, err := p.Space()
	if err != nil {
		return nil, err
	}
	repo, aiPrefix, err := verify.OpenRepo(sp.Root)
	if err != nil {
		return nil, err
	}
	p.Git = &verify.Git{Repo: repo, AIPrefix: aiPrefix}
	return p.Git, nil
}

// Getenv is the environment the project was opened with.
func (p *Project) Getenv(key string) string { return p.opts.Getenv(key) }
