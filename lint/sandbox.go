package lint

import (
	"fmt"
	"path"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/item/python"
	"github.com/ryekit/rye/item/syntax"
	"github.com/ryekit/rye/sandbox"
)

// Sandbox checks a tool's sandbox block and what its code visibly does
// against it.
var Sandbox = &analysis.Analyzer{
	Name: "sandbox",
	Doc: `check the sandbox block, and what the code visibly does against it

A tool's sandbox block (sandbox: in YAML and script headers, __sandbox__
in Python) says what it may read, write and connect to, and whether it may
start programs; rye execute enforces it with Landlock and seccomp, or
refuses to run. The block must be valid: no unknown key, no relative path,
no path that climbs with "..", no unknown placeholder, no port out of
range, no write over verified files ({tool_dir}, .ai/ folders). A
runtime's or primitive's block has no effect (only the tool's own counts):
a warning. A Python __sandbox__ bound where rye does not read metadata
(inside a block, through globals()) is an error: rye execute refuses the
tool, which a reviewer would take for confined.

The code is read for what it visibly uses, at the line that does it:
the network (Python: socket, urllib, requests, http.client, httpx...; Node:
net, http(s), fetch; shell: curl, wget, nc, ssh, /dev/tcp...), other
programs (subprocess, os.system, os.popen, child_process, backticks, $(),
pipes and any external command of a shell tool) and the home folder or
credential files (~/.ssh, ~/.aws, expanduser("~"), $HOME, os.environ["HOME"]).
Where the block forbids it, it is an error: the tool would fail at run
time. A tool without a block gets a warning naming the block that would
let it run confined (one per kind of use, at the first), so that the
declaration is settled at review; a shell tool without a block is not
warned about the programs it runs (that is what a shell script does),
only about the network and the home folder.`,
	URL:      docURL("sandbox"),
	Requires: []*analysis.Analyzer{input, parse},
	Run:      runSandbox,
}

// use is something the code visibly does.
type use struct {
	what string // "network", "subprocess", "home"
	off  int    // byte offset in the file
	end  int
	why  string // what was seen: `import requests`, `curl`, ...
}

func runSandbox(pass *analysis.Pass) (any, error) {
	e, r := env(pass), reporter{pass}
	parsed := pass.ResultOf[parse].(parsed)
	// Each tool is judged on its own: in parallel, as the parse is.
	each(e.Files, func(_ int, f *file) {
		md := parsed[f]
		if md == nil || f.Kind != item.Tool {
			return
		}
		n := md.Get(sandbox.Key)
		// A Python tool's tokens, split once for both readings below.
		var code pyCode
		if path.Ext(f.Name) == ".py" && f.Src != nil {
			code.toks, code.err = python.Tokens(f.Src)
		}
		if n == nil && path.Ext(f.Name) == ".py" && f.Src != nil {
			// What the executor refuses: a __sandbox__ a reviewer sees
			// but rye's reader does not (bound inside a block).
			if off, msg := sandbox.PythonElsewhereIn(f.Src, code.toks, code.err); msg != "" {
				r.at(sevError, "unread-block", f.Pos(syntax.Pos{Offset: off, Line: 1}), 0, msg+"; rye execute refuses to run it")
				return
			}
		}
		var b *sandbox.Block
		if n != nil {
			var ps []sandbox.Problem
			b, ps = sandbox.Parse(n)
			for _, p := range ps {
				r.at(sevError, "block", f.Pos(p.Node.Pos), endPos(f, p.Node), p.Msg)
			}
			if len(ps) > 0 {
				b = nil // judged once it is valid
			}
			if tt := md.Str("tool_type"); tt == "runtime" || tt == "primitive" {
				r.at(sevWarning, "runtime-block", f.Pos(n.Pos), 0, fmt.Sprintf("a %s's sandbox block has no effect: only the tool's own block counts (nothing in a chain can widen or replace it); declare it in each tool", tt))
				return
			}
			if len(ps) > 0 {
				return
			}
		}
		uses := codeUses(f, md, code)
		count := map[string]int{}
		for _, u := range uses {
			count[u.what]++
		}
		for _, u := range uses {
			pos, end := f.Pos(syntax.Pos{Offset: u.off, Line: 1}), f.Pos(syntax.Pos{Offset: u.end, Line: 1})
			if b == nil {
				// Running programs is what a shell script does: without
				// a block, a shell tool is warned about the network and
				// the home folder only.
				if u.what == "subprocess" && path.Ext(f.Name) == ".sh" {
					continue
				}
				// One warning per kind of use, at the first: the point is
				// the declaration, not every line.
				n := count[u.what]
				if n == 0 {
					continue
				}
				count[u.what] = 0
				more := ""
				if n > 1 {
					more = fmt.Sprintf(", and %d more in this file", n-1)
				}
				r.at(sevWarning, "undeclared-"+u.what, pos, end, fmt.Sprintf("%s (%s%s), and the tool declares no sandbox block: declare %s so that it runs confined (with only what it declares), and so that a reviewer sees what it may do", describeUse(u.what), u.why, more, blockFor(u.what)))
				continue
			}
			if msg := forbidden(b, u.what); msg != "" {
				r.at(sevError, "forbidden-"+u.what, pos, end, fmt.Sprintf("%s (%s), which its sandbox block forbids: %s", describeUse(u.what), u.why, msg))
			}
		}
	})
	return nil, nil
}

