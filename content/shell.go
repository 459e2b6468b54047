package content

import (
	"fmt"
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Shell code judged on its syntax tree (mvdan.cc/sh, the parser of
// shfmt): "curl … | sh" is a pipeline whose earlier stage runs a
// downloader and whose later stage runs a shell on its input, whatever
// the spacing, quoting, line continuations or variables in between; prose
// that warns against "curl | sh" is not a pipeline. Names are resolved as
// the shell would (quotes removed, backslashes dropped, variables with a
// literal value substituted, the path stripped) and then compared by
// their confusable skeleton, so that "сurl" with a Cyrillic с is curl.

// shellHit is one finding in shell code, at [start, end) of the text
// judged.
type shellHit struct {
	rule       string // fetchexec/...
	start, end int
	msg        string
	warn       bool // a run-time install: a warning
}

// shellJudge walks one shell text.
type shellJudge struct {
	vars       map[string]string // variables with a literal value
	tainted    map[string]string // variables holding downloaded or decoded data: what they hold
	downloaded map[string]string // files a downloader wrote: by whom
	hits       []shellHit
	depth      int
	// base shifts the positions of the hits of a nested script (the
	// argument of sh -c) to the word that holds it.
	base, baseEnd int
	nested        bool
}

// maxShellDepth bounds how deep scripts given to sh -c are followed.
const maxShellDepth = 4

// parseShell parses shell code as bash.
func parseShell(text string) (*syntax.File, error) {
	p := syntax.NewParser(syntax.Variant(syntax.LangBash))
	return p.Parse(strings.NewReader(text), "")
}

// judgeShell judges a shell text; err is the parser's.
func judgeShell(text string) ([]shellHit, error) {
	f, err := parseShell(text)
	if err != nil {
		return nil, err
	}
	j := &shellJudge{vars: map[string]string{}, tainted: map[string]string{}, downloaded: map[string]string{}}
	j.file(f)
	return j.hits, nil
}

func (j *shellJudge) file(f *syntax.File) {
	seenPipes := map[*syntax.BinaryCmd]bool{}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.BinaryCmd:
			if (n.Op == syntax.Pipe || n.Op == syntax.PipeAll) && !seenPipes[n] {
				stages := pipeStages(n, seenPipes)
				j.pipeline(n, stages)
			}
		case *syntax.Stmt:
			if c, ok := n.Cmd.(*syntax.CallExpr); ok {
				j.call(c, n)
			}
		case *syntax.DeclClause:
			for _, a := range n.Args {
				j.assign(a)
			}
		}
		return true
	})
}

// pipeStages flattens a pipeline into its stages, marking the nested
// pipe nodes seen.
func pipeStages(b *syntax.BinaryCmd, seen map[*syntax.BinaryCmd]bool) []*syntax.Stmt {
	seen[b] = true
	var out []*syntax.Stmt
	for _, s := range []*syntax.Stmt{b.X, b.Y} {
		if inner, ok := s.Cmd.(*syntax.BinaryCmd); ok && (inner.Op == syntax.Pipe || inner.Op == syntax.PipeAll) && len(s.Redirs) == 0 {
			out = append(out, pipeStages(inner, seen)...)
			continue
		}
		out = append(out, s)
	}
	return out
}

func (j *shellJudge) hit(rule string, n syntax.Node, warn bool, format string, args ...any) {
	start, end := int(n.Pos().Offset()), int(n.End().Offset())
	if j.nested {
		start, end = j.base, j.baseEnd
	}
	j.hits = append(j.hits, shellHit{rule: rule, start: start, end: end, warn: warn, msg: fmt.Sprintf(format, args...)})
}

// assign records a variable's literal value, or that it holds downloaded
// or decoded data.
func (j *shellJudge) assign(a *syntax.Assign) {
	if a == nil || a.Name == nil || a.Value == nil {
		return
	}
	name := a.Name.Value
	if what := j.fetchedBy(a.Value); what != "" {
		j.tainted[name] = what
		delete(j.vars, name)
		return
	}
	delete(j.tainted, name)
	if v, ok := j.wordText(a.Value); ok {
		j.vars[name] = v
	} else {
		delete(j.vars, name)
	}
}

// wordText is a word's value when it is known without running anything:
// quotes removed, backslash escapes applied, variables of literal value
// substituted.
func (j *shellJudge) wordText(w *syntax.Word) (string, bool) {
	if w == nil {
		return "", false
	}
	var b strings.Builder
	ok := j.partsText(&b, w.Parts, false)
	return b.String(), ok
}

