package content

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/item/syntax"
)

// The fetchexec rules: code that downloads code and runs it, and
// installs that happen when a tool runs. What runs then is whatever a
// server sends that day, never what was reviewed and signed.
//
// Where: a tool's code (shell tools on their syntax tree, Python tools on
// their tokens, the command lines of YAML and TOML tools, the strings of
// JavaScript tools), and the fenced code blocks and inline code of
// Markdown items, which an agent may run: in a directive (instructions by
// design) a finding is an error, in a knowledge entry (documentation) a
// warning, and run-time installs are not reported in knowledge at all.

// fetchexec runs the fetchexec rules.
func (p *parsed) fetchexec() []Finding {
	var hits []shellHit
	switch p.form {
	case formShell:
		// The leading comment lines (the #! line, the signature, the
		// metadata header) are not code: the parser is given the rest,
		// and positions are moved back by as much.
		skip := leadingComments(p.src)
		h, err := judgeShell(string(p.src[skip:]))
		if err != nil {
			off, msg := shellErrorOffset(p.src[skip:], err)
			return add(nil, "fetchexec/unparsed", Error, skip+off, skip+off, fmt.Sprintf("the script does not parse as bash (%s): its commands cannot be judged; fix the syntax", shiftLines(msg, p.src[:skip])))
		}
		for i := range h {
			h[i].start += skip
			h[i].end += skip
		}
		hits = h
	case formPython:
		if !p.pySinkNamed() {
			return nil // no call the rules look at: nothing to tokenize
		}
		py := p.pyCode()
		if py.err != nil {
			return nil // the parse analyzer reports it, and signing refuses it
		}
		hits = judgePyTokens(p.src, py.toks, 0)
	case formJS:
		hits = judgeJS(p.src)
	case formYAML:
		if p.kind == item.Tool && p.meta != nil {
			hits = judgeConfig(p.meta.Fields.Get("config"))
			hits = append(hits, judgeConfig(p.meta.Fields.Get("env_config"))...)
		}
	case formMarkdown:
		return p.markdownCode()
	}
	var out []Finding
	for _, h := range hits {
		sev := Error
		if h.warn {
			sev = warning
		}
		out = add(out, h.rule, sev, h.start, h.end, h.msg)
	}
	return out
}

// leadingComments is the length of the comment and blank lines that
// start a shell script: they cannot be inside a string or a here-document.
func leadingComments(src []byte) int {
	off := 0
	for off < len(src) {
		next := lineEndAt(src, off)
		line := bytes.TrimLeft(src[off:next], " \t")
		if len(line) > 0 && line[0] != '#' && line[0] != '\n' && line[0] != '\r' {
			return off
		}
		off = next
	}
	return off
}

// shiftLines renumbers the "line:col:" a parser error starts with by the
// lines of skipped.
func shiftLines(msg string, skipped []byte) string {
	var line, col int
	if _, err := fmt.Sscanf(msg, "%d:%d:", &line, &col); err != nil || line <= 0 {
		return msg
	}
	_, rest, _ := strings.Cut(msg, ":")
	_, rest, _ = strings.Cut(rest, ":")
	return fmt.Sprintf("%d:%d:%s", line+bytes.Count(skipped, []byte("\n")), col, rest)
}

// pySinkNamed reports whether Python source names a call the rules look
// at (exec, eval, compile, pickle's loads, os.system, subprocess, …), as
// a word: the rules can only find such a call by its name, so a file that
// names none needs no tokens.
func (p *parsed) pySinkNamed() bool {
	for _, h := range p.hits() {
		if h.needle.kind == needlePySink && (h.start == 0 || !wordByte(p.src[h.start-1])) && (h.end == len(p.src) || !wordByte(p.src[h.end])) {
			return true
		}
	}
	return false
}

// pySinks are the names pySinkNamed looks for (in any case: a needless
// tokenization at worst).
var pySinks = []string{"exec", "eval", "compile", "execfile", "loads", "load", "system", "subprocess", "popen", "spawn", "spawnl",
	"spawnv", "execl", "execv", "execvp", "execlp", "getoutput", "getstatusoutput", "create_subprocess_shell",
	"create_subprocess_exec", "run", "call", "check_call", "check_output", "Popen", "pty"}

// shellErrorOffset finds the offset of a parse error's line:col.
func shellErrorOffset(src []byte, err error) (int, string) {
	msg := err.Error()
	var line, col int
	if _, e := fmt.Sscanf(msg, "%d:%d:", &line, &col); e == nil && line > 0 {
		idx := syntax.NewLineIndex(src)
		if start := idx.LineStart(line); start >= 0 {
			return min(start+col-1, len(src)), msg
		}
	}
	return 0, msg
}