func describeUse(what string) string {
	switch what {
	case "network":
		return "uses the network"
	case "subprocess":
		return "starts another program"
	}
	return "reads the home folder or a credential file"
}

// blockFor is the declaration that would let the use run confined.
func blockFor(what string) string {
	switch what {
	case "network":
		return `sandbox: {network: [":443"]} (the ports it connects to)`
	case "subprocess":
		return "sandbox: {subprocess: true}"
	}
	return `sandbox: {filesystem: {read: ["{home}/..."]}} (the files it needs)`
}

// forbidden says why the block does not allow the use ("" when it does).
func forbidden(b *sandbox.Block, what string) string {
	switch what {
	case "network":
		if b.NetworkNone {
			return `network is none (or not declared); list the ports it connects to: network: [":443"]`
		}
	case "subprocess":
		if !b.Subprocess {
			return "subprocess is false (or not declared): a confined tool cannot start programs; declare subprocess: true, or do it without one"
		}
	case "home":
		for _, p := range append(append([]sandbox.Path(nil), b.Read...), b.Write...) {
			if p.Var == "home" {
				return ""
			}
		}
		return `the home folder is not readable by default; declare what it needs: filesystem: {read: ["{home}/.config/<tool>"]}`
	}
	return ""
}

// pyCode is a Python tool's tokens and the error of splitting it into
// them (python.Tokens), read once per file by the sandbox analyzer.
type pyCode struct {
	toks []python.Token
	err  error
}

// codeUses reads a tool's code for what it visibly uses; code holds a
// Python tool's tokens (split here when the caller has none).
func codeUses(f *file, md *item.Metadata, code pyCode) []use {
	switch path.Ext(f.Name) {
	case ".py":
		if code.toks == nil && code.err == nil {
			code.toks, code.err = python.Tokens(f.Src)
		}
		return pythonUses(f.Src, code)
	case ".sh":
		return shellUses(f.Src, md)
	case ".js", ".ts":
		return jsUses(f.Src, md)
	case ".yaml", ".yml":
		return configUses(md)
	}
	return nil
}

// Modules and names, by what using them means.
var (
	pyNetworkModules = []string{"socket", "urllib", "urllib3", "requests", "http", "httpx", "aiohttp", "ftplib", "smtplib",
		"poplib", "imaplib", "telnetlib", "xmlrpc", "websocket", "websockets", "paramiko", "grpc", "pycurl", "socketserver", "asyncssh", "nntplib"}
	pySubprocessModules = []string{"subprocess", "pty", "multiprocessing"}
	pyOSSubprocess      = []string{"system", "popen", "fork", "forkpty", "posix_spawn", "posix_spawnp", "spawnl", "spawnle", "spawnlp",
		"spawnlpe", "spawnv", "spawnve", "spawnvp", "spawnvpe", "execl", "execle", "execlp", "execlpe", "execv", "execve", "execvp", "execvpe"}
	credentialHints = []string{"~/", ".ssh/", ".aws/", ".gnupg", ".netrc", ".kube/", ".docker/config", ".config/gcloud", "id_rsa", "id_ed25519", ".pgpass", ".git-credentials"}
	shellNetwork    = []string{"curl", "wget", "nc", "ncat", "netcat", "ssh", "scp", "sftp", "rsync", "telnet", "socat", "ftp", "dig", "nslookup", "host", "ping", "http", "xh", "aria2c"}
)

