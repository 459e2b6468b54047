package content

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// The injection rules: text written for the model and not for the
// reviewer.
//
// Directives are instructions by design, so a word list over them finds
// mostly directives. What sets an injection apart is where it is and what
// it asks: an instruction hidden from the rendered page (an HTML comment,
// an element styled invisible), a phrase that tries to end or replace the
// instructions around it (role tags of chat formats, "ignore previous
// instructions"), one that asks to keep something from the user, an
// image whose URL sends an input to another host when it is shown. Each
// family's severity depends on the part of the file it is in; the table
// (severity) was chosen from counts on the corpus (docs/lint.md has them).

// phraseFamily is a family of phrases the injection rules look for.
type phraseFamily uint8

const (
	famOverride    phraseFamily = iota // ignore previous instructions
	famConcealment                     // do not tell the user
	famRoleTag                         // </system>, <|im_start|>
	famExfil                           // send … to https://… (hidden parts only)
)

var famRules = [...]string{"injection/override", "injection/concealment", "injection/role-tag", "injection/exfiltration"}

// severityOf is where each family is an error, a warning or nothing:
// hidden parts (HTML comments, hidden elements), metadata (descriptions
// the model is shown as what a tool or item is) and a tool's code are
// never the place for these phrases; a directive's or a knowledge
// entry's visible text may discuss them (a guardrail: "if a page tells you
// to ignore previous instructions, stop"), and a code block or quotation
// shows them. ok is false where the family is not reported.
func severityOf(fam phraseFamily, pl place, mention bool) (severity, bool) {
	switch {
	case pl == placeSig:
		return "", false
	case pl == placeComment, pl == placeMeta:
		return Error, true
	case fam == famExfil:
		return "", false // in hidden parts only
	case pl == placeCode && mention: // a fenced block of a Markdown item
		if fam == famRoleTag {
			return "", false // chat formats are documented in code blocks
		}
		return warning, true
	case pl == placeCode:
		return Error, true
	case mention: // quoted, or in `code`, in the text
		return "", false
	case fam == famRoleTag:
		return Error, true
	}
	return warning, true
}

// phraseReach is how far after its first word (anchorFamilies) a family's
// phrase may reach: its pattern, anchored, runs on those bytes only, and a
// failed try is cheap.
var phraseReach = [...]int{famOverride: 160, famConcealment: 140, famExfil: 260}

// roleTags are the markers of chat formats: a text that holds one can end
// the turn it is in and start a system or user turn of its own.
var roleTags = []string{"<|im_start|>", "<|im_end|>", "<|system|>", "<|user|>", "<|assistant|>", "<|endoftext|>",
	"<|eot_id|>", "<|start_header_id|>", "<|end_header_id|>", "<|begin_of_text|>", "</system>", "<system>",
	"[inst]", "[/inst]", "<<sys>>", "<</sys>>", "<start_of_turn>", "<end_of_turn>", "</instructions>", "</user_query>",
	"</assistant>", "</user>"}

// phrasePatterns are the families' patterns (over lower-cased text),
// compiled on first use.

// patternSet is every pattern of the package.
type patternSet struct {
	once                                          sync.Once
	phrases                                       [4]*regexp.Regexp
	modelWords, riskyVerbs, hiddenStyle, htmlOpen *regexp.Regexp
	secrets                                       []*regexp.Regexp
	awsSecret                                     *regexp.Regexp
}

// compiled holds the patterns, compiled on first use (patterns): a zero
// sync.Once, so that nothing runs at package initialisation.
var compiled patternSet

