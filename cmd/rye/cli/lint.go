package cli

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/tools/go/analysis"

	"github.com/ryekit/rye/config"
	"github.com/ryekit/rye/internal/atomicfile"
	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/lint"
	"github.com/ryekit/rye/report"
	"github.com/ryekit/rye/verify"
)

// lintOptions are the flags of rye lint (and the lint part of rye check).
type lintOptions struct {
	format  string
	fix     bool
	diff    bool
	enable  []string
	disable []string
}

func (o *lintOptions) flags(cmd *cobra.Command, withFormat bool) {
	f := cmd.Flags()
	if withFormat {
		f.StringVar(&o.format, "format", "text", "output `FORMAT`: text, json, sarif or github")
	}
	f.BoolVar(&o.fix, "fix", false, "apply the suggested fixes (atomically, file by file)")
	f.BoolVar(&o.diff, "diff", false, "print the suggested fixes as a unified diff; change nothing")
	f.StringArrayVar(&o.enable, "enable", nil, "run only these `ANALYZERS` (comma-separated, repeatable)")
	f.StringArrayVar(&o.disable, "disable", nil, "do not run these `ANALYZERS` (comma-separated, repeatable)")
}

func (a *app) lintCommand() *cobra.Command {
	o := &lintOptions{}
	cmd := &cobra.Command{
		Use:   "lint [KIND] [PATHS or PATTERNS...]",
		Short: "Check items offline: metadata, ids, chains, schemas, directives, signatures, secrets",
		Long: `rye lint runs every analyzer over the project's items (or those the
patterns select): ` + strings.Join(lint.AnalyzerNames(), ", ") + `.
Each finding is path:line:col: severity: message [analyzer/rule];
docs/lint.md documents every analyzer with a bad and a good example.

--fix applies the suggested fixes (category and names to match the file's
place, quoted versions) atomically and says which items now need signing;
--diff prints them as a unified diff instead, and exits 1 when there is
anything to fix. Analyzers are chosen with --enable/--disable or
lint.enable/lint.disable in .ai/config/rye.yaml, whose lint.severity can
change an analyzer's severity (error, warning, info, off). A finding on a
line with a comment "rye:ignore <analyzer> -- <reason>" is suppressed; a
suppression without a reason is itself an error.`,
		ValidArgsFunction: a.completeKindOrID,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runLint(o, args)
		},
	}
	o.flags(cmd, true)
	return cmd
}

// lintSettings resolves the analyzers and severities from the settings
// (lint.Settings: a tree under check can only make them stricter) and the
// command line's --enable and --disable, which are the runner's own.
func lintSettings(o *lintOptions, s *config.Settings) ([]*analysis.Analyzer, map[string]string, error) {
	base, tighten := s.Lint()
	base.Enable = append(base.Enable, o.enable...)
	base.Disable = append(base.Disable, o.disable...)
	analyzers, severity, err := lint.Settings(base, tighten)
	if err != nil {
		return nil, nil, usageError("%v", err)
	}
	return analyzers, severity, nil
}

