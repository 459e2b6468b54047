package cli

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ryekit/rye/gitrepo"
	"github.com/ryekit/rye/lint"
	"github.com/ryekit/rye/project"
	"github.com/ryekit/rye/report"
)

// lintOptions are the flags of rye lint (and the lint part of rye check).
type lintOptions struct {
	fix          bool
	diff         bool
	enable       []string
	disable      []string
	noVerify     bool
	changedSince string
	allProjects  bool
}

func (o *lintOptions) flags(cmd *cobra.Command, own bool) {
	f := cmd.Flags()
	f.BoolVar(&o.fix, "fix", false, "apply the suggested fixes (atomically, file by file)")
	f.BoolVar(&o.diff, "diff", false, "print the suggested fixes as a diff that git apply takes; change nothing")
	f.StringArrayVar(&o.enable, "enable", nil, "run only these `ANALYZERS` (comma-separated, repeatable)")
	f.StringArrayVar(&o.disable, "disable", nil, "do not run these `ANALYZERS` (comma-separated, repeatable)")
	analyzers := func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		return lint.AnalyzerNames(), cobra.ShellCompDirectiveNoFileComp
	}
	cmd.RegisterFlagCompletionFunc("enable", analyzers)
	cmd.RegisterFlagCompletionFunc("disable", analyzers)
	if own { // rye check has these as verify flags
		f.BoolVar(&o.noVerify, "no-verify", false, "leave signatures to rye verify: the signature analyzer reports misplaced signature lines only")
		f.StringVar(&o.changedSince, "changed-since", "", "lint only the files whose content differs from git commit `REF`")
		allProjectsFlag(cmd, &o.allProjects)
	}
}

func (a *app) lintCommand() *cobra.Command {
	o := &lintOptions{}
	cmd := &cobra.Command{
		Use:   "lint [KIND] [PATHS or PATTERNS...]",
		Short: "Check items offline: metadata, chains, lockfiles, schemas, signatures, hidden content, sandbox blocks",
		Long: `rye lint runs every analyzer over the project's items (or those the
patterns select): ` + strings.Join(lint.AnalyzerNames(), ", ") + `.
Each finding is path:line:col: severity: message [analyzer/rule];
docs/lint.md documents every analyzer with a bad and a good example.

--fix applies the suggested fixes (category and names to match the file's
place, quoted versions) atomically and says which items now need signing;
a fix after which another rule would reject the item is not applied.
--diff prints them as a diff for git apply instead, and exits 1 when there
is anything to fix. Analyzers are chosen with --enable/--disable or
lint.enable/lint.disable in .ai/config/rye.yaml, whose lint.severity can
change an analyzer's severity (error, warning, info, off). A finding on a
line with a comment "rye:ignore <analyzer> -- <reason>" is suppressed; a
suppression without a reason is itself an error.

A file path is linted in the project that holds it; -C DIR (repeatable) and
--all-projects lint several projects. --format, --output and --path-prefix
are those of rye verify.`,
		ValidArgsFunction: a.completeKindOrID(projectItems),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.useOutputs(cmd); err != nil {
				return err
			}
			return a.runLint(o, args)
		},
	}
	o.flags(cmd, true)
	a.out.flags(cmd)
	return cmd
}

