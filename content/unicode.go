package content

//go:generate go run gen_tables.go

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.mau.fi/util/confusable"
	"golang.org/x/text/unicode/norm"

	"github.com/ryekit/rye/item/syntax"
)

// The unicode rules: characters that change what a reader sees without
// changing what a model (or a compiler) reads.
//
//   - tag: Unicode tag characters (U+E0000-E007F) spell ASCII text that no
//     editor, diff or forge shows and every model reads. The one legitimate
//     use, an emoji tag sequence (a subdivision flag: U+1F3F4, three to
//     six tag letters or digits, U+E007F), carries no room for a message.
//   - bidi: embeddings and overrides (U+202A-202E) anywhere; isolates
//     (U+2066-2069) not closed on their line, or in code; marks
//     (U+200E, U+200F, U+061C) in code: text that displays in another
//     order than it is read (Trojan Source, CVE-2021-42574).
//   - invisible: zero-width characters, the word joiner, invisible
//     operators, the soft hyphen, Hangul fillers, variation selectors that
//     select nothing, private use characters; ZWJ inside emoji sequences,
//     ZWJ and ZWNJ inside Arabic, Indic, Persian and other joining scripts,
//     VS15/VS16 after emoji and an ideographic variation selector after a
//     Han character are left alone.
//   - control: C0 and C1 controls (tab, line feed and a carriage return
//     before a line feed excepted; form feed too in Python), DEL, the
//     Unicode line and paragraph separators, and so terminal escape
//     sequences: a terminal that shows the file runs them.
//   - mixed-script, nfkc: names, ids, keys and parameter names written in
//     two scripts (a Cyrillic "а" in a Latin name), or that change under
//     NFKC (fullwidth letters, ligatures).

// class is what a character is to the unicode rules.
type class uint8

const (
	cNone      class = iota
	cTag             // U+E0000-E007F
	cOverride        // LRE RLE PDF LRO RLO
	cIsolate         // LRI RLI FSI
	cPDI             // POP DIRECTIONAL ISOLATE
	cMark            // LRM RLM ALM
	cInvisible       // zero-width and blank-looking characters
	cJoiner          // ZWNJ, ZWJ
	cSelector        // variation selectors
	cPrivate         // private use
	cControl         // C0, C1, DEL, line and paragraph separators
)

func classify(r rune) class {
	switch {
	case r < 0x80:
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0x7F {
			return cControl
		}
		return cNone
	case r <= 0x9F:
		return cControl
	case r == 0xAD, r == 0x34F, r == 0x115F, r == 0x1160, r == 0x17B4, r == 0x17B5, r == 0x180E,
		r == 0x200B, r >= 0x2060 && r <= 0x2064, r >= 0x206A && r <= 0x206F, r == 0x2800,
		r == 0x3164, r == 0xFEFF, r == 0xFFA0, r >= 0xFFF9 && r <= 0xFFFB, r == 0x1D159, r >= 0x1D173 && r <= 0x1D17A:
		return cInvisible
	case r == 0x61C, r == 0x200E, r == 0x200F:
		return cMark
	case r == 0x200C, r == 0x200D:
		return cJoiner
	case r >= 0x180B && r <= 0x180D, r == 0x180F, r >= 0xFE00 && r <= 0xFE0F, r >= 0xE0100 && r <= 0xE01EF:
		return cSelector
	case r == 0x2028, r == 0x2029:
		return cControl
	case r >= 0x202A && r <= 0x202E:
		return cOverride
	case r >= 0x2066 && r <= 0x2068:
		return cIsolate
	case r == 0x2069:
		return cPDI
	case r >= 0xE0000 && r <= 0xE007F:
		return cTag
	case r >= 0xE000 && r <= 0xF8FF, r >= 0xF0000:
		return cPrivate
	}
	return cNone
}

