package executor

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ryekit/rye/confine"
	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/sandbox"
	"github.com/ryekit/rye/space"
)

// This file decides how a tool is confined (package sandbox reads its
// block, package confine enforces it): in Prepare, whether the block is
// valid and the system can enforce it (a dry run shows the verdict); in
// Run, the grants with the run's own folders, handed to the subprocess
// primitive as its launcher.

// sandboxError is a tool whose sandbox block is not valid (or, with
// execute.require_sandbox, missing): nothing runs.
type sandboxError struct {
	Tool     string
	Path     string
	Problems []string
}

func (e *sandboxError) Error() string {
	return fmt.Sprintf("tool %s (%s): %s; nothing was run", e.Tool, e.Path, strings.Join(e.Problems, "; "))
}

// confinement is what Prepare decided about a tool's confinement.
type confinement struct {
	block  *sandbox.Block
	kernel confine.Kernel
	needs  confine.Needs
	// ruleset is the run's Landlock ruleset with the system defaults,
	// built while the rest of Prepare and Run goes on.
	ruleset *confine.Ruleset
}

// planConfinement reads the tool's own sandbox block (no element of its
// chain can widen or replace it), checks it against the system and sets
// p.Confinement: "none" without a block, else the declaration with the
// verdict. A block the system cannot enforce is a *confine.UnenforceableError.
func (x *Executor) planConfinement(p *plan) error {
	tool := p.Chain.Tool()
	md := tool.Meta
	// A Python __sandbox__ that is not a literal is not "no block": the
	// tool meant to be confined, and rye cannot read how.
	for _, pr := range md.Problems {
		if pr.Field == "__sandbox__" {
			return &sandboxError{Tool: string(tool.ID()), Path: tool.Loc.Path(), Problems: []string{fmt.Sprintf("%s: __sandbox__: %s: write it as a dict literal", pr.Pos, pr.Msg)}}
		}
	}
	n := md.Get(sandbox.Key)
	if n == nil && tool.Item.Ext() == ".py" {
		if _, msg := sandbox.PythonElsewhere(tool.Item.Bytes); msg != "" {
			return &sandboxError{Tool: string(tool.ID()), Path: tool.Loc.Path(), Problems: []string{"sandbox: " + msg}}
		}
	}
	if n == nil {
		if x.RequireSandbox {
			return &sandboxError{Tool: string(tool.ID()), Path: tool.Loc.Path(), Problems: []string{"it declares no sandbox block, and your configuration requires one (execute.require_sandbox in your own rye.yaml): add a sandbox block to the tool, sign it, or turn the setting off"}}
		}
		p.Confinement = confine.Unconfined()
		return nil
	}
	b, ps := sandbox.Parse(n)
	if len(ps) > 0 {
		e := &sandboxError{Tool: string(tool.ID()), Path: tool.Loc.Path()}
		for _, pr := range ps {
			e.Problems = append(e.Problems, pr.Error())
		}
		return e
	}
	needs := confine.Needs{Ports: len(b.Ports()) > 0}
	for _, h := range b.Hosts() {
		needs.Hosts = append(needs.Hosts, h.Text)
	}
	if p.Chain.Root().ID() == "rye/core/primitives/http_client" {
		needs.InProcess = "the chain ends in the http_client primitive, whose request rye itself makes"
	}
	k := x.probe()
	r := &confine.Report{Verdict: "enforceable", LandlockABI: k.LandlockABI, Subprocess: b.Subprocess, Seccomp: k.Seccomp,
		Scoped: k.LandlockABI >= confine.ABIScopes, Filesystem: confine.FSReport{Read: texts(b.Read), Write: texts(b.Write), Defaults: confine.DefaultNames()}}
	if !b.NetworkNone {
		for _, e := range b.Endpoints {
			r.Network = append(r.Network, e.Text)
		}
	}
	p.Confinement = r
	if err := confine.Check(k, needs); err != nil {
		var ue *confine.UnenforceableError
		if errors.As(err, &ue) {
			r.Verdict, r.Needed, r.Found = "unenforceable", ue.Needed, ue.Found
		}
		return err
	}
	c := &confinement{block: b, kernel: k, needs: needs}
	if e := p.early; e != nil && e.kernel == k {
		c.ruleset, p.early = e.ruleset, nil
	} else {
		c.ruleset = confine.BuildRuleset(k, true)
	}
	p.confine = c
	return nil
}

// earlyRuleset is the system defaults' ruleset, started as soon as the
// verified tool shows a sandbox block, before the rest of its chain is
// read and verified: the two take about as long, and run side by side.
type earlyRuleset struct {
	kernel  confine.Kernel
	ruleset *confine.Ruleset
}

// startRuleset starts the defaults' ruleset for a tool whose metadata has
// a sandbox block and whose kernel can hold one; nil otherwise. Whether
// the block is valid and enforceable is decided later (planConfinement):
// a ruleset that is not used is closed.
func (x *Executor) startRuleset(it *item.Item) *earlyRuleset {
	md, err := it.Metadata()
	if err != nil || md.Get(sandbox.Key) == nil {
		return nil
	}
	k := x.probe()
	if k.LandlockABI < confine.ABIFilesystem {
		return nil
	}
	return &earlyRuleset{kernel: k, ruleset: confine.BuildRuleset(k, true)}
}