func (a *app) runLint(o *lintOptions, args []string) error {
	if o.fix && o.diff {
		return usageError("--fix and --diff do not go together: --diff shows what --fix would write")
	}
	if o.diff && a.out.format != "text" || o.diff && len(a.outs) > 1 {
		return usageError("--diff prints a diff on stdout: it takes no --format or --output")
	}
	kinds, patterns := splitKind(args)
	parts, err := a.openRun(o.allProjects, project.Run{Kinds: kinds, Patterns: patterns})
	if err != nil {
		return err
	}
	fix := lint.NoFix
	switch {
	case o.fix:
		fix = lint.WriteFixes
	case o.diff:
		fix = lint.DiffFixes
	}
	var fixed []lint.Fixed
	files := 0
	var resign []string
	rep, err := a.merged("rye lint", parts, func(p project.Part) (*report.Report, error) {
		opts, err := lint.OptionsFor(p.Settings, o.enable, o.disable)
		if err != nil {
			return nil, err
		}
		opts.Progress = a.progress("linting: analyzers")
		req := lint.ProjectRequest{Spaces: p.Spaces, Kinds: kinds, Patterns: p.Patterns, WorkDir: a.workDir(), ChangedSince: o.changedSince,
			Policy: p.Policy, Options: opts, Fix: fix, FromChange: fromHook()}
		if !o.noVerify {
			req.Trust = p.Trust
		}
		r, err := lint.Project(req)
		var we *lint.WriteError
		switch {
		case errors.As(err, &we):
			return nil, findings("%v", err)
		case err != nil:
			return nil, err
		}
		fixed, files = append(fixed, r.Fixed...), files+r.Files
		if o.diff {
			a.cannotFix(r.Findings)
			return &report.Report{}, nil
		}
		for _, n := range notes(p.Settings) {
			fmt.Fprintf(a.stderr, "rye: warning: %s\n", n)
		}
		if req.Trust != nil {
			a.warnTrustProblems(req.Trust)
		}
		for _, fx := range r.Fixed {
			a.info("fixed %s: %s", fx.File.Name, strings.Join(fx.Applied, "; "))
			if fx.File.IsItem() {
				resign = append(resign, fx.File.Name)
			}
		}
		rep := r.Report("rye lint")
		rep.Notes = r.Notes
		return rep, nil
	})
	if err != nil {
		return err
	}
	if o.diff {
		return a.printDiffs(fixed)
	}
	if len(resign) > 0 {
		a.info("these items changed and need signing again: rye sign %s", strings.Join(resign, " "))
	}
	return a.writeLintReport(rep, files, len(parts))
}

// cannotFix says on stderr what --diff cannot fix: stdout is the patch.
func (a *app) cannotFix(fs []report.Finding) {
	for _, f := range fs {
		if strings.HasSuffix(f.Rule, "/fix-rejected") || strings.HasSuffix(f.Rule, "/fix-conflict") {
			a.info("%s:%d:%d: %s [%s]", f.Path, f.Line, f.Col, f.Message, f.Rule)
		}
	}
}

// printDiffs prints the fixes as one diff that git apply takes: paths from
// the repository's top level (or --path-prefix).
func (a *app) printDiffs(fixed []lint.Fixed) error {
	m := a.pathMapper()
	if err := a.appliesHere(m, fixed); err != nil {
		return err
	}
	for _, fx := range fixed {
		fmt.Fprint(a.stdout, lint.Diff(m.Map(fx.File.Name), fx.File.Src, fx.New))
	}
	a.rendered = true
	if len(fixed) == 0 {
		a.info("no fixes to apply")
		return nil
	}
	return errReported // there is something to fix
}

// appliesHere refuses a diff that git apply, run where rye was started,
// would apply only in part: in a sub-folder of a repository it skips every
// file of the patch outside that folder and still exits 0.
func (a *app) appliesHere(m report.Paths, fixed []lint.Fixed) error {
	cwd, err := os.Getwd()
	if err != nil || a.out.prefixSet {
		return nil
	}
	below, top := gitrepo.Below(cwd)
	if below == "." {
		return nil
	}
	for _, fx := range fixed {
		if p := m.Map(fx.File.Name); !strings.HasPrefix(p, below+"/") {
			work, _ := gitrepo.Below(a.workDir())
			up := strings.TrimSuffix(strings.Repeat("../", strings.Count(below, "/")+1), "/")
			return usageError("--diff: git apply run in this folder would skip %s (outside it) without a word; run rye from the repository's top level (%s): cd %s && rye -C %s lint --diff | git apply", p, top, up, work)
		}
	}
	return nil
}

func (a *app) writeLintReport(rep *report.Report, items, projects int) error {
	sum := rep.LintCounts(projects, items)
	return a.renderReport(rep, sum.Line(), sum)
}
