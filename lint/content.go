package lint

import (
	"fmt"
	"reflect"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/ryekit/rye/content"
)

// The content analyzers run the rules of package content (what an item
// says: hidden characters, injected instructions, downloaded code,
// credentials) over every file of the chunk. contentScan runs them once
// per file, all rules at once, so that each file is parsed once for every
// rule (its Python tokens, its shell syntax tree, its Markdown layout);
// Unicode, Injection, fetchExec and Secrets each report their share.
// They are rye's own security rules: the same in every kind of project,
// RYE OS projects included.

// securityRule reports whether an analyzer is one of rye's own security
// rules (the content analyzers): labelled so in SARIF, run by signing,
// and not silenced by what a change under review adds.
func securityRule(analyzer string) bool {
	for _, a := range content.Analyzers {
		if a == analyzer {
			return true
		}
	}
	return false
}

// scanned is contentScan's result: each file's findings.
type scanned map[*file][]content.Finding

// contentScan runs the per-file content rules; it reports nothing itself.
var contentScan = &analysis.Analyzer{
	Name:       "contentscan",
	Doc:        "run the per-file content rules once for the unicode, injection, fetchexec and secrets analyzers",
	Requires:   []*analysis.Analyzer{input, parse},
	ResultType: reflect.TypeOf(scanned(nil)),
	Run:        runContentScan,
}

func runContentScan(pass *analysis.Pass) (any, error) {
	e := env(pass)
	parsed := pass.ResultOf[parse].(parsed)
	all := append(append([]*file(nil), e.Files...), e.Others...)
	found := make([][]content.Finding, len(all))
	each(all, func(i int, f *file) {
		if f.ReadErr != nil || f.Oddity != nil && f.Oddity.Symlink || len(f.Src) == 0 {
			return
		}
		cf := &content.File{Name: f.Rel, Src: f.Src}
		if f.IsItem() {
			cf.Kind, cf.Meta, cf.MetaRead = f.Kind, parsed[f], true
		}
		found[i] = content.Check(cf)
	})
	out := scanned{}
	for i, fs := range found {
		if len(fs) > 0 {
			out[all[i]] = fs
		}
	}
	return out, nil
}

// reportContent reports the findings of one content analyzer.
func reportContent(pass *analysis.Pass) {
	e, r := env(pass), reporter{pass}
	scanned := pass.ResultOf[contentScan].(scanned)
	for _, group := range [][]*file{e.Files, e.Others} {
		for _, f := range group {
			for _, fd := range scanned[f] {
				analyzer, name, _ := strings.Cut(fd.Rule, "/")
				if analyzer != pass.Analyzer.Name {
					continue
				}
				r.at(string(fd.Severity), name, f.tok.Pos(fd.Offset), f.tok.Pos(fd.End), fd.Message)
			}
		}
	}
}

// securityNote ends the documentation of rye's own security rules.
const securityNote = `

This is one of rye's own security rules (unicode, injection, fetchexec,
secrets): the same in every kind of project, RYE OS projects included.
Signing refuses an item with an error-level finding of it unless the
signer passes --allow-content-findings, and under --trust-ref a
rye:ignore comment or a settings change that the change under review adds
does not silence an error-level finding.`

// unicode reports characters that change what a reader sees.
var unicode = &analysis.Analyzer{
	Name: "unicode",
	Doc: `report characters that hide text or change what a reader sees

tag: Unicode tag characters (U+E0000-E007F) spell ASCII that no editor or
diff shows and every model reads; the finding decodes it. A subdivision
flag (an emoji tag sequence) is left alone.
bidi: bidirectional embeddings and overrides (U+202A-202E) anywhere;
isolates (U+2066-2069) not closed on their line, or in code; marks in code
or names (Trojan Source).
invisible: zero-width characters, word joiner, soft hyphen, Hangul
fillers, variation selectors that select nothing, private use characters:
errors in code and names and when three or more are on one line, warnings
in text. ZWJ in emoji, ZWJ/ZWNJ in Arabic, Persian and Indic text, VS15/VS16
after emoji are left alone.
control: C0 and C1 controls, DEL, terminal escape sequences, a carriage
return without a line feed, U+2028/2029.
mixed-script, nfkc: names, keys and parameter names written in two
scripts, or that NFKC normalization changes.
confusable: an item id that looks like another item's id of the same
kind (UTS #39 skeleton: dep1oy and deploy).` + securityNote,
	URL:      docURL("unicode"),
	Requires: []*analysis.Analyzer{input, contentScan},
	Run: func(pass *analysis.Pass) (any, error) {
		reportContent(pass)
		reportConfusables(pass)
		return nil, nil
	},
}

