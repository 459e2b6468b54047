package content

import (
	"fmt"
	"strings"

	"github.com/ryekit/rye/item/python"
)

// Python code judged on item/python's tokens (the tokens the metadata
// reader uses, so a string or a comment means the same to both): a call
// of exec, eval or compile (or of pickle.loads) whose argument holds data
// a download or a decoder produced, directly or through a variable
// assigned from one; and the commands given to os.system, subprocess and
// their kin, judged as shell code.

// pyCode is a Python file's tokens, read once.
type pyCode struct {
	toks []python.Token
	err  error
}

func (p *parsed) pyCode() *pyCode {
	p.pyOnce.Do(func() {
		toks, err := python.Tokens(p.src)
		p.py = &pyCode{toks: toks, err: err}
	})
	return p.py
}

// Names a download or a decoder is called by (the last part of a dotted
// name), and the modules whose every call downloads.
var (
	pyFetchNames  = set{"urlopen", "urlretrieve"}
	pyFetchMods   = []string{"requests.", "httpx.", "urllib3.", "aiohttp.", "http.client.", "pycurl.", "socket.", "urllib.request.", "urllib2.", "wget."}
	pyDecodeNames = set{"b64decode", "b32decode", "b16decode", "a85decode", "b85decode",
		"decodebytes", "decodestring", "standard_b64decode", "urlsafe_b64decode", "unhexlify",
		"a2b_base64", "a2b_hex", "fromhex", "decompress"}
	pyExecSinks  = set{"exec", "eval", "compile", "execfile"}
	pyLoadSinks  = set{"pickle.loads", "cPickle.loads", "dill.loads", "cloudpickle.loads", "marshal.loads", "pickle.load"}
	pyShellSinks = []string{"os.system", "os.popen", "os.exec", "os.spawn", "subprocess.", "commands.getoutput", "commands.getstatusoutput",
		"pty.spawn", "asyncio.create_subprocess_shell", "asyncio.create_subprocess_exec"}
)

// pyJudge walks one Python text.
type pyJudge struct {
	src     []byte
	toks    []python.Token
	alias   map[string]string // local name -> dotted name it stands for
	tainted map[string]string // variable -> what produced its data
	consts  map[string]string // variable -> literal string value
	sinks   map[string]bool   // local names bound to exec or eval
	hits    []shellHit
}

// judgePython judges Python source (offsets from base); a file that does
// not tokenize is not judged (the parse analyzer reports it).
func judgePython(src []byte, base int) []shellHit {
	toks, err := python.Tokens(src)
	if err != nil {
		return nil
	}
	return judgePyTokens(src, toks, base)
}

func judgePyTokens(src []byte, toks []python.Token, base int) []shellHit {
	j := &pyJudge{src: src, alias: map[string]string{}, tainted: map[string]string{}, consts: map[string]string{}, sinks: map[string]bool{}}
	for _, t := range toks {
		if t.Kind != python.Comment {
			j.toks = append(j.toks, t)
		}
	}
	// Two passes: a function defined above its use may call exec on a
	// name assigned further down.
	for pass := 0; pass < 2; pass++ {
		j.hits = j.hits[:0]
		for start := 0; start < len(j.toks); {
			end := start
			for end < len(j.toks) && j.toks[end].Kind != python.Newline {
				end++
			}
			j.line(j.toks[start:end])
			start = end + 1
		}
	}
	for i := range j.hits {
		j.hits[i].start += base
		j.hits[i].end += base
	}
	return j.hits
}

func (j *pyJudge) text(t python.Token) string { return string(j.src[t.Start:t.End]) }

func (j *pyJudge) isOp(t python.Token, s string) bool {
	return t.Kind == python.Op && t.End-t.Start == len(s) && string(j.src[t.Start:t.End]) == s
}

// dotted reads NAME(.NAME)* at toks[i:], resolved through the imports;
// n is how many tokens it took.
func (j *pyJudge) dotted(toks []python.Token, i int) (name string, n int) {
	if i >= len(toks) || toks[i].Kind != python.Name {
		return "", 0
	}
	parts := []string{j.text(toks[i])}
	n = 1
	for i+n+1 < len(toks) && j.isOp(toks[i+n], ".") && toks[i+n+1].Kind == python.Name {
		parts = append(parts, j.text(toks[i+n+1]))
		n += 2
	}
	if a, ok := j.alias[parts[0]]; ok {
		parts[0] = a
	}
	return strings.Join(parts, "."), n
}