// charNames names the characters the rules report.
var charNames = []struct {
	r    rune
	name string
}{
	{0xAD, "SOFT HYPHEN"}, {0x34F, "COMBINING GRAPHEME JOINER"}, {0x61C, "ARABIC LETTER MARK"},
	{0x115F, "HANGUL CHOSEONG FILLER"}, {0x1160, "HANGUL JUNGSEONG FILLER"}, {0x17B4, "KHMER VOWEL INHERENT AQ"},
	{0x17B5, "KHMER VOWEL INHERENT AA"}, {0x180E, "MONGOLIAN VOWEL SEPARATOR"}, {0x200B, "ZERO WIDTH SPACE"},
	{0x200C, "ZERO WIDTH NON-JOINER"}, {0x200D, "ZERO WIDTH JOINER"}, {0x200E, "LEFT-TO-RIGHT MARK"},
	{0x200F, "RIGHT-TO-LEFT MARK"}, {0x2028, "LINE SEPARATOR"}, {0x2029, "PARAGRAPH SEPARATOR"},
	{0x202A, "LEFT-TO-RIGHT EMBEDDING"}, {0x202B, "RIGHT-TO-LEFT EMBEDDING"}, {0x202C, "POP DIRECTIONAL FORMATTING"},
	{0x202D, "LEFT-TO-RIGHT OVERRIDE"}, {0x202E, "RIGHT-TO-LEFT OVERRIDE"}, {0x2060, "WORD JOINER"},
	{0x2061, "FUNCTION APPLICATION"}, {0x2062, "INVISIBLE TIMES"}, {0x2063, "INVISIBLE SEPARATOR"},
	{0x2064, "INVISIBLE PLUS"}, {0x2066, "LEFT-TO-RIGHT ISOLATE"}, {0x2067, "RIGHT-TO-LEFT ISOLATE"},
	{0x2068, "FIRST STRONG ISOLATE"}, {0x2069, "POP DIRECTIONAL ISOLATE"}, {0x2800, "BRAILLE PATTERN BLANK"},
	{0x3164, "HANGUL FILLER"}, {0xFEFF, "ZERO WIDTH NO-BREAK SPACE (BOM)"}, {0xFFA0, "HALFWIDTH HANGUL FILLER"},
	{0x1B, "ESCAPE"}, {0x7F, "DELETE"}, {0x08, "BACKSPACE"}, {0x0D, "CARRIAGE RETURN"}, {0x00, "NULL"}, {0x07, "BELL"},
	{0x0C, "FORM FEED"}, {0x0B, "LINE TABULATION"}, {0x85, "NEXT LINE"},
}

// charName is "U+202E RIGHT-TO-LEFT OVERRIDE".
func charName(r rune) string {
	name := ""
	for _, c := range charNames {
		if c.r == r {
			name = c.name
		}
	}
	switch {
	case name != "":
	case r >= 0xE0000 && r <= 0xE007F:
		name = "TAG"
	case r >= 0xFE00 && r <= 0xFE0F:
		name = fmt.Sprintf("VARIATION SELECTOR-%d", r-0xFE00+1)
	case r >= 0xE0100 && r <= 0xE01EF:
		name = fmt.Sprintf("VARIATION SELECTOR-%d", r-0xE0100+17)
	case r >= 0x180B && r <= 0x180F:
		name = "MONGOLIAN FREE VARIATION SELECTOR"
	case classify(r) == cPrivate:
		name = "private use"
	case r < 0x20:
		name = fmt.Sprintf("CONTROL-%c", '@'+r) // CONTROL-A for U+0001
	case r <= 0x9F:
		name = "C1 CONTROL"
	default:
		name = "invisible"
	}
	return fmt.Sprintf("U+%04X %s", r, name)
}

// inJoiningScript reports the scripts where ZWJ and ZWNJ change how
// letters join or conjoin (Arabic, Persian, Urdu and Syriac shaping, Indic
// conjuncts), and ZWSP marks word breaks (Thai, Lao, Khmer, Myanmar).
func inJoiningScript(r rune) bool {
	if r >= 0x590 && r < 0x2000 {
		return true // Hebrew to Mongolian: Arabic, Syriac, Thaana, N'Ko, the Indic scripts, Thai, Lao, Tibetan, Myanmar, Khmer
	}
	return r >= 0xA800 && unicode.In(r, unicode.Arabic, unicode.Devanagari, unicode.Myanmar, unicode.Balinese,
		unicode.Javanese, unicode.Sundanese, unicode.Syriac, unicode.Mongolian)
}

// emojiLike reports whether r can come before the ZWJ of an emoji ZWJ
// sequence: a pictograph, a skin tone, VS16, or the end of a tag sequence.
func emojiLike(r rune) bool {
	return r == 0xFE0F || r == 0xE007F || r == 0x20E3 || unicode.Is(extPictographic, r) || unicode.Is(emojiModifier, r) ||
		r >= 0x1F1E6 && r <= 0x1F1FF
}

