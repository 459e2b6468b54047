package verify

import (
	"fmt"
	"slices"

	"github.com/ryekit/rye/report"
	"github.com/ryekit/rye/space"
)

// docURL is a section of docs/verify.md: every verdict and finding of
// verification links to its fix there.
func docURL(anchor string) string {
	return "https://github.com/ryekit/rye/blob/main/docs/verify.md#" + anchor
}

// Report is the finding model of one project's verification: a report
// item per result, a finding per failure and per warning, the trusted-key
// files that were ignored, the keys the change adds or edits under a
// trust ref, and the tracked files the executor would refuse. notes go
// first (the settings' notes); project is the project verified (nil for
// the user or system tier); listVerified adds a note per verified item
// (-v).
func (res *Results) Report(notes []string, project *space.Space, listVerified bool) *report.Report {
	rep := &report.Report{Tool: "rye verify", Notes: append(append([]string(nil), notes...), res.Notes...)}
	if project != nil {
		if note := project.Layout().Note(); note != "" {
			rep.Notes = append([]string{note}, rep.Notes...)
		}
	}
	AddVerdicts(rep, res.Items, listVerified)
	if project != nil && project.Layout().RyeOS {
		groupRyeOS(rep, res.Items, project.Label)
	}
	rep.Passed = res.Passed
	for _, p := range res.Trust.Problems {
		rep.Add(report.Finding{Rule: "verify/trust-store", Severity: report.Warning, Path: p.Path, Message: p.Reason})
	}
	for _, f := range res.RunFiles {
		rule := "verify/tracked-run-file"
		rep.AddRule(report.Rule{ID: rule, Short: "Git tracks a file outside .ai/ that rye execute would use without verifying it.", Help: "Interpreters, packages and .env files are not items: nothing signs them. See the URL.", URL: "https://github.com/ryekit/rye/blob/main/docs/execute.md#what-a-project-can-and-cannot-choose"})
		rep.Add(report.Finding{Rule: rule, Severity: report.Error, Path: project.ShownRootPath(f.Path), Line: 1, Col: 1,
			Message: fmt.Sprintf("%s is tracked by git: %s unverified, so rye execute refuses it; remove it from git (git rm -r --cached %s) and list it in .gitignore", f.Path, f.Why, f.Path)})
	}
	for _, n := range res.Nested {
		rule := "verify/nested-project"
		rep.AddRule(report.Rule{ID: rule, Short: "A project git tracks below this one is not checked by this run.", Help: "A nested project has its own .ai/ folder and trusted keys, and rye execute there runs its tools: a gate must check it too. See the URL.", URL: docURL("nested-projects")})
		f := report.Finding{Rule: rule, Severity: report.Warning, Path: n.Path, Line: 1, Col: 1,
			Message: fmt.Sprintf("%s is a project of its own (its own .ai/ and trusted keys) that this run does not check: check every project with rye check --all-projects, or this one with rye -C %s check", n.Path, n.Path)}
		switch {
		case n.Added:
			f.Severity = report.Error
			f.Message = fmt.Sprintf("this change adds %s, a project of its own (its own .ai/ and trusted keys) that %s does not have and that this run does not check: its tools would run under keys nobody reviewed; check every project with rye check --all-projects", n.Path, res.Trust.Ref())
		case n.Changed:
			f.Severity = report.Error
			f.Message = fmt.Sprintf("this change alters the .ai/ of %s, a project of its own (its own trusted keys) that this run does not check: what it adds there would run unreviewed; check every project with rye check --all-projects, or this one with rye -C %s check --trust-ref %s", n.Path, n.Path, res.Trust.Ref())
		}
		rep.Add(f)
	}
	if c := res.LayoutChange; c != nil && project != nil {
		rule := "verify/layout-changed"
		rep.AddRule(report.Rule{ID: rule, Short: "The change switches how rye reads the project: rye's layout or RyeOS 0.2+'s.", Help: "The layout decides which files the gate verifies; a change that switches it could take signed files out of the gate. See the URL.", URL: docURL("the-layout-a-change-cannot-switch")})
		rep.Add(report.Finding{Rule: rule, Severity: report.Error, Path: project.ShownRootPath(space.AIDir), Line: 1, Col: 1,
			Message: fmt.Sprintf("this change makes rye read the project as %s%s, where %s reads it as %s%s: the layout decides which files the gate verifies, so it is settled by a change of its own, reviewed and merged first", layoutName(c.Now), whyText(c.Now), c.Ref, layoutName(c.Was), whyText(c.Was))})
	}
	for _, v := range res.CaseVariants {
		rule := "verify/case-variant"
		rep.AddRule(report.Rule{ID: rule, Short: "A tracked path differs from the project's .ai, or a folder rye reads in it, only in letter case.", Help: "On a file system that ignores case (macOS, Windows) it is that path: rye there trusts and runs what it holds, which a run here does not check. See the URL.", URL: docURL("case-variants")})
		rep.Add(report.Finding{Rule: rule, Severity: report.Error, Path: v.Path, Line: 1, Col: 1,
			Message: fmt.Sprintf("%s differs from %s only in letter case: on a file system that ignores case (macOS, Windows) it is %s, and rye there trusts the keys and runs the items it holds, which this run does not check; rename it (git mv) or remove it", v.Path, v.Of, v.Of)})
	}
	for _, c := range res.Copies {
		rule := "verify/copy"
		rep.AddRule(report.Rule{ID: rule, Short: "An item is a copy of another file under another name, which its signature format does not bind.", Help: "v1 and the RYE OS eras sign content, not the item's kind, id or place: a signed file copied over a sibling verifies, and runs the sibling's content. See the URL.", URL: docURL("copies")})
		rep.Add(report.Finding{Rule: rule, Severity: report.Error, Path: c.Path, Line: 1, Col: 1, Kind: string(c.Kind), ID: string(c.ID),
			Message: fmt.Sprintf("a copy of %s: it carries the same %s signature, which does not bind an item to its name or place, so it would run that file's content as %s %s; remove the copy, or sign the items again in v2, which binds each item's kind and id: rye sign --format v2 %s %s", c.Of, c.Format, c.Kind, c.ID, c.Kind, c.ID)})
	}
	for _, k := range res.Trust.Changed() {
		rule := "verify/key-changed"
		rep.AddRule(report.Rule{ID: rule, Short: "The change edits a trusted key's entry; the trusted ref's entry governs.", Help: "A key's scopes, expiry and owner come from the trusted ref until the change is merged. See the URL.", URL: docURL("keys-added-by-a-change")})
		rep.Add(report.Finding{Rule: rule, Severity: report.Warning, Path: k.Path, Line: 1, Col: 1,
			Message: fmt.Sprintf("this change edits the entry of trusted key %s%s (owner, scopes or expiry); %s's entry governs until the change is merged", k.Fingerprint, OwnerText(k.Owner), res.Trust.Ref())})
	}
	for _, k := range res.Trust.Added() {
		rule := "verify/key-added"
		rep.AddRule(report.Rule{ID: rule, Short: "The change adds a trusted key that the trusted ref does not have.", Help: "A key added by the change under review is not trusted until it is merged. See the URL.", URL: docURL("keys-added-by-a-change")})
		rep.Add(report.Finding{Rule: rule, Severity: report.Warning, Path: k.Path, Line: 1, Col: 1,
			Message: fmt.Sprintf("this change adds key %s%s, which %s does not trust: items it signed fail until the key is reviewed and merged into %s", k.Fingerprint, OwnerText(k.Owner), res.Trust.Ref(), res.Trust.Ref())})
	}
	return rep
}

