package report

import (
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// Findings, notes and group lines name the commands that fix them ("sign
// it again: rye sign tool x"), as the libraries that make them word it.
// Where rye runs those commands do not work as written (a hook's binary
// that is not on PATH, a project that is not the working directory's),
// the command line renames them here, so that a fix can still be pasted.

// commandRE finds a rye command line in a message: the word rye, an
// optional -C DIR (a folder quoted for a shell as InDir's callers quote
// it), and one of its verbs. Compiled on first use.
var commandRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(^|[\s("'` + "`" + `])rye( -C (?:(?:~/)?'[^']*'(?:\\''[^']*')*|\S+))? (init|load|search|keys|trust|sign|verify|check|lint|execute|thread|lock|bundle|version|completion)\b`)
})

// RenameCommands returns msg with every rye command it names run as name
// (a path to the binary; "rye" leaves msg as it is).
func RenameCommands(msg, name string) string {
	if name == "rye" || !strings.Contains(msg, "rye ") {
		return msg
	}
	return commandRE().ReplaceAllString(msg, "${1}"+strings.ReplaceAll(name, "$", "$$")+"${2} ${3}")
}

// InDir makes every rye command of the report's findings and notes run
// in dir ("rye -C dir sign tool x"), dir being a folder relative to the
// working directory, already quoted for a shell: the report is one
// project's of a run over several, or of a file path in another project.
func (r *Report) InDir(dir string) {
	repl := "${1}rye -C " + strings.ReplaceAll(dir, "$", "$$") + " ${3}"
	for i := range r.Findings {
		r.Findings[i].Message = commandRE().ReplaceAllString(r.Findings[i].Message, repl)
	}
	for i := range r.Notes {
		r.Notes[i] = commandRE().ReplaceAllString(r.Notes[i], repl)
	}
}

// Named returns the report with every rye command of its findings, notes
// and group lines run as name (RenameCommands).
func (r *Report) Named(name string) *Report {
	if name == "rye" {
		return r
	}
	out := *r
	out.Findings = make([]Finding, len(r.Findings))
	for i, f := range r.Findings {
		f.Message = RenameCommands(f.Message, name)
		out.Findings[i] = f
	}
	out.Notes = make([]string, len(r.Notes))
	for i, n := range r.Notes {
		out.Notes[i] = RenameCommands(n, name)
	}
	if r.Groups != nil {
		out.Groups = map[string]Group{}
		for k, g := range r.Groups {
			g.Summary = RenameCommands(g.Summary, name)
			out.Groups[k] = g
		}
	}
	return &out
}

// ShellWord quotes a path for a POSIX shell when it needs it (a leading ~/
// stays outside the quotes, so that it still expands).
func ShellWord(p string) string {
	if !strings.ContainsAny(p, " \t\n'\"\\$`!*?[]{}()<>|&;#") {
		return p
	}
	prefix := ""
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		prefix, p = "~/", rest
	}
	return prefix + "'" + strings.ReplaceAll(p, "'", `'\''`) + "'"
}

// Descends reports whether a folder shown as shown (relative to the
// working directory) lies below it: not the working directory itself, nor
// one of its parents, where commands run as they are.
func Descends(shown string) bool {
	if shown == "" || filepath.IsAbs(shown) {
		return false
	}
	for _, part := range strings.Split(filepath.ToSlash(shown), "/") {
		if part != "." && part != ".." {
			return true
		}
	}
	return false
}