func has(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// pyTok is a token of code (not a comment) and its text.
type pyTok struct {
	python.Token
	Text string
}

// pythonUses reads Python tokens: imports of network or subprocess
// modules, os.system and friends, asyncio's subprocesses and connections,
// the home folder (expanduser, Path.home, HOME from the environment) and
// strings that name credential files.
func pythonUses(src []byte, code pyCode) []use {
	all := code.toks
	if code.err != nil {
		return nil // the parse analyzer reports it
	}
	toks := make([]pyTok, 0, len(all))
	for _, t := range all {
		if t.Kind != python.Comment {
			toks = append(toks, pyTok{t, string(src[t.Start:t.End])})
		}
	}
	var out []use
	at := func(t pyTok, what, why string) {
		out = append(out, use{what: what, off: t.Start, end: t.End, why: why})
	}
	// The start of each logical line, for import statements.
	lineStart := true
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		next := func(k int) pyTok {
			if i+k < len(toks) {
				return toks[i+k]
			}
			return pyTok{}
		}
		switch {
		case t.Kind == python.Newline:
			lineStart = true
			continue
		case lineStart && t.Kind == python.Name && t.Text == "import":
			// import a.b, c as d: each module after "import" or ","
			for j := i + 1; j < len(toks) && toks[j].Kind != python.Newline; j++ {
				if toks[j].Kind == python.Name && (toks[j-1].Text == "import" || toks[j-1].Text == ",") {
					pyModule(toks[j], "import", at)
				}
			}
		case lineStart && t.Kind == python.Name && t.Text == "from" && next(1).Kind == python.Name:
			pyModule(next(1), "from", at) // from a.b import c
		case t.Kind == python.Name && t.Text == "os" && next(1).Text == "." && next(2).Kind == python.Name:
			switch name := next(2).Text; {
			case has(pyOSSubprocess, name):
				at(next(2), "subprocess", "os."+name)
			case name == "environ" || name == "getenv":
				// os.environ["HOME"], os.environ.get("HOME"), os.getenv("HOME")
				for j := i + 3; j < i+8 && j < len(toks) && toks[j].Kind != python.Newline; j++ {
					if toks[j].Kind == python.String && strings.Trim(stringBody(toks[j].Text), " ") == "HOME" {
						at(toks[j], "home", "os."+name+" HOME")
						break
					}
				}
			}
		case t.Kind == python.Name && (t.Text == "expanduser" || t.Text == "home") && next(1).Text == "(":
			if t.Text == "home" && (i == 0 || toks[i-1].Text != ".") {
				break
			}
			at(t, "home", t.Text+"()")
		case t.Kind == python.Name && (t.Text == "create_subprocess_exec" || t.Text == "create_subprocess_shell" || t.Text == "ProcessPoolExecutor"):
			at(t, "subprocess", t.Text)
		case t.Kind == python.Name && (t.Text == "open_connection" || t.Text == "create_connection" || t.Text == "urlopen") && next(1).Text == "(":
			at(t, "network", t.Text)
		case t.Kind == python.String:
			if h := credentialIn(stringBody(t.Text)); h != "" {
				at(t, "home", "the path "+h)
			}
		}
		lineStart = false
	}
	return out
}

// pyModule reports an imported module by its first name.
func pyModule(m pyTok, how string, at func(pyTok, string, string)) {
	switch {
	case has(pyNetworkModules, m.Text):
		at(m, "network", how+" "+m.Text)
	case has(pySubprocessModules, m.Text):
		at(m, "subprocess", how+" "+m.Text)
	}
}