func (a *app) runLint(o *lintOptions, args []string) error {
	if o.fix && o.diff {
		return usageError("--fix and --diff do not go together: --diff shows what --fix would write")
	}
	p, err := a.project()
	if err != nil {
		return err
	}
	s, err := a.settings(verify.SettingsOptions{})
	if err != nil {
		return err
	}
	analyzers, severity, err := lintSettings(o, s)
	if err != nil {
		return err
	}
	ss, _ := a.getSpaces()
	kinds, patterns := splitKind(args)
	env, err := lint.Load(ss, p, kinds, patterns, a.workDir())
	if err != nil {
		return usageError("%v", err)
	}
	if err := a.attachVerifier(env); err != nil {
		return err
	}
	res, err := lint.Lint(env, lint.Options{Analyzers: analyzers, Severity: severity})
	if err != nil {
		return usageError("%v", err)
	}
	if o.diff || o.fix {
		fixed, conflicts := lint.ApplyFixes(res)
		if o.diff {
			for _, fx := range fixed {
				fmt.Fprint(a.stdout, lint.Diff(fx.File.Name, fx.File.Src, fx.New))
			}
			if len(fixed) == 0 {
				a.info("no fixes to apply")
				return nil
			}
			return errReported // there is something to fix
		}
		if err := a.writeFixes(fixed); err != nil {
			return err
		}
		if len(fixed) > 0 {
			// Report what is left, on the files as they are now.
			if env, err = lint.Load(ss, p, kinds, patterns, a.workDir()); err != nil {
				return usageError("%v", err)
			}
			if err := a.attachVerifier(env); err != nil {
				return err
			}
			if res, err = lint.Lint(env, lint.Options{Analyzers: analyzers, Severity: severity}); err != nil {
				return usageError("%v", err)
			}
		}
		res.Findings = append(res.Findings, conflicts...)
	}
	rep := lintReport(res, "rye lint")
	return a.writeLintReport(rep, len(env.Files), o.format)
}

// attachVerifier lets the signature analyzer verify items against the
// working tree's trust store under the configured policy.
func (a *app) attachVerifier(env *lint.Env) error {
	v, err := a.verification(&verifyOptions{}, false)
	if err != nil {
		return err
	}
	a.warnTrust(v)
	env.Verify = func(f *lint.File, md *item.Metadata) verify.Result {
		return verify.Check(verify.Input{Kind: f.Kind, ID: f.ID, Space: f.Space.Label, Path: f.Name, Embedded: f.Space.Embedded(), Data: f.Src, ReadErr: f.ReadErr, Meta: md}, v.trust, v.policy)
	}
	return nil
}

// writeFixes writes fixed files atomically and says which items now need
// signing (their bytes changed).
func (a *app) writeFixes(fixed []lint.Fixed) error {
	var resign []string
	for _, fx := range fixed {
		file := filepath.Join(fx.File.Space.AI(), filepath.FromSlash(fx.File.Rel))
		if err := atomicfile.WriteFile(file, fx.New, 0o644); err != nil {
			return findings("writing %s: %v", fx.File.Name, err)
		}
		a.info("fixed %s: %s", fx.File.Name, strings.Join(fx.Applied, "; "))
		if fx.File.IsItem() {
			resign = append(resign, fx.File.Name)
		}
	}
	if len(resign) > 0 {
		a.info("these items changed and need signing again: rye sign %s", strings.Join(resign, " "))
	}
	return nil
}

// lintReport turns a lint result into a report.
func lintReport(res *lint.Result, tool string) *report.Report {
	rep := &report.Report{Tool: tool, Findings: res.Findings}
	rep.Version, _, _ = Version()
	for i, f := range res.Findings {
		rep.AddRule(lint.RuleFor(f.Rule))
		// The signature analyzer's legacy-format warning ("signature/v1",
		// worded as verify words it) is grouped as verify groups it.
		if format, ok := strings.CutPrefix(f.Rule, "signature/"); ok && f.Severity == report.Warning && strings.HasPrefix(f.Message, format+" signature:") {
			groupLegacy(rep, &rep.Findings[i], format)
		}
	}
	return rep
}

// lintSummary is the summary object of lint's JSON output.
type lintSummary struct {
	Items    int `json:"items"`
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
}

func (a *app) writeLintReport(rep *report.Report, items int, format string) error {
	sum := lintSummary{Items: items, Errors: rep.Count(report.Error), Warnings: rep.Count(report.Warning)}
	line := report.Plural(items, "file") + ": " + report.Join(report.Plural(sum.Errors, "error"), report.Plural(sum.Warnings, "warning"))
	if sum.Errors+sum.Warnings == 0 {
		line = report.Plural(items, "file") + ": no problems"
	}
	return a.renderReport(rep, line, sum, format)
}
