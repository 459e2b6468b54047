package lint

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/item/syntax"
	"github.com/ryekit/rye/report"
)

// edit is one text replacement in a file, by byte offsets.
type edit struct {
	start, end int
	text       string
}

// fix is one diagnostic's first suggested fix, as edits of one file.
type fix struct {
	diag  diagnostic
	edits []edit
	msg   string
}

// Fixed is what applying fixes to one file gives.
type Fixed struct {
	File    *file
	New     []byte
	Applied []string // the fixes' messages
}

// applyFixes applies the first suggested fix of each fixable diagnostic,
// file by file in position order, keeping a fix only when it is safe:
//
//   - an edit that overlaps one already taken in the same file is left for
//     a second run (a "fix-conflict" warning);
//   - a fix after which the item breaks a metadata rule it did not break
//     before (a directive's name set to its file name "Bad-Name", which is
//     not snake_case) is not applied at all (a "fix-rejected" warning that
//     says which rule and what to do instead): --fix must never write a
//     file that another rule then rejects.
func applyFixes(r *Result) ([]Fixed, []report.Finding) {
	sortDiagnostics(r.Fixable)
	byFile := map[*file][]fix{}
	var order []*file
	for _, d := range r.Fixable {
		f := r.Env.File(d.Pos)
		if f == nil {
			continue
		}
		sf := d.SuggestedFixes[0]
		fx := fix{diag: d, msg: sf.Message}
		for _, te := range sf.TextEdits {
			start := r.Env.Fset.Position(te.Pos).Offset
			end := start
			if te.End.IsValid() {
				end = r.Env.Fset.Position(te.End).Offset
			}
			fx.edits = append(fx.edits, edit{start: start, end: end, text: string(te.NewText)})
		}
		if byFile[f] == nil {
			order = append(order, f)
		}
		byFile[f] = append(byFile[f], fx)
	}
	var out []Fixed
	var skipped []report.Finding
	for _, f := range order {
		var taken []edit
		var applied []string
		src := f.Src
		for _, fx := range byFile[f] {
			if overlaps(taken, fx.edits) {
				skipped = append(skipped, r.fixFinding(f, fx, "fix-conflict", "fix not applied (it overlaps another fix in this file): "+fx.msg+"; it is applied when the fixes are made again (rye lint --fix)"))
				continue
			}
			next := apply(f.Src, append(append([]edit(nil), taken...), fx.edits...))
			if broken := newProblems(r.Env, f, src, next); len(broken) > 0 {
				skipped = append(skipped, r.fixFinding(f, fx, "fix-rejected", fmt.Sprintf("fix not applied: after %q the item would break another rule (%s); fix it by hand", fx.msg, describe(broken))))
				continue
			}
			taken = append(taken, fx.edits...)
			applied = append(applied, fx.msg)
			src = next
		}
		if len(applied) > 0 {
			out = append(out, Fixed{File: f, New: src, Applied: applied})
		}
	}
	return out, skipped
}

// fixFinding is a warning about a fix that was not applied, at its
// diagnostic.
func (r *Result) fixFinding(f *file, fx fix, name, msg string) report.Finding {
	pos := r.Env.Fset.Position(fx.diag.Pos)
	return report.Finding{Rule: fx.diag.Analyzer.Name + "/" + name, Severity: report.Warning, Path: pos.Filename, Line: pos.Line, Col: charColumn(f, pos),
		Message: msg, Kind: string(f.Kind), ID: string(f.ID)}
}

// apply makes the edits (which do not overlap) to src.
func apply(src []byte, es []edit) []byte {
	es = append([]edit(nil), es...)
	sort.SliceStable(es, func(i, j int) bool { return es[i].start < es[j].start })
	var b strings.Builder
	prev := 0
	for _, e := range es {
		b.Write(src[prev:e.start])
		b.WriteString(e.text)
		prev = e.end
	}
	b.Write(src[prev:])
	return []byte(b.String())
}

// newProblems returns the metadata problems (item.Validate: the file
// form's reader and the kind's extractor rules) that an item has with the
// bytes after but not with the bytes before: what a fix would break,
// including a value it writes that another rule rejects (a name set to a
// file name that is not snake_case). A file that is not an item has none.
func newProblems(e *Env, f *file, before, after []byte) []string {
	if !f.IsItem() {
		return nil
	}
	x := e.Extractors[f.Kind]
	had := map[string]int{}
	for _, p := range item.Validate(x, f.Kind, f.ID, f.Name, before) {
		had[problemKey(p)]++
	}
	var out []string
	for _, p := range item.Validate(x, f.Kind, f.ID, f.Name, after) {
		k := problemKey(p)
		if had[k] > 0 {
			had[k]--
			continue
		}
		msg := p.Msg
		if p.Field != "" {
			msg = p.Field + ": " + msg
		}
		out = append(out, msg)
	}
	return out
}