// patterns compiles the patterns once, when a rule first needs them.
func patterns() *patternSet {
	c := &compiled
	c.once.Do(func() {
		c.phrases[famOverride] = regexp.MustCompile(`^(?:(?:ignore|disregard|forget|override|bypass)\s+(?:all\s+|any\s+|every\s+|the\s+)?(?:of\s+)?(?:your\s+|the\s+|my\s+|these\s+|those\s+)?(?:previous|prior|above|earlier|preceding|foregoing|original|initial|system|safety|existing|former)\s+(?:instructions?|prompts?|rules?|directions?|guidelines?|directives?|guardrails?|messages?|context|constraints?|commands?)\b|(?:you\s+are\s+now\s+(?:in\s+)?|enter\s+|entering\s+|activate\s+)(?:developer|god|dan|jailbreak|unrestricted)\s+mode\b|jailbreak\s+mode\b)`)
		c.phrases[famConcealment] = regexp.MustCompile(`^(?:(?:do\s+not|don'?t|dont|never|without)\s+(?:tell(?:ing)?|inform(?:ing)?|notify(?:ing)?|alert(?:ing)?|warn(?:ing)?|let)\s+(?:the\s+|your\s+|any\s+)?(?:user|human|reviewer|maintainer|operator)s?\b|(?:do\s+not|don'?t|never)\s+(?:mention|reveal|show|disclose|expose|report)\s+(?:this|these|that|it|them|any\s+of\s+this|the\s+(?:following|above|previous))(?:\s+(?:step|steps|action|actions|command|commands|change|changes|instructions?|part|message|request))?\s+to\s+(?:the\s+|your\s+)?(?:user|human|reviewer|maintainer|operator)s?\b|(?:hide|conceal|keep)\s+(?:this|these|it|them|that|the\s+(?:following|above|instructions?|steps?|actions?|commands?))(?:\s+\w+){0,3}?\s+(?:secret\s+)?from\s+(?:the\s+|your\s+)?(?:user|human|reviewer|maintainer|operator)s?\b|(?:the\s+)?(?:user|human|reviewer)s?\s+(?:must|should|need)\s+(?:not|never)\s+(?:know|find\s+out|see|notice|be\s+told)\b)`)
		c.phrases[famExfil] = regexp.MustCompile(`^(?:(?:send|upload|post|forward|transmit|exfiltrate|email|leak)\b[^.\n]{0,160}?\b(?:to|at|into)\s+(?:https?://|ftp://|[a-z0-9._%+-]+@[a-z0-9.-]+\.[a-z]{2,}))`)
		c.modelWords = regexp.MustCompile(`\b(?:ai|assistant|agent|agents|model|llm|claude|gpt|chatgpt|gemini|copilot|bot)\b`)
		c.riskyVerbs = regexp.MustCompile(`\b(?:run|execute|exec|send|upload|post|fetch|download|curl|wget|delete|remove|rm|read|open|visit|email|forward|copy|install|call|invoke|ignore|reveal|tell|include)\b`)
		c.hiddenStyle = regexp.MustCompile(`display:none|visibility:hidden|font-size:0(?:[a-z%]*)?(?:[;"']|$)|opacity:0(?:\.0*)?(?:[;"']|$)|color:transparent|(?:width|height|max-height|max-width):0(?:px)?(?:[;"']|$)|left:-\d{3,}|top:-\d{3,}|clip:rect\(0`)
		c.htmlOpen = regexp.MustCompile(`<([a-z][a-z0-9-]*)(\s[^<>]*)?>`)
		for _, r := range secretRules {
			c.secrets = append(c.secrets, regexp.MustCompile(`^`+r.pattern))
		}
		c.awsSecret = regexp.MustCompile(awsSecretPattern)
	})
	return c
}

// injection runs the injection rules.
func (p *parsed) injection() []Finding {
	if p.form == formOther {
		return nil
	}
	var out []Finding
	out = p.phrases(out)
	if p.form == formMarkdown {
		md := p.markdown()
		out = p.hiddenComments(out, md)
		out = p.hiddenHTML(out, md)
		out = p.exfilURLs(out, md)
	}
	return out
}

// lower is the file lower-cased (ASCII letters only: same offsets), made
// once for the rules that match without case.
func (p *parsed) lower() []byte {
	p.lowOnce.Do(func() { p.low = lowerASCII(p.src) })
	return p.low
}

// lowerASCII lower-cases the ASCII letters of b (a copy, same offsets).
func lowerASCII(b []byte) []byte {
	out := make([]byte, len(b))
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		out[i] = c
	}
	return out
}

