package executor

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ryekit/rye/chain"
)

// anchorContext is what {word} means in an anchor's env_paths and cwd
// (the reference's _compute_anchor_context): the run's context without
// {params_json}, with {runtime_lib} "" when the chain has no library.
func anchorContext(vars map[string]any) map[string]string {
	ctx := map[string]string{"runtime_lib": ""}
	for _, k := range []string{"tool_path", "tool_dir", "tool_parent", "anchor_path", "runtime_lib", "project_path", "user_space", "system_space"} {
		if v, ok := vars[k].(string); ok {
			ctx[k] = v
		}
	}
	return ctx
}

// anchorTemplate replaces each {word} of ctx in s; other words are kept as
// written (the reference's _template_string).
func anchorTemplate(s string, ctx map[string]string) string {
	var b strings.Builder
	last := 0
	for _, p := range chain.Placeholders(s) {
		v, ok := ctx[p.Name]
		if !ok {
			continue
		}
		b.WriteString(s[last:p.Off])
		b.WriteString(v)
		last = p.Off + len(p.Name) + 2
	}
	b.WriteString(s[last:])
	return b.String()
}

// applyAnchorEnv edits the path-list variables of an applied anchor
// (env_paths, the reference's _apply_anchor_env): the variable's value
// (from the resolved environment, which starts from the caller's) is split
// on the OS list separator with empty parts dropped; prepends go in front
// in their order, appends at the end, and an entry already there is not
// added again.
//
// Every entry the anchor adds must name the run directory or a folder
// below it: what a tool loads from these paths is then only what rye
// verified and wrote for this run. An entry elsewhere (the project, a
// {word} the context does not know) is an error, and nothing runs; the
// caller's own entries are kept as they are.
func applyAnchorEnv(a *chain.Anchor, env *env, ctx map[string]string, rd *runDir) error {
	sep := string(os.PathListSeparator)
	for _, ep := range a.EnvPaths {
		var parts []string
		if cur, ok := env.Get(ep.Var); ok {
			for _, p := range strings.Split(cur, sep) {
				if p != "" {
					parts = append(parts, p)
				}
			}
		}
		resolve := func(tmpl string) (string, error) {
			v := anchorTemplate(tmpl, ctx)
			if strings.Contains(v, sep) {
				// One entry, one folder: "{anchor_path}:{project_path}"
				// would pass the check below as one path below the run
				// directory and add the project as a second.
				return "", fmt.Errorf("%s: anchor env_paths %s: %q (from %q) holds the path-list separator %q: each entry is one folder, which rye verified and wrote for this run", a.Owner.ID(), ep.Var, v, tmpl, sep)
			}
			if v != "" && !rd.inside(v) {
				return "", fmt.Errorf("%s: anchor env_paths %s: %q (from %q) is not a folder that rye verified and wrote for this run; an anchor may add {anchor_path}, {tool_dir}, {tool_parent}, {runtime_lib} and folders below them", a.Owner.ID(), ep.Var, v, tmpl)
			}
			return filepath.Clean(v), nil
		}
		var front []string
		for _, t := range ep.Prepend {
			v, err := resolve(t)
			if err != nil {
				return err
			}
			if v != "." && !slices.Contains(parts, v) && !slices.Contains(front, v) {
				front = append(front, v)
			}
		}
		parts = append(front, parts...)
		for _, t := range ep.Append {
			v, err := resolve(t)
			if err != nil {
				return err
			}
			if v != "." && !slices.Contains(parts, v) {
				parts = append(parts, v)
			}
		}
		env.Set(ep.Var, strings.Join(parts, sep))
	}
	return nil
}

// anchorCwd is an applied anchor's working directory: its cwd template,
// which must name the run directory (or a folder below it) or the project
// root, rye's default working directory.
func anchorCwd(a *chain.Anchor, ctx map[string]string, rd *runDir, project string) (string, error) {
	v := anchorTemplate(a.Cwd, ctx)
	if rd.inside(v) || (filepath.IsAbs(v) && filepath.Clean(v) == filepath.Clean(project)) {
		return filepath.Clean(v), nil
	}
	return "", fmt.Errorf("%s: anchor cwd %q (from %q) is neither a folder that rye wrote for this run nor the project root", a.Owner.ID(), v, a.Cwd)
}

// dropEmptyLoadPathEntries removes the empty entries of the load-path
// variables of env, but for one the caller's own (non-empty) value has: an empty entry
// is the working directory to Python, Node and the loaders, so
// "{tool_dir}:${PYTHONPATH}" with PYTHONPATH unset would load modules from
// the project's unverified files.
func dropEmptyLoadPathEntries(env []string, caller *env) []string {
	sep := string(os.PathListSeparator)
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		own, _ := caller.Get(name)
		if chain.IsLoadPathVar(name) && !(own != "" && slices.Contains(strings.Split(own, sep), "")) {
			parts := slices.DeleteFunc(strings.Split(value, sep), func(e string) bool { return e == "" })
			if len(parts) == 0 {
				continue // nothing left: the variable is not set at all
			}
			kv = name + "=" + strings.Join(parts, sep)
		}
		out = append(out, kv)
	}
	return out
}

// checkLoadPaths refuses a run whose environment (env, complete: the
// caller's, the chain's env_config, the anchor's env_paths and the
// primitive's config.env) puts on a load path (chain.LoadPathVars) an
// entry that is neither the caller's own (in caller, the environment the
// run started from), nor the run directory or a folder below it, nor, for
// NODE_PATH, the project's node_modules that the user's configuration
// allowed (nodeModules, "" when it did not). However a chain sets these
// variables, only verified code is loaded from them.
func checkLoadPaths(env []string, caller *env, rd *runDir, nodeModules string) error {
	sep := string(os.PathListSeparator)
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		if !chain.IsLoadPathVar(name) {
			continue
		}
		var mine []string // an empty value has no entries
		if own, _ := caller.Get(name); own != "" {
			mine = strings.Split(own, sep)
		}
		for _, e := range strings.Split(value, sep) {
			switch {
			case slices.Contains(mine, e), rd.inside(e), nodeModules != "" && strings.EqualFold(name, "NODE_PATH") && e == nodeModules:
			default:
				return fmt.Errorf("%s holds %q, which is neither a folder that rye verified and wrote for this run nor from your own environment: a chain may put on a load path only what rye verified (%s), never the project's unverified files; nothing was run", name, e, strings.Join(chain.LoadPathVars, ", "))
			}
		}
	}
	return nil
}
