package verify

import (
	"strings"

	"github.com/ryekit/rye/report"
)

// groupRyeOS puts the findings of a RyeOS 0.2+ project's results (those
// of space label) into groups, one per cause: a tree signed by a key the
// store does not trust, or not signed at all, is hundreds of files that
// fail for one reason, and text and GitHub output show each group as one
// line with its count and the command that fixes it (JSON and SARIF keep
// every finding).
func groupRyeOS(rep *report.Report, results []Result, label string) {
	byPath := make(map[string]*Result, len(results))
	for i := range results {
		if results[i].Space == label {
			byPath[results[i].Path] = &results[i]
		}
	}
	for i := range rep.Findings {
		f := &rep.Findings[i]
		r := byPath[f.Path]
		if f.Group != "" || r == nil || !strings.HasPrefix(f.Rule, "verify/") {
			continue
		}
		var key, summary string
		switch {
		case f.Severity == report.Warning && strings.HasPrefix(f.Message, ryeOSItemWarning):
			key, summary = "ryeos-not-loadable", "%s of RyeOS 0.2+ (directives, tools, knowledge) verify but rye cannot load or execute them (-v lists them)"
		case f.Severity != report.Error:
			continue
		case r.Verdict == Unsigned:
			key, summary = "ryeos-unsigned", "%s unsigned (-v lists them); sign them with your key: rye sign \"**\""
		case r.Verdict == UntrustedKey:
			key = "ryeos-untrusted-" + r.Fingerprint
			summary = "%s signed by key " + r.Fingerprint + ", which is not in the trust store (-v lists them); if you trust its owner: rye trust add <their public key, RyeOS trusted-key document or PUBLISHER_TRUST.toml>, or put their trusted-key document in .ai/config/keys/trusted/"
		case r.Verdict == Modified:
			key, summary = "ryeos-modified", "%s changed since they were signed (-v lists them); if the changes are intended, sign them again: rye sign \"**\""
		default:
			key, summary = "ryeos-"+string(r.Verdict), "%s "+string(r.Verdict)+" ("+r.Verdict.Description()+" -v lists them with the fix)"
		}
		f.Group = key
		rep.AddGroup(report.Group{Key: key, Summary: summary})
	}
}
