package lint

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ryekit/rye/report"
)

// edit is one text replacement in a file, by byte offsets.
type edit struct {
	start, end int
	text       string
	msg        string
}

// Fixed is what applying fixes to one file gives.
type Fixed struct {
	File    *File
	New     []byte
	Applied []string // the fixes' messages
}

// ApplyFixes applies the first suggested fix of each fixable diagnostic.
// An edit that overlaps one already taken in the same file is not applied
// and comes back as a finding, so that a second run can take it.
func ApplyFixes(r *Result) ([]Fixed, []report.Finding) {
	sortDiagnostics(r.Fixable)
	edits := map[*File][]edit{}
	var order []*File
	var conflicts []report.Finding
	for _, d := range r.Fixable {
		f := r.Env.File(d.Pos)
		if f == nil {
			continue
		}
		fix := d.SuggestedFixes[0]
		var es []edit
		for _, te := range fix.TextEdits {
			start := r.Env.Fset.Position(te.Pos).Offset
			end := start
			if te.End.IsValid() {
				end = r.Env.Fset.Position(te.End).Offset
			}
			es = append(es, edit{start: start, end: end, text: string(te.NewText), msg: fix.Message})
		}
		if overlaps(edits[f], es) {
			pos := r.Env.Fset.Position(d.Pos)
			conflicts = append(conflicts, report.Finding{Rule: d.Analyzer.Name + "/fix-conflict", Severity: report.Warning, Path: pos.Filename, Line: pos.Line, Col: charColumn(f, pos),
				Message: "fix not applied (it overlaps another fix in this file): " + fix.Message + "; run --fix again"})
			continue
		}
		if edits[f] == nil {
			order = append(order, f)
		}
		edits[f] = append(edits[f], es...)
	}
	var out []Fixed
	for _, f := range order {
		es := edits[f]
		sort.Slice(es, func(i, j int) bool { return es[i].start < es[j].start })
		var b strings.Builder
		prev := 0
		fx := Fixed{File: f}
		for _, e := range es {
			b.Write(f.Src[prev:e.start])
			b.WriteString(e.text)
			prev = e.end
			fx.Applied = append(fx.Applied, e.msg)
		}
		b.Write(f.Src[prev:])
		fx.New = []byte(b.String())
		out = append(out, fx)
	}
	return out, conflicts
}

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

// Diff is a unified diff of a file's fix, with three lines of context,
// built from the edited line ranges (no general diff is needed: the
// changes are known).
func Diff(name string, old, new []byte) string {
	a, b := splitLines(string(old)), splitLines(string(new))
	// Common prefix and suffix of lines; what lies between changed.
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	if pre == len(a) && pre == len(b) {
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
	fmt.Fprintf(&out, "--- %s\n+++ %s (fixed)\n", name, name)
	for i := 0; i < len(hunks); {
		j := i
		for j+1 < len(hunks) && hunks[j+1][0]-hunks[j][1] <= 2*context {
			j++
		}
		as := max(hunks[i][0]-context, 0)
		ae := min(hunks[j][1]+context, len(a))
		bs := as + (hunks[i][2] - hunks[i][0])
		be := ae + (hunks[j][3] - hunks[j][1])
		fmt.Fprintf(&out, "@@ -%d,%d +%d,%d @@\n", as+1, ae-as, bs+1, be-bs)
		pa, pb := as, bs
		for k := i; k <= j; k++ {
			h := hunks[k]
			for ; pa < h[0]; pa, pb = pa+1, pb+1 {
				out.WriteString(" " + a[pa] + "\n")
			}
			for ; pa < h[1]; pa++ {
				out.WriteString("-" + a[pa] + "\n")
			}
			for ; pb < h[3]; pb++ {
				out.WriteString("+" + b[pb] + "\n")
			}
		}
		for ; pa < ae; pa++ {
			out.WriteString(" " + a[pa] + "\n")
		}
		i = j + 1
	}
	return out.String()
}

// splitLines splits text into lines without their '\n' (a final newline
// does not make an extra empty line).
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}
