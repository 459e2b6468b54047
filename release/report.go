package release

import (
	"fmt"
	"strings"

	"github.com/ryekit/rye/report"
	"github.com/ryekit/rye/verify"
)

// verdicts describe each bundle verdict, for reports.
var verdicts = map[string]string{
	unsafe:          "The archive has an entry a bundle never contains, or that could write outside its destination.",
	noManifest:      "The archive has no manifest, or more than one.",
	manifestInvalid: "The manifest does not parse, or disagrees with its place.",
	manifestFailed:  "The manifest's signature does not verify against the trust store.",
	missingFile:     "The manifest lists a file the archive does not hold.",
	extraFile:       "The archive holds a file the manifest does not list.",
	hashMismatch:    "A file's bytes differ from the hash the manifest records.",
	entryMismatch:   "A file's kind, id or signature differ from its manifest entry.",
	itemFailed:      "An item of the bundle does not verify on its own.",
}

// Report is the finding model of a checked bundle file: one verdict per
// item, shown inside the file (FILE!/.ai/...: they are not files of the
// working tree), and the bundle's own verdict.
func (r *Result) Report(file string, listVerified bool) *report.Report {
	rep := &report.Report{Tool: "rye bundle verify"}
	items := append([]verify.Result(nil), r.Items...)
	for i := range items {
		items[i].Path = file + "!/" + items[i].Path
	}
	verify.AddVerdicts(rep, items, listVerified)
	if r.Failed() {
		rule := "bundle/" + r.Verdict
		rep.AddRule(report.Rule{ID: rule, Short: verdicts[r.Verdict], Help: verdicts[r.Verdict], URL: "https://github.com/ryekit/rye/blob/main/docs/bundles.md#" + r.Verdict})
		rep.Add(report.Finding{Rule: rule, Severity: report.Error, Path: file, Line: 1, Col: 1, Message: r.Verdict + ": " + r.Reason, Kind: "bundle", ID: string(r.ID)})
	}
	rep.Items = append(rep.Items, report.Item{Failed: r.Failed(), Value: map[string]any{"kind": "bundle", "id": r.ID, "path": file, "verdict": r.Verdict, "reason": r.Reason}})
	if cmd := r.TrustCommand(file); cmd != "" {
		keys := make([]string, len(r.Untrusted))
		for i, k := range r.Untrusted {
			keys[i] = k.String()
		}
		rep.Notes = append(rep.Notes, fmt.Sprintf("the bundle ships the keys of its signers that you do not trust: %s; they are never trusted by themselves; if you trust their owners: %s", strings.Join(keys, ", "), cmd))
	}
	return rep
}