// phrases finds the phrase families around their anchors.
func (p *parsed) phrases(out []Finding) []Finding {
	src := p.src
	var pats *[4]*regexp.Regexp
	for _, h := range p.hits() {
		switch h.needle.kind {
		case needleRoleTag:
			out = p.roleTag(out, h.start, h.end)
		case needlePhrase:
			fam := phraseFamily(h.needle.arg)
			// A whole word, and a next word that can continue a phrase:
			// then the family's anchored pattern is tried on the bytes
			// after it, lower-cased.
			if h.start > 0 && letter(src[h.start-1]) || h.end < len(src) && letter(src[h.end]) {
				continue
			}
			reach := min(len(src), h.start+phraseReach[fam])
			var buf [24]byte
			rest := src[h.end:reach]
			if fam != famExfil {
				rest = lowerInto(buf[:0], nextWordFold(rest))
			}
			if !plausible(fam, []byte(h.needle.text), rest) {
				continue
			}
			window := lowerASCII(src[h.start:reach])
			if pats == nil {
				pats = &patterns().phrases
			}
			m := pats[fam].FindIndex(window)
			if m == nil {
				continue
			}
			end := h.start + m[1]
			if fam == famConcealment && possessive(src, end) {
				continue // "never tell the user's password": about the user, not to them
			}
			out = p.phrase(out, fam, h.start, end)
		}
	}
	return out
}

// letter reports an ASCII letter or an apostrophe (part of a word).
func letter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' || c == '\'' }

// roleTag reports the chat-format role marker at [start, end).
func (p *parsed) roleTag(out []Finding, start, end int) []Finding {
	tag := lowerString(string(p.src[start:end]))
	if (tag == "<system>" || tag == "</system>") && start > 0 && p.src[start-1] == '`' {
		return out // spelled out in code
	}
	return p.phrase(out, famRoleTag, start, end)
}

// possessive reports a "'s" at src[end:].
func possessive(src []byte, end int) bool {
	return bytes.HasPrefix(src[end:], []byte("'s")) || bytes.HasPrefix(src[end:], []byte("’s"))
}

// window is the line around at, at most 400 bytes each side.
func window(low []byte, at int) (int, int) {
	start := at
	for start > 0 && low[start-1] != '\n' && at-start < 400 {
		start--
	}
	end := at
	for end < len(low) && low[end] != '\n' && end-at < 400 {
		end++
	}
	return start, end
}

