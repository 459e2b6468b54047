package chain

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ryekit/rye/item/syntax"
)

// LoadPathVars are the variables an interpreter or a dynamic loader reads
// code from before, or instead of, the tool's own: its search path lists
// and start-up files. What a chain puts in them must be what rye verified
// and wrote for the run (the run directory); the executor checks the
// final environment (executor: checkLoadPaths) and Validate the values a
// chain writes, so that rye lint reports them. A project is not a folder
// of signed items: a runtime that put {project_path} on PYTHONPATH would
// let any file at the project's root shadow the verified modules.
var LoadPathVars = []string{
	"PYTHONPATH", "PYTHONHOME", "PYTHONUSERBASE", "PYTHONSTARTUP",
	"NODE_PATH", "RUBYLIB", "PERL5LIB", "PERLLIB", "GEM_PATH", "GEM_HOME", "CLASSPATH",
	"LD_LIBRARY_PATH", "LD_PRELOAD", "DYLD_LIBRARY_PATH", "DYLD_INSERT_LIBRARIES", "DYLD_FRAMEWORK_PATH",
}

// runWords are the context words that name the run directory or a folder
// below it: the only starts a load-path entry may have.
var runWords = []string{"anchor_path", "tool_dir", "tool_parent", "runtime_lib", "tool_path"}

// IsLoadPathVar reports whether name is one of LoadPathVars.
func IsLoadPathVar(name string) bool { return slices.Contains(LoadPathVars, strings.ToUpper(name)) }

// checkLoadPaths reports the load-path variables that an element's
// env_config.env or config.env sets to anything but folders of the run:
// each entry (the value split on ':' and ';', outside ${...}) must start
// with a runWords word and not climb out with "..", or be the variable's
// own ${NAME} (the caller's value), or, for NODE_PATH, {node_modules}
// (the project's packages, which only the user's own configuration
// allows).
func checkLoadPaths(el *Element) []Problem {
	var ps []Problem
	for _, block := range []string{"env_config", "config"} {
		for _, f := range el.Meta.Get(block).Get("env").MapFields() {
			if !IsLoadPathVar(f.Key) || f.Value.Kind != syntax.StringNode {
				continue
			}
			if bad := badLoadPathEntry(f.Key, f.Value.Str); bad != "" {
				ps = append(ps, Problem{Element: el, Node: f.Value, Msg: fmt.Sprintf("%s: %s.env.%s: %q is not a folder that rye verified and writes for the run: a load path may hold only {%s} and folders below them, or your own ${%s}; the project's files are not verified", el.ID(), block, f.Key, bad, strings.Join(runWords, "}, {"), f.Key)})
			}
		}
	}
	return ps
}

// badLoadPathEntry returns the first entry of a load-path value that is
// not allowed (see checkLoadPaths), or "".
func badLoadPathEntry(name, value string) string {
	for _, e := range splitList(value) {
		switch {
		case e == "", e == "${"+name+"}", strings.EqualFold(name, "NODE_PATH") && e == "{node_modules}":
		case !runEntry(e):
			return e
		}
	}
	return ""
}

// runEntry reports whether e starts with a runWords word and stays below it.
func runEntry(e string) bool {
	for _, w := range runWords {
		if rest, ok := strings.CutPrefix(e, "{"+w+"}"); ok && (rest == "" || rest[0] == '/') {
			return !slices.Contains(strings.Split(rest, "/"), "..")
		}
	}
	return false
}

// splitList splits a path list on ':' and ';' (either OS's separator),
// but not inside ${...}.
func splitList(s string) []string {
	var out []string
	start, depth := 0, 0
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '$' && i+1 < len(s) && s[i+1] == '{':
			depth++
			i++
		case s[i] == '}' && depth > 0:
			depth--
		case (s[i] == ':' || s[i] == ';') && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}