// injection reports text written for the model and not for the reviewer.
var injection = &analysis.Analyzer{
	Name: "injection",
	Doc: `report instructions hidden from the reviewer and prompt-injection phrases

hidden-comment: an HTML comment of a Markdown item that speaks to the model
(hidden when the page is rendered); hidden-html: an element styled or
marked invisible that holds text; exfil-url: an image (error) or link
(warning) whose URL sends an {input:...} value to another host.
override ("ignore previous instructions"), concealment ("do not tell the
user"), role-tag (</system>, <|im_start|>, [INST]): errors in hidden
parts, metadata and a tool's code; warnings in a directive's or knowledge
entry's visible text, where a guardrail may discuss them (quoted or in
code they are not reported); role tags in code blocks are documentation.` + securityNote,
	URL:      docURL("injection"),
	Requires: []*analysis.Analyzer{input, contentScan},
	Run: func(pass *analysis.Pass) (any, error) {
		reportContent(pass)
		return nil, nil
	},
}

// fetchExec reports code that downloads code and runs it.
var fetchExec = &analysis.Analyzer{
	Name: "fetchexec",
	Doc: `report code that downloads code and runs it, and run-time installs

On the shell syntax tree (shell tools, fenced and inline code of Markdown
items, the command lines of YAML and TOML tools, commands given to
os.system or subprocess): a downloader (curl, wget, fetch, iwr) piped into
a shell or interpreter, bash <(curl ...), eval "$(curl ...)", source <(...),
a downloaded file run, decoded data piped into a shell. On Python tokens:
exec, eval, compile or pickle.loads of downloaded or decoded data, directly
or through a variable. pip install, npm install, npx, uvx at run time are
warnings. In a knowledge entry's code blocks findings are warnings and
installs are not reported. A shell tool that does not parse is an error.` + securityNote,
	URL:      docURL("fetchexec"),
	Requires: []*analysis.Analyzer{input, contentScan},
	Run: func(pass *analysis.Pass) (any, error) {
		reportContent(pass)
		return nil, nil
	},
}

// reportConfusables reports the items of the chunk whose id looks like
// another item's id of the same kind and space: the same UTS #39
// skeleton (dep1oy and deploy, rn and m), case aside (ids reports that).
func reportConfusables(pass *analysis.Pass) {
	e, r := env(pass), reporter{pass}
	conf := e.confusables()
	for _, f := range e.Files {
		for _, other := range conf[f] {
			r.at(sevError, "confusable", f.start(), 0, fmt.Sprintf("%s %s looks like %s %s (the same UTS #39 skeleton %q): a reader takes one for the other; rename one of them", f.Kind, f.ID, other.Kind, other.ID, content.Skeleton(string(f.ID))))
		}
	}
}

// confusables finds, once per run, the items whose ids look alike.
func (e *Env) confusables() map[*file][]*file {
	if e.shared == nil {
		e.shared = &shared{}
	}
	e.shared.confOnce.Do(func() {
		bySkeleton := map[string][]*file{}
		for _, f := range e.all() {
			if f.IsItem() {
				k := f.Space.Label + "\x00" + string(f.Kind) + "\x00" + content.Skeleton(string(f.ID))
				bySkeleton[k] = append(bySkeleton[k], f)
			}
		}
		out := map[*file][]*file{}
		for _, files := range bySkeleton {
			if len(files) < 2 {
				continue
			}
			for _, f := range files {
				for _, g := range files {
					if f != g && !strings.EqualFold(string(f.ID), string(g.ID)) {
						out[f] = append(out[f], g)
					}
				}
			}
		}
		e.shared.conf = out
	})
	return e.shared.conf
}