// OwnerText is a key's owner in a message: " (owner)", or nothing.
func OwnerText(owner string) string {
	if owner == "" {
		return ""
	}
	return " (" + owner + ")"
}

// ResignV2 is what to tell the person who would vouch for a verified
// item's uncovered content: the one command that re-signs it in v2,
// whoever made its line. rye sign keeps a line another trusted key made
// unless told to replace it, so the command says so when r's signer is
// named; with the user's own line the flag changes nothing.
func ResignV2(r Result) string {
	cmd := fmt.Sprintf("rye sign --format v2 --replace-other-signers %s %s", r.Kind, r.ID)
	if r.Fingerprint == "" {
		return "if its content is yours to vouch for, re-sign it with v2: " + cmd
	}
	return fmt.Sprintf("if its content is yours to vouch for, re-sign it with v2: %s (the flag: its line is %s's%s, which rye sign otherwise keeps)", cmd, r.Fingerprint, OwnerText(r.Owner))
}

// LegacyGroup puts a legacy-format warning (verify's, or lint's signature
// analyzer's) into its format's group: the same warning on many items is
// one line in text.
func LegacyGroup(rep *report.Report, f *report.Finding, format string) {
	f.Group = "legacy-" + format
	summary := "%s verified with " + format + " signatures, which leave parts of each item unsigned (" + docURL("what-v1-does-not-catch") + "; -v or --format json lists them); re-sign them with your key: rye sign --format v2 \"**\""
	if format == "r1" || format == "ryeos" {
		summary = "%s verified with " + format + " signatures, RyeOS's own format, which signs neither the time nor the location (" + docURL("what-v1-does-not-catch") + "; -v lists them); RyeOS reads no other format, so keep them where RyeOS reads the items"
	}
	rep.AddGroup(report.Group{Key: f.Group, Summary: summary})
}