// stringBody is a string token's text without its prefix and quotes.
func stringBody(text string) string {
	i := strings.IndexAny(text, `'"`)
	if i < 0 {
		return text
	}
	body := text[i:]
	for _, q := range []string{`"""`, `'''`, `"`, `'`} {
		if strings.HasPrefix(body, q) && strings.HasSuffix(body, q) && len(body) >= 2*len(q) {
			return body[len(q) : len(body)-len(q)]
		}
	}
	return body
}

// credentialIn returns the hint of a credential path that s names, "" for
// none. "~/" counts at the start only (a home-relative path).
func credentialIn(s string) string {
	for _, h := range credentialHints {
		if h == "~/" {
			if strings.HasPrefix(s, "~/") || s == "~" {
				return s
			}
			continue
		}
		if strings.Contains(s, h) {
			return h
		}
	}
	return ""
}

// bashWords are the shell's keywords and builtins: a command that is none
// of these (nor a function of the script) is another program, started as
// a subprocess.
var bashWords = []string{
	"if", "then", "elif", "else", "fi", "for", "while", "until", "do", "done", "case", "esac", "in", "function", "select", "time", "!", "[[", "]]", "{", "}",
	".", ":", "[", "alias", "bg", "bind", "break", "builtin", "caller", "cd", "command", "compgen", "complete", "compopt", "continue", "declare", "dirs",
	"disown", "echo", "enable", "eval", "exec", "exit", "export", "false", "fc", "fg", "getopts", "hash", "help", "history", "jobs", "kill", "let",
	"local", "logout", "mapfile", "popd", "printf", "pushd", "pwd", "read", "readarray", "readonly", "return", "set", "shift", "shopt", "source",
	"suspend", "test", "times", "trap", "true", "type", "typeset", "ulimit", "umask", "unalias", "unset", "wait",
}

// shellUses reads a shell tool's body: command substitutions, pipelines,
// background jobs and external commands start programs; network commands
// and /dev/tcp, /dev/udp use the network; $HOME, ~ and credential paths
// read the home folder. The reading is lexical (quotes, comments, here
// documents): what it reports is visible in the text.
func shellUses(src []byte, md *item.Metadata) []use {
	body, base := md.Body, md.BodyPos.Offset
	if md.Form != item.FormCommentHeader || base > len(src) {
		return nil
	}
	functions := map[string]bool{}
	for _, line := range strings.Split(body, "\n") {
		l := strings.TrimSpace(line)
		l = strings.TrimPrefix(l, "function ")
		if i := strings.Index(l, "()"); i > 0 && !strings.ContainsAny(l[:i], " \t$\"'") {
			functions[l[:i]] = true
		}
	}
	var out []use
	sc := &shellScanner{src: body}
	for sc.pos < len(body) {
		w := sc.word()
		if w.text == "" && w.op == "" {
			continue
		}
		add := func(what, why string) {
			out = append(out, use{what: what, off: base + w.start, end: base + w.end, why: why})
		}
		switch {
		case forks(w.op) != "":
			add("subprocess", forks(w.op))
		case w.op != "":
		case w.command:
			name := path.Base(w.text)
			switch {
			case has(shellNetwork, name):
				add("network", name)
				add("subprocess", name)
			case !has(bashWords, w.text) && !functions[w.text] && !strings.HasPrefix(w.raw, "$") && w.text != "((":
				add("subprocess", "the program "+w.text)
			}
		}
		if w.forkAt >= 0 {
			n := 1 // `
			if body[w.forkAt] == '$' {
				n = 2 // $(
			}
			out = append(out, use{what: "subprocess", off: base + w.forkAt, end: base + w.forkAt + n, why: "a command substitution"})
		}
		if w.text != "" {
			switch {
			case strings.Contains(w.raw, "/dev/tcp/") || strings.Contains(w.raw, "/dev/udp/"):
				add("network", "/dev/tcp")
			case strings.Contains(w.raw, "$HOME") || strings.Contains(w.raw, "${HOME}"):
				add("home", "$HOME")
			case credentialIn(w.text) != "":
				add("home", "the path "+credentialIn(w.text))
			}
		}
	}
	return out
}

// forks names a shell operator that starts a process ("" for others).
func forks(op string) string {
	switch op {
	case "|", "|&":
		return "a pipeline"
	case "&":
		return "a background job"
	case "$(", "`":
		return "a command substitution"
	case "<(", ">(":
		return "a process substitution"
	case "(":
		return "a subshell"
	}
	return ""
}