// phrase reports one phrase of a family at [start, end), as the place
// says.
func (p *parsed) phrase(out []Finding, fam phraseFamily, start, end int) []Finding {
	pl := p.placeOf(start)
	if p.form == formMarkdown && pl == placeProse && p.inHiddenHTML(start) {
		pl = placeComment
	}
	mention := p.form == formMarkdown && (pl == placeCode || pl == placeProse && p.quoted(start, end))
	sev, ok := severityOf(fam, pl, mention)
	if !ok {
		return out
	}
	text := string(p.src[start:end])
	var msg string
	switch fam {
	case famOverride:
		msg = fmt.Sprintf("%q tries to replace the instructions the model was given (prompt injection)", text)
	case famConcealment:
		msg = fmt.Sprintf("%q asks the model to keep something from the person it works for", text)
	case famRoleTag:
		msg = fmt.Sprintf("%s is a chat-format role marker: text that holds it can end the turn it is in and start a system or user turn of its own", text)
	case famExfil:
		msg = fmt.Sprintf("%q asks for data to be sent elsewhere", truncate(text, 120))
	}
	where := "in " + pl.String()
	if pl == placeComment {
		where = "hidden from the rendered page"
	}
	if sev == Error {
		msg += fmt.Sprintf(" (%s); remove it", where)
	} else {
		msg += fmt.Sprintf(" (%s); if this is a guardrail or an example, quote it or put it in `code`", where)
	}
	return add(out, famRules[fam], sev, start, end, msg)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// quoted reports whether [start, end) is quoted on its line: in `code`, or
// between quotation marks (a mention, not a use).
func (p *parsed) quoted(start, end int) bool {
	ls, _ := window(p.src, start)
	line := string(p.src[ls:lineEndAt(p.src, start)])
	rel := start - ls
	if inlineCode(line, rel) {
		return true
	}
	// Quotation marks may open and close on other lines of the paragraph.
	ps, pe := paragraph(p.src, start)
	before, after := string(p.src[ps:start]), string(p.src[min(end, pe):pe])
	for _, q := range [][2]string{{`"`, `"`}, {"“", "”"}, {"«", "»"}, {"'", "'"}} {
		if strings.Count(before, q[0])%2 == 1 && q[0] == q[1] && strings.Contains(after, q[1]) ||
			q[0] != q[1] && strings.LastIndex(before, q[0]) > strings.LastIndex(before, q[1]) && strings.Contains(after, q[1]) {
			return true
		}
	}
	return false
}

// paragraph is the paragraph around off: from the blank line before it
// to the blank line after it (at most 2,000 bytes each way).
func paragraph(src []byte, off int) (int, int) {
	start := off
	for start > 0 && off-start < 2000 && !(src[start-1] == '\n' && start >= 2 && src[start-2] == '\n') {
		start--
	}
	end := off
	for end < len(src) && end-off < 2000 && !(src[end] == '\n' && end+1 < len(src) && src[end+1] == '\n') {
		end++
	}
	return start, end
}

// Directives of tools that live in HTML comments: not instructions to a
// model.
var toolComments = []string{"rye:", "markdownlint", "prettier", "toc", "vale ", "cspell", "spell-checker", "begin", "end",
	"#region", "#endregion", "lint", "eslint", "textlint", "omit in toc", "all-contributors", "badges", "generated", "mdformat", "pragma"}

// modelWords address a model or an agent.

// riskyVerbs act outside the conversation.

// hiddenComments reports HTML comments of a Markdown item that speak to
// the model: a reader of the rendered page never sees them.
func (p *parsed) hiddenComments(out []Finding, md *markdown) []Finding {
	for _, c := range md.comments {
		if c.start >= p.sigStart && c.start < p.sigEnd {
			continue
		}
		body := strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(string(lowerASCII(p.src[c.start:c.end])), "<!--"), "-->"))
		words := strings.Fields(body)
		if len(words) < 4 || toolComment(body) {
			continue
		}
		lowBody := body
		switch {
		case patterns().modelWords.MatchString(lowBody) && patterns().riskyVerbs.MatchString(lowBody):
			out = add(out, "injection/hidden-comment", Error, c.start, c.end, fmt.Sprintf("an HTML comment speaks to the model and asks it to act (%q): it is hidden from anyone who reads the rendered page; write instructions in the visible text, or remove it", truncate(strings.Join(words, " "), 100)))
		case instructionLike(words):
			out = add(out, "injection/hidden-comment", warning, c.start, c.end, fmt.Sprintf("an HTML comment reads like an instruction (%q), and is hidden from anyone who reads the rendered page; if it is for the model, write it in the visible text", truncate(strings.Join(words, " "), 100)))
		}
	}
	return out
}

func toolComment(body string) bool {
	for _, t := range toolComments {
		if strings.HasPrefix(body, t) {
			return true
		}
	}
	return strings.Contains(body, "rye:ignore")
}

// instructionLike reports text that gives orders: it addresses "you", or
// a sentence starts with an imperative verb, a "must" or a "never".
func instructionLike(words []string) bool {
	for i, w := range words {
		w = strings.Trim(w, ".,:;!?*_()[]\"'`")
		switch w {
		case "you", "your", "must", "always", "never", "instead":
			return true
		}
		if i == 0 || strings.HasSuffix(words[i-1], ".") || strings.HasSuffix(words[i-1], ":") {
			if patterns().riskyVerbs.MatchString(w) {
				return true
			}
		}
	}
	return false
}

// hiddenStyle finds CSS that hides an element.