// AddVerdicts turns results into report items and findings; listVerified
// adds a note per verified item.
func AddVerdicts(rep *report.Report, results []Result, listVerified bool) {
	rep.Items = slices.Grow(rep.Items, len(results))
	for i := range results {
		r := &results[i] // a pointer in the item: a copy would be 180 bytes more per item
		rep.Items = append(rep.Items, report.Item{Failed: r.Verdict.Failed(), Value: r})
		if r.Verdict.Failed() {
			rule := "verify/" + string(r.Verdict)
			rep.AddRule(report.Rule{ID: rule, Short: r.Verdict.Description(), Help: r.Verdict.Description() + " See the URL for the fix.", URL: docURL(string(r.Verdict))})
			rep.Add(report.Finding{Rule: rule, Severity: report.Error, Path: r.Path, Line: max(r.Line, 1), Col: 1, Message: string(r.Verdict) + ": " + r.Reason, Kind: string(r.Kind), ID: string(r.ID)})
		}
		for _, w := range r.Warnings {
			rule := "verify/warning"
			rep.AddRule(report.Rule{ID: rule, Short: "Verified, with something to act on: a key that expires soon, or a legacy signature format.", URL: docURL("warnings")})
			f := report.Finding{Rule: rule, Severity: report.Warning, Path: r.Path, Line: max(r.Line, 1), Col: 1, Message: w, Kind: string(r.Kind), ID: string(r.ID)}
			if r.IsLegacyWarning(w) {
				LegacyGroup(rep, &f, r.Format)
			}
			rep.Add(f)
		}
		if listVerified && !r.Verdict.Failed() {
			note := "verified"
			if r.Embedded {
				note = "verified (embedded)"
			} else if r.Fingerprint != "" {
				note += fmt.Sprintf(" (%s, key %s%s)", r.Format, r.Fingerprint, OwnerText(r.Owner))
			}
			rep.Notes = append(rep.Notes, fmt.Sprintf("%s: %s %s: %s", r.Path, r.Kind, r.ID, note))
		}
	}
}

// Stream is a Request.Sink that writes each result as an item of the
// report s as it is handed on: JSON output lists every item without the
// run holding them.
func Stream(s *report.Stream) func([]Result) error {
	return func(results []Result) error {
		for i := range results {
			if err := s.Item(&results[i]); err != nil {
				return err
			}
		}
		return nil
	}
}

// layoutName names a layout for a message.
func layoutName(l space.Layout) string {
	if l.RyeOS {
		return "a RyeOS 0.2+ tree"
	}
	return "a rye project (directives, tools, knowledge)"
}

// whyText is what showed a layout, in parentheses ("" when nothing did:
// rye's layout is the default).
func whyText(l space.Layout) string {
	if l.Why == "" {
		return ""
	}
	return " (" + l.Why + ")"
}