// shellWord is one word or operator of a shell script.
type shellWord struct {
	text, raw  string // the word without quotes; as written
	op         string // an operator instead: | & ; $( ` <( >( ( newline
	command    bool   // the first word of a simple command
	start, end int
	// forkAt is the offset of a command substitution inside the word's
	// double quotes ("$(date)"), -1 for none.
	forkAt int
}

// shellScanner splits a script into words and operators, knowing enough
// of the shell to tell a command's name from its arguments: quotes,
// comments, here documents, arithmetic, case patterns, arrays and
// function definitions.
type shellScanner struct {
	src      string
	pos      int
	command  bool     // the next word starts a command
	target   bool     // the next word is a redirection's target
	caseWant bool     // after case: waiting for in
	casePat  bool     // in a case pattern (| separates alternatives)
	tick     bool     // inside a `...` substitution
	hereNext bool     // the next word is a here document's delimiter
	heredoc  []string // delimiters of here documents opened on this line
	started  bool
}

// commandPrefix are words after which the next word is still a command.
var commandPrefix = []string{"if", "then", "elif", "else", "do", "while", "until", "!", "time", "{", "exec", "command", "builtin", "nohup", "env", "sudo", "xargs", "nice", "timeout"}

func (s *shellScanner) word() shellWord {
	if !s.started {
		s.started, s.command = true, true
	}
	src := s.src
	for s.pos < len(src) {
		if src[s.pos] == ' ' || src[s.pos] == '\t' {
			s.pos++
		} else if strings.HasPrefix(src[s.pos:], "\\\n") {
			s.pos += 2
		} else {
			break
		}
	}
	if s.pos >= len(src) {
		return shellWord{}
	}
	start := s.pos
	op := func(text string, command bool) shellWord {
		s.pos += max(len(text), 1)
		s.command = command
		return shellWord{op: text, start: start, end: s.pos, forkAt: -1}
	}
	rest := src[s.pos:]
	switch c := src[s.pos]; {
	case c == '#':
		for s.pos < len(src) && src[s.pos] != '\n' {
			s.pos++
		}
		return shellWord{}
	case c == '\n':
		s.pos++
		s.command = true
		for _, d := range s.heredoc {
			s.skipHeredoc(d)
		}
		s.heredoc = nil
		return shellWord{op: "\n", start: start, end: s.pos, forkAt: -1}
	case strings.HasPrefix(rest, "$((") || strings.HasPrefix(rest, "(("):
		s.pos = skipParens(src, s.pos+strings.IndexByte(rest, '('))
		return shellWord{text: "((", raw: src[start:s.pos], start: start, end: s.pos, forkAt: -1}
	case strings.HasPrefix(rest, ";;"), strings.HasPrefix(rest, ";&"):
		s.casePat = true
		return op(rest[:2], true)
	case strings.HasPrefix(rest, "||"), strings.HasPrefix(rest, "&&"):
		return op(rest[:2], true)
	case strings.HasPrefix(rest, "$("), strings.HasPrefix(rest, "<("), strings.HasPrefix(rest, ">("):
		return op(rest[:2], true)
	case c == '`':
		s.tick = !s.tick
		if !s.tick {
			return op("", false) // the closing one
		}
		return op("`", true)
	case c == '|' && s.casePat:
		return op("", false) // one pattern or another
	case c == '|':
		if strings.HasPrefix(rest, "|&") {
			return op("|&", true)
		}
		return op("|", true)
	case c == ';':
		return op(";", true)
	case c == '&' && !strings.HasPrefix(rest, "&>"):
		return op("&", true)
	case c == '(' && s.casePat:
		return op("", false) // an optional ( before a pattern
	case c == '(':
		return op("(", true)
	case c == ')' && s.casePat:
		s.casePat = false
		return op("", true)
	case c == ')':
		return op(")", false)
	}
	// A word: up to an unquoted blank or operator.
	w := shellWord{start: start, forkAt: -1}
	var b strings.Builder
	for s.pos < len(src) {
		c := src[s.pos]
		prev := byte(0)
		if s.pos > start {
			prev = src[s.pos-1]
		}
		if c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '`' || c == ')' ||
			c == '|' || (c == '&' && prev != '>' && prev != '<' && !strings.HasPrefix(src[s.pos:], "&>")) {
			break
		}
		switch {
		case c == '(' && strings.HasPrefix(src[s.pos:], "()"):
			b.WriteString("()") // a function definition
			s.pos += 2
		case c == '(' && strings.HasSuffix(b.String(), "="):
			end := skipParens(src, s.pos) // an array
			b.WriteString(src[s.pos:end])
			s.pos = end
		case strings.HasPrefix(src[s.pos:], "$(("):
			end := skipParens(src, s.pos+1) // arithmetic
			b.WriteString(src[s.pos:end])
			s.pos = end
		case strings.HasPrefix(src[s.pos:], "$("):
			goto done // a substitution inside a word: the operator comes next
		case c == '(' && (prev == '<' || prev == '>'):
			goto done
		case c == '(':
			goto done
		case c == '\\' && s.pos+1 < len(src):
			b.WriteByte(src[s.pos+1])
			s.pos += 2
		case c == '\'':
			end := strings.IndexByte(src[s.pos+1:], '\'')
			if end < 0 {
				end = len(src) - s.pos - 1
			}
			b.WriteString(src[s.pos+1 : s.pos+1+end])
			s.pos = min(s.pos+end+2, len(src))
		case c == '"':
			i := s.pos + 1
			for i < len(src) && src[i] != '"' {
				if src[i] == '\\' {
					i++
				} else if (strings.HasPrefix(src[i:], "$(") && !strings.HasPrefix(src[i:], "$((")) || src[i] == '`' {
					if w.forkAt < 0 {
						w.forkAt = i
					}
				}
				i++
			}
			b.WriteString(src[s.pos+1 : min(i, len(src))])
			s.pos = min(i+1, len(src))
		default:
			b.WriteByte(c)
			s.pos++
		}
	}
done:
	if s.pos == start {
		s.pos++ // never stop on a character no case consumes
		return shellWord{}
	}
	w.text, w.raw, w.end = b.String(), src[start:s.pos], s.pos
	if d, ok := strings.CutPrefix(w.raw, "<<"); ok && !strings.HasPrefix(d, "<") {
		d = strings.Trim(strings.TrimPrefix(d, "-"), `'"`)
		if d != "" {
			s.heredoc = append(s.heredoc, d)
		}
	}
	switch {
	case s.target:
		s.target = false
		if s.hereNext {
			s.hereNext = false
			s.heredoc = append(s.heredoc, w.text)
		}
	case isRedirection(w.raw):
		// "> file" names its target next; ">file" and ">&2" do not
		s.target, s.hereNext = redirectionAlone(w.raw)
	case s.casePat:
		// a pattern: its ")" ends it
	case s.caseWant && w.text == "in":
		s.caseWant, s.casePat = false, true
	case w.text == "esac":
		s.casePat = false
	case s.command && w.text == "case":
		s.caseWant, s.command = true, false
	case s.command && (strings.Contains(w.text, "=") && !strings.HasPrefix(w.text, "=")):
		// an assignment before the command
	case s.command && strings.HasSuffix(w.text, "()"):
		s.command = false // a function definition
	case s.command:
		w.command = true
		s.command = has(commandPrefix, w.text)
	}
	return w
}