// problemKey identifies a problem apart from its position: a fix moves
// text, but a value it writes that a rule rejects is a new message.
func problemKey(p *syntax.Error) string { return p.Field + "\x00" + p.Rule + "\x00" + p.Msg }

// describe joins problems for a message.
func describe(problems []string) string { return strings.Join(problems, "; ") }

func overlaps(taken, next []edit) bool {
	for _, a := range taken {
		for _, b := range next {
			if a.start < b.end && b.start < a.end || a.start == b.start {
				return true
			}
		}
	}
	return false
}

// Diff is a fix of one file as a git-style unified diff, three lines of
// context, that git apply (and patch -p1) accept: "diff --git a/P b/P"
// and "--- a/P" / "+++ b/P" headers, where P is the file's path relative
// to the repository's top level, and "\ No newline at end of file" where
// a file ends without one. It is built from the edited line ranges (no
// general diff is needed: the changes are known).
func Diff(path string, old, new []byte) string {
	a, b := splitLines(string(old)), splitLines(string(new))
	aNoEOL := len(old) > 0 && old[len(old)-1] != '\n'
	bNoEOL := len(new) > 0 && new[len(new)-1] != '\n'
	// Common prefix and suffix of lines; what lies between changed.
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	if pre == len(a) && pre == len(b) && aNoEOL == bNoEOL {
		return ""
	}
	// Within the changed region, split into hunks at runs of more than six
	// equal lines (an edit per line keeps the same number of lines).
	var hunks [][4]int // aStart, aEnd, bStart, bEnd (changed lines only)
	ai, bi := pre, pre
	aEnd, bEnd := len(a)-suf, len(b)-suf
	if aEnd-ai == bEnd-bi {
		start := -1
		for k := 0; ai+k < aEnd; k++ {
			same := a[ai+k] == b[bi+k]
			if !same && start < 0 {
				start = k
			}
			if same && start >= 0 {
				hunks = append(hunks, [4]int{ai + start, ai + k, bi + start, bi + k})
				start = -1
			}
		}
		if start >= 0 {
			hunks = append(hunks, [4]int{ai + start, aEnd, bi + start, bEnd})
		}
	} else {
		hunks = [][4]int{{ai, aEnd, bi, bEnd}}
	}
	const context = 3
	var out strings.Builder
	fmt.Fprintf(&out, "diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n", path, path, path, path)
	line := func(prefix, text string, noEOL bool) {
		out.WriteString(prefix + text + "\n")
		if noEOL {
			out.WriteString("\\ No newline at end of file\n")
		}
	}
	for i := 0; i < len(hunks); {
		j := i
		for j+1 < len(hunks) && hunks[j+1][0]-hunks[j][1] <= 2*context {
			j++
		}
		as := max(hunks[i][0]-context, 0)
		ae := min(hunks[j][1]+context, len(a))
		bs := as + (hunks[i][2] - hunks[i][0])
		be := ae + (hunks[j][3] - hunks[j][1])
		fmt.Fprintf(&out, "@@ -%s +%s @@\n", hunkRange(as, ae-as), hunkRange(bs, be-bs))
		pa, pb := as, bs
		for k := i; k <= j; k++ {
			h := hunks[k]
			for ; pa < h[0]; pa, pb = pa+1, pb+1 {
				line(" ", a[pa], aNoEOL && pa == len(a)-1)
			}
			for ; pa < h[1]; pa++ {
				line("-", a[pa], aNoEOL && pa == len(a)-1)
			}
			for ; pb < h[3]; pb++ {
				line("+", b[pb], bNoEOL && pb == len(b)-1)
			}
		}
		for ; pa < ae; pa, pb = pa+1, pb+1 {
			line(" ", a[pa], aNoEOL && pa == len(a)-1)
		}
		i = j + 1
	}
	return out.String()
}

// hunkRange is a hunk header's "start,count" (1-based; an empty range
// names the line before it, as diff writes it).
func hunkRange(start, count int) string {
	if count == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	return fmt.Sprintf("%d,%d", start+1, count)
}

// splitLines splits text into lines without their '\n' (a final newline
// does not make an extra empty line).
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}