// judgeConfig judges the command lines of a tool's config: a map with a
// "command" and its "args", and every string that names a downloader or
// an installer (a script given to a shell).
func judgeConfig(n *syntax.Node) []shellHit {
	var hits []shellHit
	var walk func(n *syntax.Node, depth int)
	walk = func(n *syntax.Node, depth int) {
		if n == nil || depth > 32 {
			return
		}
		switch n.Kind {
		case syntax.MapNode:
			if c := n.Get("command"); c != nil && c.Kind == syntax.StringNode {
				words := []string{shellQuote(c.Str)}
				risky := isExecutor(commandName(c.Str)) || mentionsCommand(c.Str) || commandName(c.Str) == "eval"
				if a := n.Get("args"); a != nil && a.Kind == syntax.ListNode {
					for _, it := range a.Items {
						if it.Kind == syntax.StringNode {
							words = append(words, shellQuote(it.Str))
							risky = risky || mentionsCommand(it.Str)
						}
					}
				}
				// The command is written out: one that runs no shell or
				// interpreter and names no downloader or installer cannot
				// be judged anything.
				if risky {
					if h, err := judgeShell(strings.Join(words, " ")); err == nil {
						hits = append(hits, at(h, c.Pos.Offset, nodeEnd(n))...)
					}
				}
			}
			for _, f := range n.Fields {
				if f.Key == "command" || f.Key == "args" {
					continue
				}
				walk(f.Value, depth+1)
			}
		case syntax.ListNode:
			for _, it := range n.Items {
				walk(it, depth+1)
			}
		case syntax.StringNode:
			if mentionsCommand(n.Str) {
				if h, err := judgeShell(n.Str); err == nil {
					hits = append(hits, at(h, n.Pos.Offset, nodeEnd(n))...)
				}
			}
		}
	}
	walk(n, 0)
	return hits
}

func nodeEnd(n *syntax.Node) int {
	if n.End.IsValid() && n.End.Offset > n.Pos.Offset {
		return n.End.Offset
	}
	return n.Pos.Offset + max(len(n.Raw), 1)
}

// at places hits found in a value at [start, end) of the file.
func at(hits []shellHit, start, end int) []shellHit {
	for i := range hits {
		hits[i].start, hits[i].end = start, end
	}
	return hits
}