// line judges one logical line.
func (j *pyJudge) line(toks []python.Token) {
	if len(toks) == 0 {
		return
	}
	switch j.text(toks[0]) {
	case "import":
		j.imports(toks[1:], "")
		return
	case "from":
		if len(toks) > 3 {
			mod, n := j.dottedRaw(toks, 1)
			if n > 0 && 1+n < len(toks) && j.text(toks[1+n]) == "import" {
				j.imports(toks[2+n:], mod)
			}
		}
		return
	}
	j.assignment(toks)
	j.withAs(toks)
	j.calls(toks)
}

// dottedRaw is dotted without alias resolution.
func (j *pyJudge) dottedRaw(toks []python.Token, i int) (string, int) {
	saved := j.alias
	j.alias = nil
	name, n := j.dotted(toks, i)
	j.alias = saved
	return name, n
}

// imports records "import a.b as c" and "from m import a as b".
func (j *pyJudge) imports(toks []python.Token, from string) {
	for i := 0; i < len(toks); {
		if toks[i].Kind != python.Name {
			i++
			continue
		}
		name, n := j.dottedRaw(toks, i)
		i += n
		local := name
		if i+1 < len(toks) && j.text(toks[i]) == "as" && toks[i+1].Kind == python.Name {
			local = j.text(toks[i+1])
			i += 2
		} else if from == "" {
			local, _, _ = strings.Cut(name, ".")
			name = local
		}
		if from != "" {
			name = from + "." + name
		}
		if local != name {
			j.alias[local] = name
		}
	}
}

// assignment records NAME = … (and a, b = …): taint, literal strings and
// aliases of exec.
func (j *pyJudge) assignment(toks []python.Token) {
	eq := -1
	depth := 0
	for k, t := range toks {
		if t.Kind != python.Op {
			continue
		}
		switch j.text(t) {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			depth--
		case "=", ":=":
			if depth == 0 && eq < 0 {
				eq = k
			}
		}
	}
	if eq <= 0 || eq+1 >= len(toks) {
		return
	}
	var names []string
	for _, t := range toks[:eq] {
		if t.Kind == python.Name {
			names = append(names, j.text(t))
		}
	}
	rhs := toks[eq+1:]
	what := j.produced(rhs)
	for _, name := range names {
		delete(j.tainted, name)
		delete(j.consts, name)
		delete(j.sinks, name)
		if what != "" {
			j.tainted[name] = what
		}
	}
	if len(names) == 1 {
		if len(rhs) == 1 && rhs[0].Kind == python.String {
			if v, ok := python.StringValue(j.src, rhs[0]); ok {
				j.consts[names[0]] = v
			}
		}
		if d, n := j.dotted(rhs, 0); n == len(rhs) && (pyExecSinks.has(strings.TrimPrefix(strings.TrimPrefix(d, "builtins."), "__builtins__.")) || j.sinks[d]) {
			j.sinks[names[0]] = true
		}
	}
}

// withAs records "with requests.get(u) as r:".
func (j *pyJudge) withAs(toks []python.Token) {
	if j.text(toks[0]) != "with" && !(j.text(toks[0]) == "async" && len(toks) > 1 && j.text(toks[1]) == "with") {
		return
	}
	for k := 1; k+1 < len(toks); k++ {
		if j.text(toks[k]) == "as" && toks[k+1].Kind == python.Name {
			if what := j.produced(toks[:k]); what != "" {
				j.tainted[j.text(toks[k+1])] = what
			}
		}
	}
}

// produced says what downloaded or decoded the data an expression holds
// ("" for neither).
func (j *pyJudge) produced(toks []python.Token) string {
	for k := 0; k < len(toks); k++ {
		t := toks[k]
		if t.Kind != python.Name {
			continue
		}
		if k > 0 && j.isOp(toks[k-1], ".") {
			last := j.text(t)
			if pyDecodeNames.has(last) || pyFetchNames.has(last) {
				return j.text(t)
			}
			continue
		}
		name, n := j.dotted(toks, k)
		last := name[strings.LastIndexByte(name, '.')+1:]
		called := k+n < len(toks) && j.isOp(toks[k+n], "(")
		switch {
		case called && (pyFetchNames.has(last) || hasAnyPrefix(name, pyFetchMods)):
			return name + " (a download)"
		case called && (pyDecodeNames.has(last) || name == "codecs.decode"):
			return name + " (decoded data)"
		case called && hasAnyPrefix(name, pyShellSinks) && j.argsMention(toks[k+n:], fetchers):
			return name + " (a download)"
		case j.tainted[name] != "":
			return j.tainted[name]
		case j.tainted[strings.SplitN(name, ".", 2)[0]] != "":
			return j.tainted[strings.SplitN(name, ".", 2)[0]]
		}
		k += n - 1
	}
	return ""
}