// htmlOpen finds an opening HTML tag with its attributes.

// hiddenHTML reports HTML elements of a Markdown item that are styled or
// marked invisible and hold text.
func (p *parsed) hiddenHTML(out []Finding, md *markdown) []Finding {
	p.inHiddenHTML(0) // finds the hidden elements, once
	for _, r := range p.hidden {
		text := strings.Join(strings.Fields(stripTags(string(p.src[r[1]:r[2]]))), " ")
		if text == "" {
			continue
		}
		out = add(out, "injection/hidden-html", Error, r[0], r[3], fmt.Sprintf("a hidden HTML element holds text (%q): the rendered page does not show it, the model reads it; remove it or make it visible", truncate(text, 100)))
	}
	return out
}

// hiddenElements lists the hidden elements in the text of a Markdown
// item: [tag start, content start, content end, element end].
func (p *parsed) hiddenElements(low []byte) [][4]int {
	var out [][4]int
	md := p.markdown()
	for _, m := range patterns().htmlOpen.FindAllSubmatchIndex(low, -1) {
		if placeIn(md.spans, m[0], placeProse) != placeProse {
			continue
		}
		attrs := ""
		if m[4] >= 0 {
			attrs = string(low[m[4]:m[5]])
		}
		if !hiddenAttrs(attrs) {
			continue
		}
		name := string(low[m[2]:m[3]])
		closeTag := []byte("</" + name)
		j := bytes.Index(low[m[1]:], closeTag)
		contentEnd, end := len(low), len(low)
		if j >= 0 {
			contentEnd = m[1] + j
			end = contentEnd + len(closeTag)
			if k := bytes.IndexByte(low[end:], '>'); k >= 0 {
				end += k + 1
			}
		}
		out = append(out, [4]int{m[0], m[1], contentEnd, end})
	}
	return out
}