// mentionsCommand reports text that names a downloader, a decoder or an
// installer (folded for confusables): worth parsing as a command.
func mentionsCommand(s string) bool {
	if strings.ContainsAny(s, "'\"\\") {
		// Quotes and backslashes split nothing for the shell: "cu"'rl'.
		s = strings.NewReplacer("'", "", "\"", "", "\\", "").Replace(s)
	}
	for _, w := range strings.FieldsFunc(s, func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\n' || r == '|' || r == ';' || r == '&' || r == '(' || r == ')' || r == '`' || r == '"' || r == '\'' || r == '$' || r == '<'
	}) {
		name := commandName(w)
		if fetchers.has(name) || name == "base64" || name == "xxd" || name == "pip" || name == "pip3" || name == "npx" || name == "uvx" ||
			name == "npm" || name == "eval" || name == "pipx" || name == "bunx" || name == "uv" || name == "gem" || name == "cargo" || name == "go" {
			return true
		}
	}
	return false
}

// shellInfos are the info strings of fenced blocks of shell code; a block
// without one may be shell too.
var shellInfos = set{"sh", "bash", "shell", "zsh", "console", "shell-session",
	"shellsession", "terminal", "ksh", "fish", "", "text", "txt", "bat", "cmd",
	"powershell", "ps1", "pwsh", "ps", "dockerfile", "makefile", "yaml", "yml"}

// markdownCode judges the code of a Markdown item: its fenced blocks and
// its inline code.
func (p *parsed) markdownCode() []Finding {
	md := p.markdown()
	var out []Finding
	directive := p.kind == item.Directive
	sev := func(h shellHit) (severity, bool) {
		switch {
		case h.warn && directive:
			return warning, true
		case h.warn:
			return "", false
		case directive:
			return Error, true
		}
		return warning, true
	}
	report := func(hits []shellHit, where string) {
		for _, h := range hits {
			if s, ok := sev(h); ok {
				out = add(out, h.rule, s, h.start, h.end, h.msg+" ("+where+")")
			}
		}
	}
	for _, b := range md.blocks {
		if b.meta {
			continue
		}
		body := p.src[b.bodyStart:b.bodyEnd]
		where := "in a code block of a " + string(p.kind)
		switch {
		case b.info == "python" || b.info == "py" || b.info == "python3":
			report(judgePython(body, b.bodyStart), where)
		case b.info == "powershell" || b.info == "ps1" || b.info == "pwsh":
			report(judgePowerShell(body, b.bodyStart), where)
			report(p.blockShell(body, b.bodyStart, b.info), where)
		case shellInfos.has(b.info):
			if !mentionsCommandBytes(body) {
				continue
			}
			report(p.blockShell(body, b.bodyStart, b.info), where)
		}
	}
	report(p.inlineCodeShell(md), "in inline code of a "+string(p.kind))
	return out
}

func mentionsCommandBytes(b []byte) bool { return !isASCII(b) || mentionsCommand(string(b)) }

// blockShell judges a fenced block as shell code: whole, else line by
// line (a block of documentation may hold a line that is not shell), and
// a line that does not parse is looked at word by word.
func (p *parsed) blockShell(body []byte, base int, info string) []shellHit {
	text := consolePrompts(string(body), info)
	if hits, err := judgeShell(text); err == nil {
		return shift(hits, base, text, body)
	}
	var out []shellHit
	for off := 0; off < len(body); {
		end := lineEndAt(body, off)
		line := consolePrompts(string(body[off:end]), info)
		if hits, err := judgeShell(line); err == nil {
			for _, h := range hits {
				h.start, h.end = base+off, base+end
				out = append(out, h)
			}
		} else if h, ok := wordPipe(line); ok {
			h.start, h.end = base+off, base+end
			out = append(out, h)
		}
		off = end
	}
	return out
}

// shift moves hits found in text (body with prompts removed) to the
// file: their lines are body's lines.
func shift(hits []shellHit, base int, text string, body []byte) []shellHit {
	if len(text) == len(body) {
		for i := range hits {
			hits[i].start += base
			hits[i].end += base
		}
		return hits
	}
	// Prompts were removed: place each hit on its line.
	tIdx, bIdx := syntax.NewLineIndex([]byte(text)), syntax.NewLineIndex(body)
	for i := range hits {
		line := tIdx.Pos(hits[i].start).Line
		s := bIdx.LineStart(line)
		if s < 0 {
			s = 0
		}
		hits[i].start, hits[i].end = base+s, base+lineEndAt(body, s)
	}
	return hits
}

// consolePrompts removes the "$ " prompts of a console session.
func consolePrompts(text, info string) string {
	if !strings.Contains(text, "$ ") {
		return text
	}
	lines := strings.Split(text, "\n")
	prompted := false
	for _, l := range lines {
		if strings.HasPrefix(strings.TrimLeft(l, " "), "$ ") {
			prompted = true
		}
	}
	if !prompted && info != "console" {
		return text
	}
	for i, l := range lines {
		t := strings.TrimLeft(l, " ")
		if strings.HasPrefix(t, "$ ") {
			lines[i] = t[2:]
		} else if info == "console" || info == "shell-session" {
			lines[i] = "" // output of the session
		}
	}
	return strings.Join(lines, "\n")
}

// wordPipe looks at a line the shell parser refuses word by word: a
// downloader, then "|", then a shell or an interpreter.
func wordPipe(line string) (shellHit, bool) {
	fields := strings.Fields(strings.NewReplacer("|", " | ", "(", " ", ")", " ", "`", " ", "\"", " ", "'", " ").Replace(line))
	fetch := ""
	for k, f := range fields {
		name := commandName(f)
		switch {
		case fetchers.has(name) && fetch == "":
			fetch = f
		case f == "|" && fetch != "" && k+1 < len(fields):
			next := commandName(fields[k+1])
			if next == "sudo" && k+2 < len(fields) {
				next = commandName(fields[k+2])
			}
			if isExecutor(next) || next == "eval" {
				return shellHit{rule: "fetchexec/pipe", msg: fmt.Sprintf("%s … | %s: downloads code and runs it unseen (the line does not parse as shell, but reads as a download piped into %s); put the script in the item, or download it, check its hash, then run it", fetch, next, next)}, true
			}
		}
	}
	return shellHit{}, false
}