func (j *shellJudge) partsText(b *strings.Builder, parts []syntax.WordPart, quoted bool) bool {
	for _, part := range parts {
		switch p := part.(type) {
		case *syntax.Lit:
			b.WriteString(unescapeShell(p.Value, quoted))
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			if !j.partsText(b, p.Parts, true) {
				return false
			}
		case *syntax.ParamExp:
			if p.Param == nil || p.Exp != nil || p.Repl != nil || p.Slice != nil || p.Index != nil || p.Length || p.Excl {
				return false
			}
			v, ok := j.vars[p.Param.Value]
			if !ok {
				return false
			}
			b.WriteString(v)
		default:
			return false
		}
	}
	return true
}

// unescapeShell drops the backslashes of an unquoted literal (\c is c)
// or of a double-quoted one (only before $ ` " \ and a line break).
func unescapeShell(s string, quoted bool) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			c := s[i+1]
			if !quoted || strings.IndexByte("$`\"\\\n", c) >= 0 {
				if c != '\n' {
					b.WriteByte(c)
				}
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// command is a call with its wrappers (sudo, env, nohup, …) removed.
type command struct {
	name string   // normalised: base name, confusables folded
	raw  string   // the name as resolved
	args []string // the arguments as resolved ("" when not known)
	word []*syntax.Word
	// dynamic: the command name is not known without running (a command
	// substitution or an unknown variable).
	dynamic bool
}

// wrappers run the command that follows them (after their own options).
var wrappers = set{"sudo", "doas", "env", "command", "builtin", "exec",
	"nohup", "time", "nice", "stdbuf", "timeout", "chronic", "unbuffer", "setsid"}

// resolve resolves a call's words and strips its wrappers.
func (j *shellJudge) resolve(c *syntax.CallExpr) command {
	var cmd command
	words := c.Args
	for len(words) > 0 {
		text, ok := j.wordText(words[0])
		name := commandName(text)
		if !ok || !wrappers.has(name) {
			break
		}
		words = words[1:]
		// The wrapper's own options and operands (sudo -u root, env
		// A=b, timeout 10, nice -n 5).
		for len(words) > 0 {
			t, _ := j.wordText(words[0])
			switch {
			case strings.HasPrefix(t, "-"):
				if (name == "sudo" && (t == "-u" || t == "-g" || t == "-C" || t == "-D")) || (name == "nice" && t == "-n") || (name == "env" && (t == "-u" || t == "-C" || t == "-S")) {
					words = words[1:]
				}
				words = words[1:]
				continue
			case name == "env" && strings.Contains(t, "="):
				words = words[1:]
				continue
			case name == "timeout" && t != "" && (t[0] >= '0' && t[0] <= '9'):
				words = words[1:]
				continue
			}
			break
		}
	}
	if len(words) == 0 {
		return cmd
	}
	text, ok := j.wordText(words[0])
	cmd.raw, cmd.name, cmd.dynamic = text, commandName(text), !ok
	cmd.word = words
	for _, w := range words[1:] {
		t, _ := j.wordText(w)
		cmd.args = append(cmd.args, t)
	}
	return cmd
}

// commandName is a command's name as the rules compare it: its base name,
// lower case, without .exe, confusables folded ("сurl" is curl).
func commandName(s string) string {
	s = path.Base(strings.TrimSpace(s))
	s = strings.TrimSuffix(strings.ToLower(s), ".exe")
	if !isASCIIString(s) {
		s = strings.ToLower(Skeleton(s))
	}
	return s
}

var fetchers = set{"curl", "wget", "wget2", "fetch", "iwr", "irm",
	"invoke-webrequest", "invoke-restmethod", "http", "https", "aria2c", "lwp-request",
	"lwp-download", "curlie", "xh"}

var shells = set{"sh", "bash", "zsh", "dash", "ksh", "mksh", "fish",
	"ash", "csh", "tcsh", "busybox", "yash", "pwsh", "powershell"}

var interpreters = set{"python", "python2", "python3", "perl", "ruby", "node",
	"nodejs", "php", "lua", "tclsh", "osascript", "deno", "bun", "pypy", "pypy3", "rscript"}

// isExecutor reports a command that runs code it is given.
func isExecutor(name string) bool {
	if shells.has(name) || interpreters.has(name) || name == "iex" || name == "invoke-expression" {
		return true
	}
	return strings.HasPrefix(name, "python3.") || strings.HasPrefix(name, "python2.")
}

// codeOptions are the options after which an interpreter runs the next
// argument as code (so it does not read its program from its input).
var codeOptions = set{"-c", "-e", "-E", "-m", "-r", "-p", "--eval",
	"--print", "-command", "-Command", "-encodedcommand"}

// runsInput reports whether an executor with these arguments runs what
// it reads on its standard input.
func runsInput(cmd command) bool {
	switch cmd.name {
	case "iex", "invoke-expression":
		return true
	}
	for _, a := range cmd.args {
		switch {
		case a == "-" || a == "/dev/stdin" || a == "-s":
			return true
		case codeOptions.has(a) || strings.HasPrefix(a, "--eval="):
			return false
		case strings.HasPrefix(a, "-"):
			if shells.has(cmd.name) && len(a) > 1 && a[1] != '-' && strings.ContainsRune(a[1:], 'c') {
				return false // sh -xc '…'
			}
			continue
		}
		return false // a script file
	}
	return true
}

// scriptArg is the argument an executor runs as code (sh -c ARG, python
// -c ARG, node -e ARG), or -1.
func scriptArg(cmd command) int {
	for i, a := range cmd.args {
		if codeOptions.has(a) && a != "-m" {
			if i+1 < len(cmd.args) || i+1 < len(cmd.word)-1 {
				return i + 1
			}
			return -1
		}
		if shells.has(cmd.name) && strings.HasPrefix(a, "-") && len(a) > 1 && a[1] != '-' && strings.HasSuffix(a, "c") {
			return i + 1
		}
		if !strings.HasPrefix(a, "-") {
			return -1
		}
	}
	return -1
}

// decoders turn their input into other bytes (base64 -d, xxd -r, …).
func isDecoder(cmd command) bool {
	has := func(opts ...string) bool {
		for _, a := range cmd.args {
			for _, o := range opts {
				if a == o {
					return true
				}
			}
		}
		return false
	}
	switch cmd.name {
	case "base64", "base32", "basenc":
		return has("-d", "--decode", "-D")
	case "xxd":
		return has("-r", "-revert", "-r -p", "-rp")
	case "openssl":
		return has("-d", "-base64", "base64")
	case "gunzip", "zcat", "uudecode", "unxz", "xzcat", "bunzip2", "bzcat", "zstdcat":
		return true
	case "gzip", "xz", "bzip2", "zstd":
		return has("-d", "--decompress", "-dc", "-cd")
	}
	return false
}

// fetchedBy says what downloads the data a word or stage produces ("curl
// https://…"), "" when nothing does: a downloader inside a command or
// process substitution, a variable holding downloaded data, a downloaded
// file read back.
func (j *shellJudge) fetchedBy(n syntax.Node) string {
	what := ""
	syntax.Walk(n, func(m syntax.Node) bool {
		if what != "" {
			return false
		}
		switch m := m.(type) {
		case *syntax.CallExpr:
			cmd := j.resolve(m)
			switch {
			case fetchers.has(cmd.name):
				what = strings.TrimSpace(cmd.raw + " " + firstURL(cmd.args))
			case (cmd.name == "cat" || cmd.name == "<") && len(cmd.args) > 0 && j.downloadedAs(cmd.args[len(cmd.args)-1]) != "":
				what = j.downloadedAs(cmd.args[len(cmd.args)-1])
			case interpreters.has(cmd.name) || strings.HasPrefix(cmd.name, "python"):
				if i := scriptArg(cmd); i >= 0 && i < len(cmd.args) && fetchesInCode(cmd.args[i]) {
					what = cmd.raw + " -c (a download)"
				}
			}
		case *syntax.ParamExp:
			if m.Param != nil && j.tainted[m.Param.Value] != "" {
				what = j.tainted[m.Param.Value]
			}
		}
		return true
	})
	return what
}

// fetchesInCode reports code (of python -c, node -e) that downloads.
func fetchesInCode(code string) bool {
	for _, s := range []string{"urlopen", "requests.get", "requests.post", "httpx.", "urllib", "http.get", "https.get", "fetch(", "axios", "net/http", "open-uri", "LWP::", "Net::HTTP"} {
		if strings.Contains(code, s) {
			return true
		}
	}
	return false
}

// firstURL is the first argument that looks like a URL.
func firstURL(args []string) string {
	for _, a := range args {
		if strings.Contains(a, "://") || strings.HasPrefix(a, "www.") {
			return truncate(a, 80)
		}
	}
	return ""
}

// pipeline judges the stages of a pipeline: data from a downloader (or a
// decoder) that reaches a stage which runs its input as code.
func (j *shellJudge) pipeline(b *syntax.BinaryCmd, stages []*syntax.Stmt) {
	if c, ok := stages[len(stages)-1].Cmd.(*syntax.CallExpr); ok && verifiers.has(j.resolve(c).name) {
		var texts []string
		for _, st := range stages {
			syntax.Walk(st, func(n syntax.Node) bool {
				if w, ok := n.(*syntax.Word); ok {
					if t, ok := j.wordText(w); ok {
						texts = append(texts, t)
					}
				}
				return true
			})
		}
		j.verified(texts)
	}
	source, decoded := "", ""
	for k, st := range stages {
		if k > 0 {
			if c, ok := st.Cmd.(*syntax.CallExpr); ok {
				cmd := j.resolve(c)
				if isExecutor(cmd.name) && runsInput(cmd) || cmd.name == "eval" || (cmd.name == "source" || cmd.name == ".") && (len(cmd.args) == 0 || cmd.args[0] == "/dev/stdin" || cmd.args[0] == "-") {
					switch {
					case source != "":
						j.hit("fetchexec/pipe", b, false, "%s | %s: downloads code and runs it unseen: what runs is whatever the server sends that day, not what was reviewed and signed; put the script in the item (so it is signed), or download it, check its hash, then run it", source, cmd.raw)
						return
					case decoded != "":
						j.hit("fetchexec/decoded-exec", b, false, "decoded data (%s) is run by %s: what runs cannot be read in review; write the code out", decoded, cmd.raw)
						return
					}
				}
				if cmd.dynamic && (source != "" || decoded != "") {
					j.hit("fetchexec/pipe", b, false, "%s is piped into a command whose name is computed at run time: it cannot be told from a shell; name the command", firstOf(source, decoded))
					return
				}
				if isDecoder(cmd) && decoded == "" {
					decoded = strings.Join(append([]string{cmd.raw}, cmd.args...), " ")
				}
			}
		}
		if what := j.fetchedBy(st); what != "" && source == "" {
			source = what
		}
		if k == 0 && source == "" {
			if c, ok := st.Cmd.(*syntax.CallExpr); ok {
				if cmd := j.resolve(c); isDecoder(cmd) {
					decoded = strings.Join(append([]string{cmd.raw}, cmd.args...), " ")
				}
			}
		}
	}
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// call judges one simple command.
func (j *shellJudge) call(c *syntax.CallExpr, st *syntax.Stmt) {
	if len(c.Args) == 0 {
		for _, a := range c.Assigns {
			j.assign(a)
		}
		return
	}
	cmd := j.resolve(c)
	switch {
	case cmd.name == "eval":
		for _, w := range cmd.word[1:] {
			if what := j.fetchedBy(w); what != "" {
				j.hit("fetchexec/eval", st, false, "eval runs downloaded code (%s) unseen; put the code in the item, or download it, check its hash, then run it", what)
				return
			}
		}
		j.nestedScript(cmd, 0, st)
	case cmd.name == "source" || cmd.name == ".":
		if len(cmd.word) > 1 {
			if what := j.fetchedBy(cmd.word[1]); what != "" {
				j.hit("fetchexec/process-substitution", st, false, "%s runs downloaded code (%s) in this shell unseen; put the code in the item, or download it, check its hash, then source it", cmd.raw, what)
			} else if by := j.downloadedAs(cmd.args[0]); by != "" {
				j.hit("fetchexec/download-run", st, false, "%s %s runs a file just downloaded by %s: what runs was never reviewed; check its hash before running it, or put it in the item", cmd.raw, cmd.args[0], by)
			}
		}
	case isExecutor(cmd.name):
		script := scriptArg(cmd)
		for k, w := range cmd.word[1:] {
			if what := j.fetchedBy(w); what != "" {
				if k == script {
					j.hit("fetchexec/eval", st, false, "%s -c runs downloaded code (%s) unseen; put the code in the item, or download it, check its hash, then run it", cmd.raw, what)
				} else {
					j.hit("fetchexec/process-substitution", st, false, "%s runs downloaded code (%s) unseen: what runs is whatever the server sends that day; put the script in the item, or download it, check its hash, then run it", cmd.raw, what)
				}
				return
			}
			if by := j.downloadedAs(cmd.args[k]); by != "" && !strings.HasPrefix(cmd.args[k], "-") {
				j.hit("fetchexec/download-run", st, false, "%s %s runs a file just downloaded by %s: what runs was never reviewed; check its hash before running it, or put it in the item", cmd.raw, cmd.args[k], by)
				return
			}
			if cmd.name == "deno" && k == 1 || cmd.name == "bun" && k == 0 {
				if strings.HasPrefix(cmd.args[k], "https://") || strings.HasPrefix(cmd.args[k], "http://") {
					j.hit("fetchexec/remote-run", st, false, "%s runs code straight from %s: what runs is whatever the server sends that day; vendor it into the item", cmd.raw, cmd.args[k])
					return
				}
			}
		}
		for _, r := range st.Redirs {
			if r.Word == nil {
				continue
			}
			if what := j.fetchedBy(r.Word); what != "" {
				j.hit("fetchexec/process-substitution", st, false, "%s runs downloaded code (%s) unseen; put the script in the item, or download it, check its hash, then run it", cmd.raw, what)
				return
			}
			if t, ok := j.wordText(r.Word); ok && r.Op == syntax.RdrIn && j.downloadedAs(t) != "" && runsInput(cmd) {
				j.hit("fetchexec/download-run", st, false, "%s < %s runs a file just downloaded by %s; check its hash before running it, or put it in the item", cmd.raw, t, j.downloadedAs(t))
				return
			}
		}
		if script >= 0 {
			j.nestedScript(cmd, script, st)
		}
	case j.downloadedAs(cmd.raw) != "":
		j.hit("fetchexec/download-run", st, false, "%s runs a file just downloaded by %s: what runs was never reviewed; check its hash before running it, or put it in the item", cmd.raw, j.downloadedAs(cmd.raw))
	case verifiers.has(cmd.name):
		j.verified(cmd.args)
	case fetchers.has(cmd.name):
		j.recordDownload(cmd, st)
	}
	if what, ok := installs(cmd); ok {
		j.hit("fetchexec/install", st, true, "%s installs packages when the tool runs: what is installed is whatever the registry serves that day, never reviewed or signed; install them beforehand at pinned versions (a lockfile), or vendor them", what)
	}
}

// nestedScript judges the code an executor is given as an argument
// (sh -c '…', eval '…', python -c '…'): a literal script is parsed and
// judged in turn; one computed from a download is reported.
func (j *shellJudge) nestedScript(cmd command, i int, st *syntax.Stmt) {
	if i >= len(cmd.args) {
		return
	}
	w := cmd.word[i+1]
	if what := j.fetchedBy(w); what != "" {
		j.hit("fetchexec/eval", st, false, "%s runs downloaded code (%s) unseen; put the code in the item, or download it, check its hash, then run it", cmd.raw, what)
		return
	}
	script, ok := j.wordText(w)
	if !ok || j.depth >= maxShellDepth {
		return
	}
	if interpreters.has(cmd.name) || strings.HasPrefix(cmd.name, "python") {
		if strings.HasPrefix(cmd.name, "python") {
			for _, h := range judgePython([]byte(script), 0) {
				j.hit(h.rule, st, h.warn, "%s -c: %s", cmd.raw, h.msg)
			}
		}
		return
	}
	f, err := parseShell(script)
	if err != nil {
		return
	}
	inner := &shellJudge{vars: j.vars, tainted: j.tainted, downloaded: j.downloaded, depth: j.depth + 1, nested: true,
		base: int(st.Pos().Offset()), baseEnd: int(st.End().Offset())}
	if j.nested {
		inner.base, inner.baseEnd = j.base, j.baseEnd
	}
	inner.file(f)
	j.hits = append(j.hits, inner.hits...)
}

// recordDownload remembers the file a downloader writes (curl -o F, curl
// -O URL, wget URL, wget -O F, > F).
func (j *shellJudge) recordDownload(cmd command, st *syntax.Stmt) {
	by := strings.TrimSpace(cmd.raw + " " + firstURL(cmd.args))
	url := firstURL(cmd.args)
	for i, a := range cmd.args {
		switch {
		case (a == "-o" || a == "--output" || a == "--output-document") && i+1 < len(cmd.args) && cmd.args[i+1] != "-":
			j.downloaded[cmd.args[i+1]] = by
		case strings.HasPrefix(a, "--output-document=") || strings.HasPrefix(a, "--output="):
			j.downloaded[a[strings.IndexByte(a, '=')+1:]] = by
		case a == "-O" && cmd.name == "wget" && i+1 < len(cmd.args) && cmd.args[i+1] != "-":
			j.downloaded[cmd.args[i+1]] = by
		case a == "-O" && cmd.name == "curl", a == "--remote-name":
			if url != "" {
				j.downloadedBase(url, by)
			}
		}
	}
	if cmd.name == "wget" && url != "" && !contains(cmd.args, "-O") && !contains(cmd.args, "-qO-") && !contains(cmd.args, "-O-") {
		j.downloadedBase(url, by)
	}
	for _, r := range st.Redirs {
		if (r.Op == syntax.RdrOut || r.Op == syntax.AppOut || r.Op == syntax.RdrClob) && r.Word != nil {
			if t, ok := j.wordText(r.Word); ok {
				j.downloaded[t] = by
			}
		}
	}
}

// downloadedAs is who downloaded the file p names ("" for nobody), as a
// path relative to the current folder or not.
func (j *shellJudge) downloadedAs(p string) string {
	if p == "" {
		return ""
	}
	for _, q := range []string{p, path.Clean(p), strings.TrimPrefix(p, "./"), "./" + p} {
		if by := j.downloaded[q]; by != "" {
			return by
		}
	}
	return ""
}

// verifiers check a file against a hash or a signature.
var verifiers = set{"sha256sum", "sha512sum", "sha384sum", "shasum", "b2sum",
	"gpg", "gpgv", "cosign", "minisign", "signify", "ssh-keygen"}

// verified forgets the downloads a hash or signature check names (sha256sum
// -c file.sha256, echo "HASH  file" | sha256sum -c): what runs after it is
// what the hash says.
func (j *shellJudge) verified(texts []string) {
	for f := range j.downloaded {
		name := path.Base(f)
		for _, t := range texts {
			if t != "" && strings.Contains(t, name) {
				delete(j.downloaded, f)
				break
			}
		}
	}
}

// downloadedBase records the file named after a URL's last segment, as
// it would be written in the current folder (plain and as ./name).
func (j *shellJudge) downloadedBase(url, by string) {
	u, _, _ := strings.Cut(url, "?")
	name := path.Base(u)
	if name == "" || name == "/" || name == "." {
		return
	}
	j.downloaded[name] = by
	j.downloaded["./"+name] = by
}

// installs reports a command that installs packages at run time.
func installs(cmd command) (string, bool) {
	a := cmd.args
	first := ""
	if len(a) > 0 {
		first = a[0]
	}
	line := strings.TrimSpace(cmd.raw + " " + strings.Join(a, " "))
	switch cmd.name {
	case "pip", "pip3", "pipx":
		return truncate(line, 80), first == "install" || first == "run"
	case "npm", "pnpm", "yarn", "bun":
		return truncate(line, 80), first == "install" || first == "i" || first == "add" || first == "ci" || first == "exec" || first == "dlx" || first == "x"
	case "npx", "bunx", "pnpx":
		return truncate(line, 80), contains(a, "-y") || contains(a, "--yes") || anyHasSuffix(a, "@latest") || len(a) > 0
	case "uvx":
		return truncate(line, 80), true
	case "uv":
		return truncate(line, 80), first == "pip" && len(a) > 1 && a[1] == "install" || first == "tool" && len(a) > 1 && (a[1] == "run" || a[1] == "install") || first == "add"
	case "go":
		return truncate(line, 80), (first == "install" || first == "run") && anyContains(a, "@")
	case "gem", "cargo":
		return truncate(line, 80), first == "install"
	}
	if strings.HasPrefix(cmd.name, "python") {
		for i := 0; i+2 < len(a); i++ {
			if a[i] == "-m" && a[i+1] == "pip" && a[i+2] == "install" {
				return truncate(line, 80), true
			}
		}
	}
	return "", false
}

func anyHasSuffix(a []string, s string) bool {
	for _, x := range a {
		if strings.HasSuffix(x, s) {
			return true
		}
	}
	return false
}

func anyContains(a []string, s string) bool {
	for _, x := range a {
		if strings.Contains(x, s) {
			return true
		}
	}
	return false
}
