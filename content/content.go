package content

import (
	"encoding/binary"
	"path"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/item/syntax"
)

// The analyzers the rules belong to: a rule id is "<analyzer>/<name>".
const (
	Unicode   = "unicode"
	injection = "injection"
	fetchExec = "fetchexec"
	secrets   = "secrets"
)

// Analyzers are the analyzers of the per-file rules, in report order.
var Analyzers = []string{Unicode, injection, fetchExec, secrets}

// severity is how serious a finding is. An error refuses signing and
// fails rye lint and rye check; a warning is shown and passes.
type severity string

const (
	Error   severity = "error"
	warning severity = "warning"
)

// Finding is one rule's finding at one place of a file.
type Finding struct {
	Rule     string // "unicode/tag"
	Severity severity
	// Offset and End are the bytes [Offset, End) of the file it is about.
	Offset, End int
	// Line and Col are 1-based; Col counts characters (Unicode code
	// points) from the start of the line, as SARIF's unicodeCodePoints and
	// every rye report do. EndLine and EndCol are those of End.
	Line, Col, EndLine, EndCol int
	Message                    string
	// Shown is the line of the finding with what is hidden in it made
	// visible (tag characters decoded, invisible and bidirectional
	// characters named): what signing prints, so that the signer sees
	// what a reviewer's screen did not show.
	Shown string
}

// Analyzer is the analyzer a finding belongs to ("unicode").
func (f Finding) Analyzer() string {
	a, _, _ := strings.Cut(f.Rule, "/")
	return a
}

// File is one file to judge.
type File struct {
	// Kind is the item's kind, "" for a file under .ai/ that is not an
	// item (configuration, trusted keys): only the secrets rules apply.
	Kind item.Kind
	// Name is the file's name; its extension says its form.
	Name string
	Src  []byte
	// Meta is the item's metadata when the caller has read it (nil: read
	// here, unless MetaRead says the caller tried; an item whose metadata
	// does not read is judged on its bytes).
	Meta     *item.Metadata
	MetaRead bool

	once   sync.Once
	parsed *parsed
}

// Check runs the per-file rules of the analyzers named (all when none)
// over f and returns their findings, ordered by position.
func Check(f *File, analyzers ...string) []Finding {
	if len(analyzers) == 0 {
		analyzers = Analyzers
	}
	p := f.parse()
	var out []Finding
	for _, a := range analyzers {
		switch a {
		case Unicode:
			out = append(out, p.unicode()...)
		case injection:
			out = append(out, p.injection()...)
		case fetchExec:
			out = append(out, p.fetchexec()...)
		case secrets:
			out = append(out, p.secrets()...)
		}
	}
	p.finish(out)
	slices.SortStableFunc(out, func(a, b Finding) int { return a.Offset - b.Offset })
	return out
}

// Errors are the error-level findings of every per-file rule: what
// signing refuses.
func Errors(f *File) []Finding {
	var out []Finding
	for _, fd := range Check(f) {
		if fd.Severity == Error {
			out = append(out, fd)
		}
	}
	return out
}

// form is how a file is laid out.
type form uint8

const (
	formOther    form = iota // not an item: only secrets
	formMarkdown             // directives, Markdown knowledge
	formYAML                 // YAML and TOML tools, YAML knowledge
	formPython
	formShell
	formJS
)

// parsed is a file read once for every rule.
type parsed struct {
	f     *File
	src   []byte
	form  form
	kind  item.Kind
	ext   string
	lines *syntax.LineIndex
	meta  *item.Metadata // nil when it does not read
	// sig is the signature line [start, end): its content is the format's.
	sigStart, sigEnd int
	// ascii: every byte is below 0x80 (most items): the Unicode rules
	// then only look for controls.
	ascii bool

	mdOnce sync.Once
	md     *markdown // formMarkdown
	pyOnce sync.Once
	py     *pyCode // formPython
	// hidden are the hidden HTML elements of a Markdown item.
	hiddenOnce sync.Once
	hidden     [][4]int
	lowOnce    sync.Once
	low        []byte // the file lower-cased (lower)
	hitsOnce   sync.Once
	found      []hit // the needles of the file (hits)
	hasControl bool  // the file holds a control character (hits)
}

func (f *File) parse() *parsed {
	f.once.Do(func() {
		p := &parsed{f: f, src: f.Src, kind: f.Kind, ext: path.Ext(f.Name), meta: f.Meta}
		switch {
		case f.Kind == "":
			p.form = formOther
		case p.ext == ".md":
			p.form = formMarkdown
		case p.ext == ".yaml" || p.ext == ".yml" || p.ext == ".toml":
			p.form = formYAML
		case p.ext == ".py":
			p.form = formPython
		case p.ext == ".sh":
			p.form = formShell
		case p.ext == ".js" || p.ext == ".ts":
			p.form = formJS
		}
		if p.form != formOther {
			p.sigStart, p.sigEnd = item.SignatureSlot(f.Src, p.ext)
			if !item.HasSignatureLine(f.Src, p.ext) {
				p.sigEnd = p.sigStart
			}
			if p.meta == nil && !f.MetaRead {
				if md, err := item.ReadMetadata(f.Kind, f.Name, f.Src); err == nil {
					p.meta = md
				}
			}
		}
		f.parsed = p
	})
	return f.parsed
}

// isASCII reports whether every byte of b is below 0x80, eight at a time.
func isASCII(b []byte) bool {
	i := 0
	var acc uint64
	for ; i+32 <= len(b); i += 32 {
		acc |= binary.LittleEndian.Uint64(b[i:]) | binary.LittleEndian.Uint64(b[i+8:]) |
			binary.LittleEndian.Uint64(b[i+16:]) | binary.LittleEndian.Uint64(b[i+24:])
	}
	if acc&0x8080808080808080 != 0 {
		return false
	}
	for ; i < len(b); i++ {
		if b[i] >= 0x80 {
			return false
		}
	}
	return true
}

// finish fills in the positions and the shown line of each finding.
func (p *parsed) finish(fs []Finding) {
	for i := range fs {
		f := &fs[i]
		f.Offset = min(max(f.Offset, 0), len(p.src))
		f.End = min(max(f.End, f.Offset), len(p.src))
		f.Line, f.Col = p.position(f.Offset)
		f.EndLine, f.EndCol = p.position(f.End)
		if f.Shown == "" {
			f.Shown = reveal(p.lineAt(f.Offset))
		}
	}
}

// lineIndex indexes the file's lines, when a finding needs a position.
func (p *parsed) lineIndex() *syntax.LineIndex {
	if p.lines == nil {
		p.lines = syntax.NewLineIndex(p.src)
	}
	return p.lines
}

// position is the line and character column of a byte offset.
func (p *parsed) position(off int) (line, col int) {
	pos := p.lineIndex().Pos(off)
	start := off - (pos.Col - 1)
	return pos.Line, utf8.RuneCount(p.src[start:off]) + 1
}

// lineAt is the text of the line holding off, without its line break.
func (p *parsed) lineAt(off int) string {
	pos := p.lineIndex().Pos(off)
	start := off - (pos.Col - 1)
	end := start
	for end < len(p.src) && p.src[end] != '\n' {
		end++
	}
	return strings.TrimSuffix(string(p.src[start:end]), "\r")
}

// set is a small set of strings: a slice, so that it is static data and
// needs no work at package initialisation.
type set []string

func (s set) has(x string) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

// add appends a finding of [off, end) to out.
func add(out []Finding, rule string, sev severity, off, end int, msg string) []Finding {
	return append(out, Finding{Rule: rule, Severity: sev, Offset: off, End: end, Message: msg})
}