// legitimate reports whether the character r at src[i:] (of size n),
// after prev, is one of the legitimate uses the rules leave alone.
func legitimate(src []byte, i, n int, r, prev rune) bool {
	next, _ := utf8.DecodeRune(src[i+n:])
	switch {
	case r == 0x200D && emojiLike(prev) && (unicode.Is(extPictographic, next) || next >= 0x1F1E6 && next <= 0x1F1FF):
		return true // an emoji ZWJ sequence
	case (r == 0x200C || r == 0x200D || r == 0x200B) && (inJoiningScript(prev) || inJoiningScript(next)):
		return true // shaping in Arabic, Persian, Indic text; word breaks in Thai, Khmer
	case r == 0xFE0E || r == 0xFE0F:
		return unicode.Is(emojiVariationBase, prev) || unicode.Is(extPictographic, prev) ||
			prev >= '0' && prev <= '9' || prev == '#' || prev == '*'
	case r >= 0xFE00 && r <= 0xFE0D:
		return unicode.Is(standardizedVariantBase, prev)
	case r >= 0xE0100 && r <= 0xE01EF:
		return unicode.Is(unicode.Han, prev) // an ideographic variation sequence
	case r >= 0x180B && r <= 0x180F:
		return unicode.Is(unicode.Mongolian, prev)
	case r == 0xFEFF:
		return i == 0 // the byte order mark
	case r == 0x2800:
		return prev > 0x2800 && prev <= 0x28FF || next > 0x2800 && next <= 0x28FF // Braille text
	}
	return false
}

// unicode runs the unicode rules.
func (p *parsed) unicode() []Finding {
	if p.form == formOther {
		return nil
	}
	var out []Finding
	ids := p.identifiers()
	if p.hits(); p.ascii {
		if p.hasControl {
			out = p.asciiControls(out)
		}
	} else {
		out = p.scanRunes(out, ids)
	}
	for _, id := range ids {
		out = p.checkIdentifier(out, id)
	}
	return out
}

// asciiControls is the whole unicode scan of a file that is all ASCII:
// only controls can be there.
func (p *parsed) asciiControls(out []Finding) []Finding {
	src := p.src
	for i := 0; i < len(src); i++ {
		c := src[i]
		if c >= 0x20 && c != 0x7F || c == '\t' || c == '\n' {
			continue
		}
		if c == '\r' && (i+1 < len(src) && src[i+1] == '\n' || i+1 == len(src)) {
			continue
		}
		if c == '\f' && (p.form == formPython) {
			continue
		}
		out, i = p.control(out, i, rune(c), 1)
	}
	return out
}

// control reports the control character r at src[i:i+n] (and the escape
// sequence it starts) and returns where the scan goes on.
func (p *parsed) control(out []Finding, i int, r rune, n int) ([]Finding, int) {
	src := p.src
	end := i + n
	msg := ""
	switch {
	case r == 0x1B:
		end = escapeEnd(src, i)
		msg = fmt.Sprintf("terminal escape sequence %q: a terminal that shows this file runs it (it can hide or rewrite what is on screen); remove it", string(src[i:end]))
	case r == '\r':
		msg = "carriage return without a line feed: a terminal that shows this file goes back to the start of the line and overwrites it with what follows; end lines with LF or CRLF"
	case r == 0x2028 || r == 0x2029:
		msg = fmt.Sprintf("%s: a line break to some readers (JavaScript, some tokenizers) and not to others, so they see different lines; use a line feed", charName(r))
	default:
		msg = fmt.Sprintf("control character %s: invisible in an editor, acted on by terminals; remove it", charName(r))
	}
	out = add(out, "unicode/control", Error, i, end, msg)
	return out, end - 1
}

// escapeEnd is the end of the escape sequence that starts at i (an ESC):
// CSI (ESC [ ... final byte), OSC (ESC ] ... BEL or ST), or ESC and one
// character.
func escapeEnd(src []byte, i int) int {
	j := i + 1
	if j >= len(src) {
		return j
	}
	switch src[j] {
	case '[':
		for j++; j < len(src) && j-i < 64; j++ {
			if src[j] >= 0x40 && src[j] <= 0x7E {
				return j + 1
			}
		}
		return j
	case ']', 'P', '_', '^':
		for j++; j < len(src) && j-i < 256; j++ {
			if src[j] == 0x07 {
				return j + 1
			}
			if src[j] == 0x1B && j+1 < len(src) && src[j+1] == '\\' {
				return j + 2
			}
		}
		return j
	}
	return j + 1
}