// argsMention reports a call (toks at its "(") whose string arguments
// name one of the commands.
func (j *pyJudge) argsMention(toks []python.Token, names set) bool {
	end := j.closing(toks, 0)
	for _, t := range toks[:end] {
		if t.Kind == python.String {
			if v, ok := python.StringValue(j.src, t); ok {
				for _, w := range strings.Fields(v) {
					if names.has(commandName(w)) {
						return true
					}
				}
			}
		}
	}
	return false
}

// closing is the index just past the bracket that closes toks[open].
func (j *pyJudge) closing(toks []python.Token, open int) int {
	depth := 0
	for k := open; k < len(toks); k++ {
		if toks[k].Kind != python.Op {
			continue
		}
		switch j.text(toks[k]) {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			depth--
			if depth == 0 {
				return k + 1
			}
		}
	}
	return len(toks)
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) || s == strings.TrimSuffix(p, ".") {
			return true
		}
	}
	return false
}

// calls judges the calls of a line.
func (j *pyJudge) calls(toks []python.Token) {
	for k := 0; k < len(toks); k++ {
		if toks[k].Kind != python.Name || k > 0 && j.isOp(toks[k-1], ".") {
			continue
		}
		name, n := j.dotted(toks, k)
		if k+n >= len(toks) || !j.isOp(toks[k+n], "(") {
			k += n - 1
			continue
		}
		open := k + n
		end := j.closing(toks, open)
		args := toks[open+1 : max(open+1, end-1)]
		short := strings.TrimPrefix(strings.TrimPrefix(name, "builtins."), "__builtins__.")
		span := [2]int{toks[k].Start, toks[end-1].End}
		switch {
		case pyExecSinks.has(short) || j.sinks[name]:
			if what := j.produced(args); what != "" {
				j.hit("fetchexec/python-exec", span, false, "%s() runs %s: code that was never reviewed or signed runs with the tool's rights; put the code in the tool", short, what)
			}
		case pyLoadSinks.has(name):
			if what := j.produced(args); what != "" {
				j.hit("fetchexec/python-exec", span, false, "%s() of %s runs whatever code the data holds (unpickling runs code); never unpickle data from outside", name, what)
			}
		case hasAnyPrefix(name, pyShellSinks):
			j.shellArgs(name, args, span)
		}
		k += n - 1
	}
}

func (j *pyJudge) hit(rule string, span [2]int, warn bool, format string, a ...any) {
	j.hits = append(j.hits, shellHit{rule: rule, start: span[0], end: span[1], warn: warn, msg: fmt.Sprintf(format, a...)})
}

// shellArgs judges the command a process-starting call is given: a
// string (shell=True, os.system), or a list of strings (the words of the
// command), literal or through a variable holding one.
func (j *pyJudge) shellArgs(name string, args []python.Token, span [2]int) {
	var words []string
	list := len(args) > 0 && j.isOp(args[0], "[") || len(args) > 0 && j.isOp(args[0], "(")
	for k, t := range args {
		var v string
		var ok bool
		switch {
		case t.Kind == python.String:
			v, ok = python.StringValue(j.src, t)
		case t.Kind == python.Name && !(k > 0 && j.isOp(args[k-1], ".")) && !(k+1 < len(args) && j.isOp(args[k+1], "=")):
			v, ok = j.consts[j.text(t)]
			if !ok && j.tainted[j.text(t)] != "" && !list {
				j.hit("fetchexec/python-exec", span, false, "%s() runs a command built from %s; put the command in the tool", name, j.tainted[j.text(t)])
				return
			}
		}
		if !ok {
			continue
		}
		if list {
			words = append(words, v)
			continue
		}
		j.judgeCommand(name, v, span)
	}
	if list && len(words) > 0 {
		quoted := make([]string, len(words))
		for i, w := range words {
			quoted[i] = shellQuote(w)
		}
		j.judgeCommand(name, strings.Join(quoted, " "), span)
	}
}

// judgeCommand judges a command line a process-starting call runs.
func (j *pyJudge) judgeCommand(name, cmdline string, span [2]int) {
	hits, err := judgeShell(cmdline)
	if err != nil {
		return
	}
	for _, h := range hits {
		j.hit(h.rule, span, h.warn, "%s(): %s", name, h.msg)
	}
}

// shellQuote quotes a word for the shell.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '-' || r == '_' || r == '.' || r == '/' || r == '=' || r == ':' || r == '@' || r == '+' || r == ',' ||
			'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
