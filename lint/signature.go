package lint

import (
	"bytes"
	"fmt"
	"path"

	"golang.org/x/tools/go/analysis"

	"github.com/ryekit/rye/item"
)

// signature reports what verification finds, and signature lines where
// they have no effect.
var signature = &analysis.Analyzer{
	Name: "signature",
	Doc: `report every item that does not verify, v1 signatures, and misplaced signature lines

Each item's verdict comes from verification (the same checks as rye
verify): anything but verified is an error naming the verdict and the fix.
A verified v1 signature is a warning that names what v1 leaves uncovered
(the shebang of tools, the preamble and body of directives, the front
matter of knowledge, the timestamp, the location). A line that looks like a
signature but is not at the top of the file (the first line, or the second
after #!) is ignored by verification, which usually means it was pasted in
the wrong place.`,
	URL:      docURL("signature"),
	Requires: []*analysis.Analyzer{input, parse},
	Run:      runSignature,
}

func runSignature(pass *analysis.Pass) (any, error) {
	e, r := env(pass), reporter{pass}
	parsed := pass.ResultOf[parse].(parsed)
	each(e.Files, func(_ int, f *file) {
		if !f.IsItem() || f.ReadErr != nil {
			return
		}
		if e.Verify != nil {
			res := e.Verify(f, parsed[f])
			pos := f.LinePos(res.Line)
			if res.Verdict.Failed() {
				r.at(sevError, string(res.Verdict), pos, 0, string(res.Verdict)+": "+res.Reason)
			} else {
				// The legacy-format warning, worded as rye verify words it.
				for _, w := range res.Warnings {
					if res.IsLegacyWarning(w) {
						r.at(sevWarning, res.Format, pos, 0, w)
					}
				}
			}
		}
		misplaced(r, f)
	})
	return nil, nil
}

// misplaced reports signature-looking lines below the top of a file. In
// Markdown, lines inside fenced code blocks are examples (documentation
// that shows what a signature line looks like), not misplaced lines.
func misplaced(r reporter, f *file) {
	ext := path.Ext(f.Rel)
	prefix, _, ok := item.Envelope(ext)
	if !ok {
		return
	}
	var examples [][2]int
	if ext == ".md" {
		examples = item.CodeBlocks(f.Src)
	}
	inExample := func(off int) bool {
		for _, b := range examples {
			if b[0] <= off && off < b[1] {
				return true
			}
		}
		return false
	}
	_, slotEnd := item.SignatureSlot(f.Src, ext)
	marker := []byte(prefix + "rye:signed:")
	line := 1 + bytes.Count(f.Src[:slotEnd], []byte("\n"))
	for off := slotEnd; off < len(f.Src); line++ {
		end := bytes.IndexByte(f.Src[off:], '\n')
		if end < 0 {
			end = len(f.Src) - off
		}
		if bytes.HasPrefix(f.Src[off:off+end], marker) && off != slotEnd && !inExample(off) {
			r.at(sevWarning, "misplaced", f.tok.Pos(off), 0, fmt.Sprintf("a signature line on line %d, below the top of the file, is ignored by verification: the signature line is the first line (the second after #!); remove this one", line))
		}
		off += end + 1
	}
}