// skipParens returns the offset just past the parenthesis that closes the
// one at i (quotes are not looked into: arithmetic and arrays rarely hold
// parentheses in strings).
func skipParens(src string, i int) int {
	depth := 0
	for ; i < len(src); i++ {
		switch src[i] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return len(src)
}

// redirectionAlone reports whether a redirection word is its operator
// alone (its target is the next word), and whether that target is a here
// document's delimiter.
func redirectionAlone(raw string) (alone, heredoc bool) {
	r := strings.TrimLeft(raw, "0123456789")
	for _, op := range []string{"&>>", "<<<", "<<-", ">>", "<<", "&>", ">&", "<&", ">|", "<>", ">", "<"} {
		if rest, ok := strings.CutPrefix(r, op); ok {
			return rest == "", rest == "" && (op == "<<" || op == "<<-")
		}
	}
	return false, false
}

func isRedirection(raw string) bool {
	r := strings.TrimLeft(raw, "0123456789")
	return r != "" && (r[0] == '<' || r[0] == '>' || strings.HasPrefix(r, "&>"))
}

// skipHeredoc moves past a here document's body, up to its delimiter line.
func (s *shellScanner) skipHeredoc(delim string) {
	for s.pos < len(s.src) {
		end := strings.IndexByte(s.src[s.pos:], '\n')
		line := s.src[s.pos:]
		if end >= 0 {
			line = s.src[s.pos : s.pos+end]
		}
		s.pos += len(line) + 1
		if strings.TrimLeft(line, "\t") == delim {
			return
		}
	}
}

// jsUses reads a JavaScript or TypeScript tool's code line by line
// (comments skipped): the network and process modules it requires or
// imports, fetch and WebSocket, and the home folder.
func jsUses(src []byte, md *item.Metadata) []use {
	var out []use
	off := 0
	inBlock := false
	for _, line := range strings.SplitAfter(string(src), "\n") {
		code := line
		if inBlock {
			if i := strings.Index(code, "*/"); i >= 0 {
				code = strings.Repeat(" ", i+2) + code[i+2:]
				inBlock = false
			} else {
				code = ""
			}
		}
		if i := strings.Index(code, "/*"); i >= 0 && !strings.Contains(code[i:], "*/") {
			code, inBlock = code[:i], true
		}
		if i := strings.Index(code, "//"); i >= 0 && !strings.Contains(code[:i], "\"") && !strings.Contains(code[:i], "'") && !strings.Contains(code[:i], "`") {
			code = code[:i]
		}
		add := func(at int, n int, what, why string) {
			out = append(out, use{what: what, off: off + at, end: off + at + n, why: why})
		}
		for _, m := range []string{"net", "http", "https", "http2", "dgram", "tls", "dns", "node-fetch", "axios", "undici", "got", "ws"} {
			for _, q := range []string{`"`, `'`} {
				for _, pre := range []string{"", "node:"} {
					lit := q + pre + m + q
					if i := strings.Index(code, lit); i >= 0 && (strings.Contains(code, "require") || strings.Contains(code, "import")) {
						add(i, len(lit), "network", "the module "+pre+m)
					}
				}
			}
		}
		for _, m := range []string{"child_process", "cluster"} {
			for _, q := range []string{`"`, `'`} {
				for _, pre := range []string{"", "node:"} {
					lit := q + pre + m + q
					if i := strings.Index(code, lit); i >= 0 {
						add(i, len(lit), "subprocess", "the module "+pre+m)
					}
				}
			}
		}
		for _, call := range []string{"fetch(", "new WebSocket(", "XMLHttpRequest"} {
			if i := strings.Index(code, call); i >= 0 && (i == 0 || !isIdentByte(code[i-1])) {
				add(i, len(call), "network", strings.TrimSuffix(call, "("))
			}
		}
		for _, h := range []string{"homedir()", "process.env.HOME", "process.env['HOME']", `process.env["HOME"]`} {
			if i := strings.Index(code, h); i >= 0 {
				add(i, len(h), "home", h)
			}
		}
		for _, q := range []string{`"`, `'`, "`"} {
			parts := strings.Split(code, q)
			pos := 0
			for k, p := range parts {
				if k%2 == 1 {
					if h := credentialIn(p); h != "" {
						add(pos, len(p), "home", "the path "+h)
					}
				}
				pos += len(p) + len(q)
			}
		}
		off += len(line)
	}
	_ = md
	return out
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || c == '.' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')
}

// configUses reads a YAML tool's config: a command that is a network
// program.
func configUses(md *item.Metadata) []use {
	cmd := md.Get("config").Get("command")
	if cmd == nil || cmd.Kind != syntax.StringNode {
		return nil
	}
	if name := path.Base(cmd.Str); has(shellNetwork, name) {
		end := cmd.Pos.Offset + len(cmd.Str)
		if cmd.End.IsValid() {
			end = cmd.End.Offset
		}
		return []use{{what: "network", off: cmd.Pos.Offset, end: end, why: "the command " + name}}
	}
	return nil
}