// inlineCodeShell judges the `inline code` of a Markdown item's text that
// names a downloader or an installer.
func (p *parsed) inlineCodeShell(md *markdown) []shellHit {
	var out []shellHit
	src := p.src
	for off := 0; off < len(src); {
		i := bytes.IndexByte(src[off:], '`')
		if i < 0 {
			break
		}
		start := off + i
		if placeIn(md.spans, start, placeProse) != placeProse {
			off = start + 1
			continue
		}
		n := 0
		for start+n < len(src) && src[start+n] == '`' {
			n++
		}
		closeAt := bytes.Index(src[start+n:min(len(src), start+n+4096)], src[start:start+n])
		if closeAt < 0 {
			off = start + n
			continue
		}
		code := string(src[start+n : start+n+closeAt])
		end := start + n + closeAt + n
		off = end
		if strings.Contains(code, "\n\n") || !mentionsCommand(code) {
			continue
		}
		if !strings.Contains(code, "://") && !strings.Contains(code, "$") && !strings.Contains(code, "www.") {
			continue // "never run `curl | sh`": an abstract mention, with no address to fetch
		}
		if hits, err := judgeShell(code); err == nil {
			out = append(out, at(hits, start, end)...)
		} else if h, ok := wordPipe(code); ok {
			h.start, h.end = start, end
			out = append(out, h)
		}
	}
	return out
}

// judgePowerShell finds PowerShell's download-and-run: Invoke-Expression
// (iex) of what Invoke-WebRequest, Invoke-RestMethod or a WebClient
// downloads, on one line.
func judgePowerShell(body []byte, base int) []shellHit {
	var out []shellHit
	for off := 0; off < len(body); {
		end := lineEndAt(body, off)
		low := strings.ToLower(string(body[off:end]))
		exec := strings.Contains(low, "iex") || strings.Contains(low, "invoke-expression")
		fetch := strings.Contains(low, "iwr") || strings.Contains(low, "irm") || strings.Contains(low, "invoke-webrequest") ||
			strings.Contains(low, "invoke-restmethod") || strings.Contains(low, "downloadstring") || strings.Contains(low, "net.webclient")
		if exec && fetch {
			out = append(out, shellHit{rule: "fetchexec/pipe", start: base + off, end: base + end,
				msg: "Invoke-Expression of downloaded code: what runs is whatever the server sends that day; put the script in the item, or download it, check its hash, then run it"})
		}
		off = end
	}
	return out
}

// judgeJS judges a JavaScript or TypeScript tool: its string literals that
// hold a command line (given to child_process), and eval or new Function
// of downloaded or decoded data on one line.
func judgeJS(src []byte) []shellHit {
	var out []shellHit
	for _, s := range jsStrings(src) {
		if !mentionsCommand(s.value) {
			continue
		}
		if hits, err := judgeShell(s.value); err == nil {
			out = append(out, at(hits, s.start, s.end)...)
		}
	}
	for off := 0; off < len(src); {
		end := lineEndAt(src, off)
		line := string(src[off:end])
		if (strings.Contains(line, "eval(") || strings.Contains(line, "Function(") || strings.Contains(line, "vm.run")) &&
			(strings.Contains(line, "fetch(") || strings.Contains(line, "axios") || strings.Contains(line, "http.get") || strings.Contains(line, "https.get") ||
				strings.Contains(line, "atob(") || strings.Contains(line, "'base64'") || strings.Contains(line, `"base64"`)) {
			out = append(out, shellHit{rule: "fetchexec/js-eval", start: off, end: end,
				msg: "eval of downloaded or decoded data: code that was never reviewed or signed runs with the tool's rights; put the code in the tool"})
		}
		off = end
	}
	return out
}

// jsString is a string literal of a JavaScript file and its value.
type jsString struct {
	start, end int
	value      string
}

// jsStrings lists the string literals of JavaScript source, skipping
// comments (a small lexer: regular expression literals are not told from
// division, a limit documented in docs/lint.md).
func jsStrings(src []byte) []jsString {
	var out []jsString
	for i := 0; i < len(src); i++ {
		switch c := src[i]; {
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			j := strings.Index(string(src[i+2:]), "*/")
			if j < 0 {
				return out
			}
			i += j + 3
		case c == '"' || c == '\'' || c == '`':
			var b strings.Builder
			j := i + 1
			for ; j < len(src) && src[j] != c; j++ {
				if src[j] == '\\' && j+1 < len(src) {
					j++
					switch src[j] {
					case 'n':
						b.WriteByte('\n')
					case 't':
						b.WriteByte('\t')
					default:
						b.WriteByte(src[j])
					}
					continue
				}
				if c != '`' && src[j] == '\n' {
					break
				}
				b.WriteByte(src[j])
			}
			out = append(out, jsString{start: i, end: min(j+1, len(src)), value: b.String()})
			i = j
		}
	}
	return out
}
