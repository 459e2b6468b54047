package cli

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/project"
	"github.com/ryekit/rye/release"
	"github.com/ryekit/rye/report"
	"github.com/ryekit/rye/sign"
)

func (a *app) bundleCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bundle",
		Short: "Make, verify, install and list release bundles",
		Long: `A release bundle ships the signed items of one namespace as one deterministic
.tar.gz with a signed manifest. 'rye bundle create' packs and signs it,
'rye bundle verify' checks a bundle file without extracting it, 'rye bundle
install' verifies then installs it, and 'rye bundle list' shows what is
installed. See docs/bundles.md.`,
	}
	cmd.AddCommand(a.bundleCreateCommand(), a.bundleVerifyCommand(), a.bundleInstallCommand(), a.bundleListCommand())
	verbGroup(cmd)
	return cmd
}

func (a *app) bundleCreateCommand() *cobra.Command {
	var version, output string
	var include []string
	cmd := &cobra.Command{
		Use:   "create ID -o FILE.tar.gz",
		Short: "Pack the project's items under ID/ into a signed, deterministic bundle",
		Long: `rye bundle create collects the project's items under ID/ (every kind; more
with --include), refuses unless every one of them is verified, writes a
manifest of their hashes and signatures with copies of the signers' trusted
keys, signs the manifest with your key (v2, kind bundle) and writes a
deterministic .tar.gz: the same items give the same bytes. The manifest's
time is SOURCE_DATE_EPOCH when set, else the newest signature among the
items.`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := item.ParseID(args[0])
			if err != nil {
				return usageError("%v", err)
			}
			if output == "" {
				return usageError("-o FILE: say where to write the bundle")
			}
			p, sp, err := a.openSpace(project.Options{}, false)
			if err != nil {
				return err
			}
			a.warnTrust(p)
			key, err := a.signingKey()
			if err != nil {
				return err
			}
			// SOURCE_DATE_EPOCH when set; else zero: the newest signature.
			when, _, err := sign.SourceDateEpoch(os.Getenv)
			if err != nil {
				return usageError("%v", err)
			}
			ver, _, _ := Version()
			c, err := release.Create(release.CreateOptions{Space: sp, ID: id, Version: version, Include: include, Cwd: a.workDir(),
				Trust: p.Trust, Policy: p.Policy, Key: key, RyeVersion: ver, Time: when})
			var nv *release.NotVerifiedError
			var ve *release.VersionError
			switch {
			case errors.As(err, &ve):
				return usageError("bundle %s: --version %q: %v", id, ve.Version, ve.Err)
			case errors.As(err, &nv):
				return findings("bundle %s: %v", id, err)
			case err != nil:
				return asUsage(fmt.Errorf("bundle %s: %v", id, err))
			}
			w, err := c.Write(output)
			switch {
			case err != nil:
				return err
			case a.json:
				return writeJSON(a.stdout, w)
			}
			fmt.Fprintln(a.stdout, output)
			a.info("bundle %s %s: %s, signed by %s; sha256 %s", id, w.Bundle.Version, report.Plural(w.Items, "item"), key.Fingerprint, w.SHA256)
			return nil
		},
	}
	cmd.Flags().StringVar(&version, "version", "", "the bundle's `VERSION` (semantic version; default 0.0.0)")
	cmd.Flags().StringArrayVar(&include, "include", nil, "also pack the items `PATTERN` selects (an id or glob, every kind)")
	cmd.Flags().StringVarP(&output, "output", "o", "", "write the bundle to `FILE`")
	a.keyFlag(cmd)
	return cmd
}

// bundleTrust are the trust flags of bundle verify and install.
type bundleTrust struct {
	trustRef string
	trust    []string
}

// checkBundle reads a bundle file and verifies it, with the keys named by
// --trust (each taken from the bundle only when its recomputed fingerprint
// matches) added to the trust store (release.CheckTrusting).
func (a *app) checkBundle(file string, bt *bundleTrust) (*release.Result, []byte, map[string][]byte, error) {
	data, err := release.ReadFile(file)
	if err != nil {
		return nil, nil, nil, asUsage(err)
	}
	p, err := a.open(project.Options{TrustRef: bt.trustRef, Gate: true})
	if err != nil {
		return nil, nil, nil, err
	}
	a.warnTrust(p)
	r, shipped, err := release.CheckTrusting(data, p.Trust, p.Policy, bt.trust)
	var se *release.ShippedKeyError
	switch {
	case errors.As(err, &se):
		return nil, nil, nil, findings("%s: --trust %v", file, err)
	case err != nil:
		return nil, nil, nil, err
	}
	return r, data, shipped, nil
}