// hiddenAttrs reports attributes that hide their element.
func hiddenAttrs(attrs string) bool {
	if attrs == "" {
		return false
	}
	for _, f := range strings.Fields(attrs) {
		if f == "hidden" || strings.HasPrefix(f, "hidden=") {
			return true
		}
	}
	i := strings.Index(attrs, "style")
	if i < 0 {
		return false
	}
	style := strings.Map(func(r rune) rune {
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, attrs[i:])
	return patterns().hiddenStyle.MatchString(style)
}

// inHiddenHTML reports whether off is inside a hidden element.
func (p *parsed) inHiddenHTML(off int) bool {
	p.hiddenOnce.Do(func() {
		for _, h := range p.hits() {
			if h.needle.kind == needleStyle {
				p.hidden = p.hiddenElements(p.lower())
				break
			}
		}
	})
	for _, r := range p.hidden {
		if off >= r[1] && off < r[2] {
			return true
		}
	}
	return false
}

// stripTags drops HTML tags from s.
func stripTags(s string) string {
	var b strings.Builder
	in := false
	for _, r := range s {
		switch {
		case r == '<':
			in = true
		case r == '>':
			in = false
		case !in:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// exfilURLs reports Markdown images and links (and HTML img and a) whose
// URL sends an {input:…} value to another host: a renderer fetches an
// image as soon as it is shown, with the input in its query.
func (p *parsed) exfilURLs(out []Finding, md *markdown) []Finding {
	src := p.src
	needle := []byte("{input:")
	for off := 0; ; {
		i := bytes.Index(src[off:], needle)
		if i < 0 {
			return out
		}
		at := off + i
		off = at + len(needle)
		pl := placeIn(md.spans, at, placeProse)
		if pl != placeProse && pl != placeComment {
			continue
		}
		ls, _ := window(src, at)
		line := string(src[ls:lineEndAt(src, at)])
		rel := at - ls
		urlStart, image := urlOpening(line[:rel])
		if urlStart < 0 {
			continue
		}
		u := strings.ToLower(strings.TrimSpace(line[urlStart:rel]))
		if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") && !strings.HasPrefix(u, "//") {
			continue
		}
		end := strings.IndexAny(line[rel:], ")\"' >")
		if end < 0 {
			end = len(line) - rel
		}
		url := line[urlStart : rel+end]
		if image {
			out = add(out, "injection/exfil-url", Error, ls+urlStart, ls+rel+end, fmt.Sprintf("an image URL carries an input to another host (%s): a renderer fetches it as soon as it is shown, and the input goes with it; remove the placeholder from the URL", truncate(url, 120)))
		} else {
			out = add(out, "injection/exfil-url", warning, ls+urlStart, ls+rel+end, fmt.Sprintf("a link URL carries an input to another host (%s): following it sends the input there; make sure that is meant", truncate(url, 120)))
		}
	}
}

// urlOpening finds where the URL that ends before the end of s starts:
// after "](" of a Markdown link or image, "]: " of a reference, or src="
// or href=" of an HTML tag; and whether it is an image's.
func urlOpening(s string) (int, bool) {
	best, image := -1, false
	if i := strings.LastIndex(s, "]("); i >= 0 && !strings.ContainsAny(s[i+2:], " )") {
		best = i + 2
		open := strings.LastIndex(s[:i], "[")
		image = open > 0 && s[open-1] == '!'
	}
	low := strings.ToLower(s)
	for _, a := range []string{`src="`, `src='`, `href="`, `href='`} {
		if i := strings.LastIndex(low, a); i >= 0 && i+len(a) > best && !strings.ContainsAny(s[i+len(a):], `"'`) {
			best = i + len(a)
			image = a[0] == 's'
		}
	}
	if i := strings.LastIndex(s, "]: "); i >= 0 && i+3 > best && !strings.Contains(s[i+3:], " ") {
		best, image = i+3, false
	}
	return best, image
}

// plausible is a cheap look at the word after an anchor (the rest of the
// window): most anchors ("user", "do", "you") start no phrase, and the
// pattern is tried only where the next word could continue one.
func plausible(fam phraseFamily, word, rest []byte) bool {
	next := nextWord(rest)
	switch fam {
	case famOverride:
		switch string(word) {
		case "you":
			return string(next) == "are"
		case "enter", "entering", "activate":
			switch string(next) {
			case "developer", "god", "dan", "jailbreak", "unrestricted":
				return true
			}
			return false
		case "jailbreak":
			return string(next) == "mode"
		}
		switch string(next) {
		case "all", "any", "every", "the", "of", "your", "my", "these", "those", "previous", "prior", "above", "earlier",
			"preceding", "foregoing", "original", "initial", "system", "safety", "existing", "former":
			return true
		}
	case famConcealment:
		switch string(word) {
		case "do":
			return string(next) == "not"
		case "hide", "conceal", "keep":
			switch string(next) {
			case "this", "these", "it", "them", "that", "the":
				return true
			}
			return false
		case "user", "users", "human", "humans", "reviewer", "reviewers":
			switch string(next) {
			case "must", "should", "need":
				return true
			}
			return false
		}
		switch string(next) { // don't, never, without
		case "tell", "telling", "inform", "informing", "notify", "notifying", "alert", "alerting", "warn", "warning", "let",
			"mention", "reveal", "show", "disclose", "expose", "report":
			return true
		}
	case famExfil:
		return bytes.Contains(rest, []byte("://")) || bytes.IndexByte(rest, '@') >= 0
	}
	return false
}

// nextWord is the first word of b (letters and apostrophes), after blanks.
func nextWord(b []byte) []byte {
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	j := i
	for j < len(b) && ('a' <= b[j] && b[j] <= 'z' || b[j] == '\'') {
		j++
	}
	return b[i:j]
}

// nextWordFold is the first word of b (ASCII letters of any case and
// apostrophes), after blanks, at most 20 bytes.
func nextWordFold(b []byte) []byte {
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	j := i
	for j < len(b) && j-i < 20 && letter(b[j]) {
		j++
	}
	return b[i:j]
}

// lowerInto appends b lower-cased to dst.
func lowerInto(dst, b []byte) []byte {
	for _, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}