// hidden is a run of invisible characters being gathered.
type hidden struct {
	start, end int
	runes      []rune
	code       bool // some of it is in code (or an identifier)
}

// scanRunes is the unicode scan of a file with non-ASCII characters.
func (p *parsed) scanRunes(out []Finding, ids []ident) []Finding {
	src := p.src
	var run hidden
	var lineRuns []hidden // the runs of invisible characters of the line
	flush := func() {
		if len(run.runes) > 0 {
			lineRuns = append(lineRuns, run)
			run = hidden{}
		}
	}
	var prev rune
	var opened []int // offsets of the open isolates and overrides of the line
	var openRunes []rune
	lineStart := 0
	endLine := func(at int) {
		flush()
		out = p.reportHidden(out, lineRuns)
		lineRuns = lineRuns[:0]
		for k, off := range opened {
			r := openRunes[k]
			if r >= 0x2066 && r <= 0x2068 {
				out = add(out, "unicode/bidi", Error, off, off+3,
					fmt.Sprintf("%s is not closed on its line (no U+2069 POP DIRECTIONAL ISOLATE): the rest of the line is shown reordered (Trojan Source); remove it", charName(r)))
			}
		}
		opened, openRunes = opened[:0], openRunes[:0]
		lineStart = at
	}
	_ = lineStart
	for i := 0; i < len(src); {
		c := src[i]
		if c < 0x80 {
			if c == '\n' {
				endLine(i + 1)
			} else if c < 0x20 && c != '\t' || c == 0x7F {
				if !(c == '\r' && (i+1 == len(src) || src[i+1] == '\n')) && !(c == '\f' && p.form == formPython) {
					flush()
					var j int
					out, j = p.control(out, i, rune(c), 1)
					i = j + 1
					prev = rune(c)
					continue
				}
			}
			if c != ' ' && c != '\t' {
				flush()
			}
			prev = rune(c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(src[i:])
		cl := classify(r)
		switch cl {
		case cNone:
			flush()
		case cControl:
			flush()
			var j int
			out, j = p.control(out, i, r, n)
			i = j + 1
			prev = r
			continue
		case cTag:
			flush()
			j := i
			for j < len(src) {
				t, m := utf8.DecodeRune(src[j:])
				if classify(t) != cTag {
					break
				}
				j += m
			}
			if !validTagSequence(src, i, j, prev) {
				out = add(out, "unicode/tag", Error, i, j, fmt.Sprintf("hidden text in Unicode tag characters, invisible in every editor and diff and read by models: %q; remove them", decodeTags(src[i:j])))
			}
			prev = 0xE007F
			i = j
			continue
		case cOverride:
			flush()
			if r == 0x202C {
				if k := lastOpen(openRunes, func(o rune) bool { return o >= 0x202A && o <= 0x202E }); k >= 0 {
					opened, openRunes = append(opened[:k], opened[k+1:]...), append(openRunes[:k], openRunes[k+1:]...)
				}
			} else {
				opened, openRunes = append(opened, i), append(openRunes, r)
			}
			out = add(out, "unicode/bidi", Error, i, i+n, fmt.Sprintf("%s: the text around it is shown in another order than it is read (Trojan Source); remove it", charName(r)))
		case cIsolate:
			flush()
			opened, openRunes = append(opened, i), append(openRunes, r)
			if p.inCode(i, ids) {
				out = add(out, "unicode/bidi", Error, i, i+n, fmt.Sprintf("%s in code: it reorders how the code is shown (Trojan Source); remove it", charName(r)))
			}
		case cPDI:
			flush()
			if k := lastOpen(openRunes, func(o rune) bool { return o >= 0x2066 && o <= 0x2068 }); k >= 0 {
				opened, openRunes = append(opened[:k], opened[k+1:]...), append(openRunes[:k], openRunes[k+1:]...)
				if p.inCode(i, ids) {
					out = add(out, "unicode/bidi", Error, i, i+n, fmt.Sprintf("%s in code: it reorders how the code is shown (Trojan Source); remove it", charName(r)))
				}
			} else {
				out = add(out, "unicode/bidi", Error, i, i+n, fmt.Sprintf("%s closes no isolate on its line: unbalanced bidirectional controls reorder what is shown (Trojan Source); remove it", charName(r)))
			}
		case cMark:
			flush()
			if id := identAt(ids, i); id != nil {
				out = add(out, "unicode/bidi", Error, i, i+n, fmt.Sprintf("%s in the %s %q: names must be plain text; remove it", charName(r), id.what, id.text))
			} else if p.inCode(i, nil) {
				out = add(out, "unicode/bidi", warning, i, i+n, fmt.Sprintf("%s in code: it can change the order in which the code around it is shown; remove it unless the text needs it", charName(r)))
			}
		default: // invisible, joiner, selector, private use
			if legitimate(src, i, n, r, prev) {
				flush()
				break
			}
			if len(run.runes) == 0 {
				run.start = i
			}
			run.end = i + n
			run.runes = append(run.runes, r)
			run.code = run.code || p.inCode(i, ids)
			prev = r
			i += n
			continue
		}
		prev = r
		i += n
	}
	endLine(len(src))
	return out
}

func lastOpen(rs []rune, is func(rune) bool) int {
	for k := len(rs) - 1; k >= 0; k-- {
		if is(rs[k]) {
			return k
		}
	}
	return -1
}

// reportHidden reports the runs of invisible characters of one line: an
// error in code and identifiers, and for three or more on a line anywhere
// (no text needs them: it is data hidden in plain sight, a bit or two per
// character); a warning in prose.
func (p *parsed) reportHidden(out []Finding, runs []hidden) []Finding {
	total := 0
	var all []rune
	for _, r := range runs {
		total += len(r.runes)
		all = append(all, r.runes...)
	}
	if total >= 3 {
		return add(out, "unicode/invisible", Error, runs[0].start, runs[len(runs)-1].end, fmt.Sprintf("%d invisible characters on one line (%s): no text needs them, they can carry hidden data; remove them", total, runeNames(all)))
	}
	for _, run := range runs {
		out = p.reportRun(out, run)
	}
	return out
}

// runeNames names the distinct characters of rs (the first four).
func runeNames(rs []rune) string {
	names := make([]string, 0, 4)
	seen := map[rune]bool{}
	for _, r := range rs {
		if !seen[r] && len(names) < 4 {
			seen[r] = true
			names = append(names, charName(r))
		}
	}
	return strings.Join(names, ", ")
}

func (p *parsed) reportRun(out []Finding, run hidden) []Finding {
	what := runeNames(run.runes)
	switch {
	case run.code:
		if id := p.identAtCached(run.start); id != nil {
			return add(out, "unicode/invisible", Error, run.start, run.end, fmt.Sprintf("invisible %s in the %s %q: it looks like another name; remove it", what, id.what, id.text))
		}
		return add(out, "unicode/invisible", Error, run.start, run.end, fmt.Sprintf("invisible %s in code: the code does not read as it runs; remove it", what))
	}
	return add(out, "unicode/invisible", warning, run.start, run.end, fmt.Sprintf("invisible %s in %s: remove it unless the text needs it", what, p.placeOf(run.start)))
}

// validTagSequence reports whether the tag characters src[i:j], after
// prev, are an emoji tag sequence of a subdivision flag: U+1F3F4, then
// 3 to 6 tag letters or digits, then U+E007F CANCEL TAG. That leaves no
// room for a message.
func validTagSequence(src []byte, i, j int, prev rune) bool {
	if prev != 0x1F3F4 {
		return false
	}
	n := 0
	for k := i; k < j; {
		t, m := utf8.DecodeRune(src[k:])
		k += m
		if k == j {
			return t == 0xE007F && n >= 3 && n <= 6
		}
		a := t - 0xE0000
		if !(a >= 'a' && a <= 'z' || a >= '0' && a <= '9') {
			return false
		}
		n++
	}
	return false
}

// decodeTags spells the ASCII that tag characters stand for.
func decodeTags(b []byte) string {
	var s strings.Builder
	for _, r := range string(b) {
		a := r - 0xE0000
		switch {
		case a >= 0x20 && a < 0x7F:
			s.WriteRune(a)
		case a == 0x7F:
			s.WriteString("⟨CANCEL TAG⟩")
		default:
			fmt.Fprintf(&s, "⟨U+%04X⟩", r)
		}
		if s.Len() > 400 {
			s.WriteString("…")
			break
		}
	}
	return s.String()
}

// placeOf is the place of an offset of the file.
func (p *parsed) placeOf(off int) place {
	if off >= p.sigStart && off < p.sigEnd {
		return placeSig
	}
	switch p.form {
	case formMarkdown:
		return placeIn(p.markdown().spans, off, placeProse)
	case formYAML, formOther:
		return placeMeta
	case formShell, formJS:
		if off < p.headerEnd() {
			return placeMeta
		}
	}
	return placeCode
}

// headerEnd is the end of the leading comment lines of a shell or JS tool
// (its metadata header).
func (p *parsed) headerEnd() int {
	prefix := "#"
	if p.form == formJS {
		prefix = "//"
	}
	off := 0
	for off < len(p.src) {
		next := lineEndAt(p.src, off)
		line := strings.TrimSpace(string(p.src[off:next]))
		if line != "" && !strings.HasPrefix(line, prefix) {
			return off
		}
		off = next
	}
	return off
}

// inCode reports whether off is in code or in one of the identifiers.
func (p *parsed) inCode(off int, ids []ident) bool {
	return p.placeOf(off) == placeCode || identAt(ids, off) != nil
}

// ident is a name in an item's metadata: an id, a key, a parameter name.
type ident struct {
	text       string
	start, end int
	what       string // "key", "name", "parameter"
}

func identAt(ids []ident, off int) *ident {
	for k := range ids {
		if off >= ids[k].start && off < ids[k].end {
			return &ids[k]
		}
	}
	return nil
}

func (p *parsed) identAtCached(off int) *ident { return identAt(p.identifiers(), off) }

// identifiers lists the names of the item's metadata that are not ASCII:
// every key, and the values of "name" and "id" fields (a directive's
// name, its inputs' and outputs' names, a knowledge entry's id). Parameter
// names are the keys of a schema's properties.
func (p *parsed) identifiers() []ident {
	if p.hits(); p.meta == nil || p.ascii {
		return nil
	}
	var out []ident
	var walk func(n *syntax.Node, key string, depth int)
	walk = func(n *syntax.Node, key string, depth int) {
		if n == nil || depth > 64 {
			return
		}
		switch n.Kind {
		case syntax.MapNode:
			for _, f := range n.Fields {
				if !isASCIIString(f.Key) && f.KeyPos.IsValid() {
					what := "key"
					if key == "properties" {
						what = "parameter"
					}
					out = append(out, ident{text: f.Key, start: f.KeyPos.Offset, end: f.KeyPos.Offset + keyLen(p.src, f.KeyPos.Offset, f.Key), what: what})
				}
				walk(f.Value, f.Key, depth+1)
			}
		case syntax.ListNode:
			for _, it := range n.Items {
				walk(it, key, depth+1)
			}
		case syntax.StringNode:
			if (key == "name" || key == "id") && !isASCIIString(n.Str) && n.Pos.IsValid() {
				end := n.End.Offset
				if !n.End.IsValid() || end <= n.Pos.Offset {
					end = n.Pos.Offset + len(n.Raw)
				}
				out = append(out, ident{text: n.Str, start: n.Pos.Offset, end: end, what: "name"})
			}
		}
	}
	walk(p.meta.Fields, "", 0)
	return out
}

// keyLen is how many bytes a key takes in the source at off: its text,
// quoted or not.
func keyLen(src []byte, off int, key string) int {
	if off < len(src) && (src[off] == '"' || src[off] == '\'') {
		q := src[off]
		for j := off + 1; j < len(src) && src[j] != '\n'; j++ {
			if src[j] == q {
				return j + 1 - off
			}
		}
	}
	return min(len(key), len(src)-off)
}

func isASCIIString(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// checkIdentifier reports a name written in more than one script, or that
// NFKC changes.
func (p *parsed) checkIdentifier(out []Finding, id ident) []Finding {
	if scripts := mixedScripts(id.text); scripts != "" {
		out = add(out, "unicode/mixed-script", Error, id.start, id.end, fmt.Sprintf("the %s %q mixes scripts (%s): it reads as %q; write it in one script", id.what, id.text, scripts, Skeleton(id.text)))
	}
	if nf := norm.NFKC.String(id.text); nf != id.text {
		out = add(out, "unicode/nfkc", Error, id.start, id.end, fmt.Sprintf("the %s %q changes under NFKC normalization (to %q): two spellings of one name; write %q", id.what, id.text, nf, nf))
	}
	return out
}

// scriptTables are the scripts mixedScripts tells apart (Common and
// Inherited characters belong to every script).
var scriptNames = []string{"Latin", "Greek", "Cyrillic", "Armenian", "Hebrew", "Arabic", "Syriac", "Thaana",
	"Devanagari", "Bengali", "Gurmukhi", "Gujarati", "Oriya", "Tamil", "Telugu", "Kannada", "Malayalam", "Sinhala",
	"Thai", "Lao", "Tibetan", "Myanmar", "Georgian", "Hangul", "Ethiopic", "Cherokee", "Khmer", "Mongolian",
	"Hiragana", "Katakana", "Bopomofo", "Han", "Coptic", "Nko", "Tifinagh", "Vai", "Lisu", "Bamum", "Osage"}

// scriptOf is the script of r ("" for Common, Inherited and unknown).
func scriptOf(r rune) string {
	if r < 0x80 {
		if 'a' <= r|0x20 && r|0x20 <= 'z' {
			return "Latin"
		}
		return ""
	}
	for _, name := range scriptNames {
		if unicode.Is(unicode.Scripts[name], r) {
			return name
		}
	}
	return ""
}

// mixedScripts names the scripts of s when they are not one script, nor a
// combination UTS #39's "highly restrictive" level allows (Latin with Han
// and Japanese kana, with Han and Bopomofo, or with Han and Hangul).
func mixedScripts(s string) string {
	seen := map[string]bool{}
	var order []string
	for _, r := range s {
		if sc := scriptOf(r); sc != "" && !seen[sc] {
			seen[sc] = true
			order = append(order, sc)
		}
	}
	if len(order) < 2 {
		return ""
	}
	allowed := [][]string{{"Latin", "Han", "Hiragana", "Katakana"}, {"Latin", "Han", "Bopomofo"}, {"Latin", "Han", "Hangul"}}
	for _, set := range allowed {
		ok := true
		for _, sc := range order {
			ok = ok && contains(set, sc)
		}
		if ok {
			return ""
		}
	}
	return strings.Join(order, " and ")
}

func contains(set []string, s string) bool {
	for _, x := range set {
		if x == s {
			return true
		}
	}
	return false
}

// Skeleton is the UTS #39 skeleton of s: two strings with the same
// skeleton look alike ("dеploy" with a Cyrillic е, "dep1oy", "deploy").
// lint compares the skeletons of every item's id and name with each other.
func Skeleton(s string) string {
	if !isASCIIString(s) || strings.IndexByte(s, '%') >= 0 {
		return confusable.Skeleton(s)
	}
	if !strings.ContainsAny(s, asciiConfusables) {
		return s
	}
	// The table's ASCII entries, which map to ASCII ('%' excepted).
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			b.WriteString("''")
		case '0':
			b.WriteByte('O')
		case '1', 'I', '|':
			b.WriteByte('l')
		case '`':
			b.WriteByte('\'')
		case 'm':
			b.WriteString("rn")
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// asciiConfusables are the ASCII characters the UTS #39 table maps to
// something else: an ASCII string without them is its own skeleton.
const asciiConfusables = "\"%01I`m|"

// reveal returns text with what it hides made visible: tag characters
// decoded, invisible, bidirectional and control characters named, each in
// ⟨⟩. Legitimate uses (emoji sequences, joiners in Arabic or Indic text)
// are left as they are.
func reveal(text string) string {
	src := []byte(text)
	var b strings.Builder
	var prev rune
	for i := 0; i < len(src); {
		r, n := utf8.DecodeRune(src[i:])
		switch cl := classify(r); {
		case cl == cNone || r == '\t' || r == '\r' && i+n == len(src):
			b.WriteRune(r)
		case cl == cTag:
			j := i
			for j < len(src) {
				t, m := utf8.DecodeRune(src[j:])
				if classify(t) != cTag {
					break
				}
				j += m
			}
			if validTagSequence(src, i, j, prev) {
				b.Write(src[i:j])
			} else {
				fmt.Fprintf(&b, "⟨tag characters: %q⟩", decodeTags(src[i:j]))
			}
			prev, i = 0xE007F, j
			continue
		case cl == cControl && r == 0x1B:
			end := escapeEnd(src, i)
			fmt.Fprintf(&b, "⟨ESC %q⟩", string(src[i+1:end]))
			prev, i = r, end
			continue
		case (cl == cInvisible || cl == cJoiner || cl == cSelector || cl == cPrivate) && legitimate(src, i, n, r, prev):
			b.WriteRune(r)
		default:
			b.WriteString("⟨" + charName(r) + "⟩")
		}
		prev = r
		i += n
	}
	return b.String()
}