func (a *app) bundleVerifyCommand() *cobra.Command {
	bt := &bundleTrust{}
	cmd := &cobra.Command{
		Use:   "verify FILE",
		Short: "Verify a bundle file without extracting it",
		Long: `rye bundle verify reads a bundle in memory and checks, in order: the
archive's safety (no absolute paths, no .., no links or devices, no
setuid/setgid, no duplicate or case-colliding entries, size caps), the
manifest's v2 signature against your trust store (never against the keys the
bundle ships, unless --trust FP names one), that the archive holds exactly
the manifest's files with the manifest's hashes, and every item's own
signature. It prints one verdict per item and the bundle's verdict.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.useOutputs(cmd); err != nil {
				return err
			}
			r, _, _, err := a.checkBundle(args[0], bt)
			if err != nil {
				return err
			}
			return a.renderReport(r.Report(args[0], a.verbose), r.Line(), map[string]any{"bundle": r.ID, "verdict": r.Verdict, "items": len(r.Items)})
		},
	}
	cmd.Flags().StringVar(&bt.trustRef, "trust-ref", "", "trust the project keys of git commit `REF`, not the working tree")
	cmd.Flags().StringArrayVar(&bt.trust, "trust", nil, "trust the bundle's shipped key `FP` (its recomputed fingerprint must match); repeatable")
	cmd.Flags().StringVar(&a.out.format, "format", "text", "output `FORMAT`: text, json, sarif or github")
	cmd.RegisterFlagCompletionFunc("format", fixedValues(report.Formats...))
	return cmd
}

func (a *app) bundleInstallCommand() *cobra.Command {
	bt := &bundleTrust{}
	var user, toProject, force bool
	cmd := &cobra.Command{
		Use:   "install FILE [--project | --user] [--trust FP]... [--force]",
		Short: "Verify a bundle, then install it into the project (or user) space",
		Long: `rye bundle install verifies the bundle exactly as rye bundle verify does and
installs nothing unless it passed. The files are written into a staging
folder inside the destination's .ai/ and moved into place only then; if a
step fails, every change is undone. The keys the bundle ships are trusted
only when named with --trust FP (and only if the key's recomputed
fingerprint is FP; repeat --trust for a bundle several people signed); such
a key is added to the destination's trusted_keys. A refusal names the
shipped keys you do not trust, by fingerprint and owner, and the command
that trusts them.
A file installed by another bundle, written by you, or changed since this
bundle installed it is not replaced without --force. The installation is
recorded in .ai/bundles/<id>/installed.yaml: rye bundle list shows it, and
installing a newer version replaces it cleanly.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if user && toProject {
				return usageError("--user and --project do not go together")
			}
			_, dest, err := a.openSpace(project.Options{SpacesOnly: true}, user)
			if err != nil {
				return err
			}
			r, data, shipped, err := a.checkBundle(args[0], bt)
			if err != nil {
				return err
			}
			if r.Failed() {
				a.outs = []report.Output{{Format: "text"}}
				a.renderReport(r.Report(args[0], a.verbose), r.Line(), nil) // the findings; the exit code is ours
				return findings("nothing installed")
			}
			o := release.InstallOptions{Root: dest.Root, Force: force, Archive: data, Now: time.Now(), Trust: shipped}
			rec, err := release.Install(r, o)
			var ce *release.ConflictError
			switch {
			case errors.As(err, &ce):
				return findings("the install clashes with what is there (use --force to install anyway):\n  %s\nnothing installed", strings.Join(ce.Conflicts, "\n  "))
			case err != nil:
				return findings("%v\nnothing installed", err)
			}
			if a.json {
				return writeJSON(a.stdout, rec)
			}
			fmt.Fprintf(a.stdout, "installed bundle %s %s into the %s space: %s\n", rec.Bundle.ID, rec.Bundle.Version, dest.Label, report.Plural(len(rec.Files), "file"))
			for _, fp := range rec.TrustedKeys {
				if _, ok := shipped[fp]; ok {
					fmt.Fprintf(a.stdout, "trusted key %s (from the bundle, as --trust asked)\n", fp)
				}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&user, "user", false, "install into the user space")
	cmd.Flags().BoolVar(&toProject, "project", false, "install into the project (the default)")
	cmd.Flags().BoolVar(&force, "force", false, "replace files that another bundle or you wrote")
	cmd.Flags().StringVar(&bt.trustRef, "trust-ref", "", "trust the project keys of git commit `REF`, not the working tree")
	cmd.Flags().StringArrayVar(&bt.trust, "trust", nil, "trust the bundle's shipped key `FP` (its recomputed fingerprint must match) and add it to the destination's trusted keys; repeatable, for a bundle several people signed")
	return cmd
}

func (a *app) bundleListCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the bundles installed in the project and user spaces",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ss, err := a.spaces()
			if err != nil {
				return err
			}
			all, err := release.ListAll(ss.Project, ss.User)
			if err != nil {
				return findings("%v", err)
			}
			if a.json {
				return writeJSON(a.stdout, release.Rows(all))
			}
			if len(all) == 0 {
				a.info("no bundles installed")
				return nil
			}
			for _, in := range all {
				fmt.Fprintf(a.stdout, "%-24s %-10s %-8s %4d files  installed %s\n", in.Bundle.ID, in.Bundle.Version, in.Space, len(in.Files), in.Bundle.InstalledAt)
			}
			return nil
		},
	}
}