// release lets go of what Prepare started for the run (the ruleset).
func (p *plan) release() {
	if p == nil {
		return
	}
	if p.confine != nil {
		p.confine.ruleset.Close()
	}
	if p.early != nil {
		p.early.ruleset.Close()
		p.early = nil
	}
}

func texts(ps []sandbox.Path) []string {
	out := []string{}
	for _, p := range ps {
		out = append(out, p.Text)
	}
	return out
}

func (x *Executor) probe() confine.Kernel {
	if x.Kernel != nil {
		return x.Kernel()
	}
	return confine.Probe()
}

// launcher builds the confinement of one run: the system defaults, the
// run's verified files, the declared paths with the run's values, and
// the report the result carries (a copy of the plan's, with the paths
// expanded). It returns nil for a tool without a block.
func (x *Executor) launcher(p *plan, rd *runDir, m *materialised, runDir, userSpace string) (*confine.Launcher, *confine.Report, error) {
	c := p.confine
	if c == nil {
		return nil, p.Confinement, nil
	}
	helper := confine.FindHelper
	if x.Helper != nil {
		helper = x.Helper
	}
	h, err := helper()
	if err != nil {
		return nil, nil, err
	}
	home := x.home()
	values := map[string]string{
		"project_path": x.ProjectPath,
		"tool_dir":     m.toolDir,
		"user_space":   userSpace,
		"run_dir":      runDir,
		"home":         home,
		"tmp":          os.TempDir(),
	}
	value := func(name string) string { return values[name] }
	rep := *p.Confinement
	rep.Filesystem = confine.FSReport{Read: []string{}, Write: []string{}, Defaults: rep.Filesystem.Defaults}
	var grants []confine.Grant
	for _, dir := range []string{"ai", "lib"} {
		grants = append(grants, confine.Grant{Base: filepath.Join(rd.root, dir), Access: confine.Exec, Optional: true, Label: "the run's verified files"})
	}
	verified := []string{filepath.Join(rd.root, "ai"), filepath.Join(rd.root, "lib")}
	if x.Spaces.Project != nil {
		verified = append(verified, filepath.Join(x.Spaces.Project.Root, ".ai"))
	}
	if userSpace != "" {
		verified = append(verified, filepath.Join(userSpace, ".ai"))
	}
	for _, list := range []struct {
		paths  []sandbox.Path
		access confine.Access
		report *[]string
	}{{c.block.Read, confine.Read, &rep.Filesystem.Read}, {c.block.Write, confine.Write, &rep.Filesystem.Write}} {
		for _, sp := range list.paths {
			base, rel, err := sp.Expand(value)
			if err != nil {
				return nil, nil, err
			}
			g := confine.Grant{Base: base, Rel: rel, Access: list.access, Label: sp.Text}
			if list.access == confine.Write {
				if err := notOverVerified(g.Path(), verified, sp.Text); err != nil {
					return nil, nil, err
				}
			}
			grants = append(grants, g)
			*list.report = append(*list.report, g.Path())
		}
	}
	spec := &confine.Spec{Kernel: c.kernel, Needs: c.needs, Helper: h, System: true, Ruleset: c.ruleset, Grants: grants, Ports: c.block.Ports(), Subprocess: c.block.Subprocess,
		NotIn: append([]string{home, x.ProjectPath, userSpace}, homeDataFolders(home)...), UserEnv: withoutSecrets(x.Environ), Report: &rep}
	return confine.NewLauncher(spec), &rep, nil
}

// notOverVerified refuses a write grant that is, holds or lies in a folder
// of verified files (the project's or the user's .ai/, the run's copies):
// a tool that may write there could change what rye verified or the keys
// it trusts. Paths are compared as they resolve now.
func notOverVerified(p string, verified []string, text string) error {
	real := resolved(p)
	for _, v := range verified {
		rv := resolved(v)
		if space.Within(real, rv) || space.Within(rv, real) {
			return fmt.Errorf("sandbox: filesystem.write %q is %s, which holds or is inside %s, a folder of verified files: a tool may not write there; name another folder (nothing was run)", text, real, rv)
		}
	}
	return nil
}

// resolved is p with its symbolic links resolved, as far as it exists.
func resolved(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	parent := filepath.Dir(p)
	if parent == p {
		return p
	}
	return filepath.Join(resolved(parent), filepath.Base(p))
}

// homeDataFolders are folders below the home folder that hold the user's
// data rather than programs: ~/.local/share and ~/.local/state (keyrings,
// tokens, histories), ~/.local/lib (the user site-packages, which a tool
// reads only when it declares it), and the user's configuration and cache
// folders (rye's cache secret, other runs' folders). An interpreter's
// installation folder that holds one is not granted whole: a python3 in
// ~/.local/bin (uv, pipx) would otherwise open all of ~/.local.
func homeDataFolders(home string) []string {
	var out []string
	if home != "" {
		for _, rel := range []string{".local/share", ".local/state", ".local/lib"} {
			out = append(out, filepath.Join(home, filepath.FromSlash(rel)))
		}
	}
	if d, err := os.UserConfigDir(); err == nil {
		out = append(out, d)
	}
	if d, err := os.UserCacheDir(); err == nil {
		out = append(out, d)
	}
	return out
}

func (x *Executor) home() string {
	if x.Home != "" {
		return x.Home
	}
	h, _ := os.UserHomeDir()
	return h
}
