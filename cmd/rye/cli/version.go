package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ryekit/rye/internal/buildinfo"
	"github.com/ryekit/rye/internal/releasesig"
	"github.com/ryekit/rye/internal/sshsig"
)

// version, commit and date are set at link time by release builds
// (.goreleaser.yaml: -ldflags "-X github.com/ryekit/rye/cmd/rye/cli.version=v1.2.3
// -X ...cli.commit=<hash> -X ...cli.date=<commit time, RFC 3339>"), and
// by the GitHub Action when it builds from a ref that is not a release,
// since an action is delivered without .git and the build could not
// otherwise say which rye it is.
var (
	version = ""
	commit  = ""
	date    = ""
)

// build is which rye this is: the link-time values above, completed from
// the binary's build information (buildinfo.Read).
func build() buildinfo.Info {
	return buildinfo.Read(buildinfo.Info{Version: version, Commit: commit, Date: date})
}

// Version returns rye's version, the commit it was built from and the Go
// version (build).
func Version() (ver, rev, goVersion string) {
	b := build()
	return b.Version, b.Commit, b.Go
}

func (a *app) versionCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print rye's version, commit and Go version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.printVersion()
		},
	}
	cmd.AddCommand(a.versionVerifyCommand())
	return cmd
}

func (a *app) versionVerifyCommand() *cobra.Command {
	var signature, signersFile string
	cmd := &cobra.Command{
		Use:   "verify CHECKSUMS [FILE...]",
		Short: "Check downloaded rye release files: the checksums file's signature, then each file",
		Long: `rye version verify checks the files of a rye release before you run them:
first the SSH signature of the checksums file (CHECKSUMS.sig, namespace
rye-release) against the release keys compiled into this rye (the
repository's ` + releasesig.PinnedFile + ` at the commit this rye was
built from), never a key that comes with the download; then the SHA-256
of each FILE against the line of the checksums file that names it.

  rye version verify rye_1.2.3_checksums.txt rye_1.2.3_linux_amd64.tar.gz

Exit 0: signed by a release key and every file as listed; 1: a bad
signature, a file changed or not listed; 2: a file cannot be read, or
this rye has no release key (give --signers). The same check without
rye: ssh-keygen -Y verify -f allowed_signers -I rye-release -n rye-release
-s CHECKSUMS.sig < CHECKSUMS, then sha256sum --ignore-missing -c CHECKSUMS
(docs/releasing.md).`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			req := releasesig.Request{Checksums: args[0], Signature: signature, Files: args[1:]}
			if signersFile != "" {
				var err error
				if req.Signers, err = releasesig.ReadSigners(signersFile); err != nil {
					return asUsage(err)
				}
			}
			rep, err := releasesig.Verify(req)
			var failure *releasesig.Failure
			switch {
			case errors.As(err, &failure):
				return findings("%v\nthese are not the files the rye release key signed: download them again from the release page, and do not run them", err)
			case errors.Is(err, releasesig.ErrNoKey):
				return usageError("%v\nthis rye was built before the release key was added: give --signers FILE, the allowed_signers file of the rye repository (%s)", err, releasesig.PinnedFile)
			case err != nil:
				return asUsage(err)
			}
			return a.reportVerifiedRelease(rep)
		},
	}
	cmd.Flags().StringVar(&signature, "signature", "", "the checksums file's signature (`FILE`; default: CHECKSUMS.sig)")
	cmd.Flags().StringVar(&signersFile, "signers", "", "trust the release keys of this allowed_signers `FILE` instead of the ones compiled into rye")
	return cmd
}

// reportVerifiedRelease prints the outcome of rye version verify.
func (a *app) reportVerifiedRelease(rep *releasesig.Report) error {
	key := sshsig.Fingerprint(rep.Signer.Key)
	if a.json {
		if err := writeJSON(a.stdout, rep.Document()); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(a.stdout, "%s: signed by release key %s (%s), %d files listed\n", rep.Checksums, rep.Signer.Principal, key, rep.Listed)
		for _, f := range rep.Files {
			if f.Err == nil {
				fmt.Fprintf(a.stdout, "%s: ok (sha256 %s)\n", f.Path, f.SHA256)
			}
		}
		if len(rep.Files) == 0 {
			fmt.Fprintf(a.stdout, "no file checked: name the files you downloaded after %s\n", rep.Checksums)
		}
	}
	if rep.OK() {
		return nil
	}
	for _, f := range rep.Files {
		if f.Err != nil {
			fmt.Fprintf(a.stderr, "rye: %v\n", f.Err)
		}
	}
	fmt.Fprintln(a.stderr, "rye: do not run these files: download them again from the release page")
	return errReported
}

// printVersion is rye version, and rye --version.
func (a *app) printVersion() error {
	b := build()
	if a.json {
		return writeJSON(a.stdout, map[string]string{"version": b.Version, "commit": b.Commit, "date": b.Date, "go": b.Go})
	}
	rev := b.Commit
	if b.Date != "" {
		rev += ", " + b.Date
	}
	_, err := fmt.Fprintf(a.stdout, "rye %s (commit %s, %s)\n", b.Version, rev, b.Go)
	return err
}

// versionFlag gives the root command --version, which prints what rye
// version prints (--json included), as golangci-lint and go do. Without
// it (and without a verb) rye prints its help, as before.
func (a *app) versionFlag(root *cobra.Command) {
	var show bool
	root.Flags().BoolVar(&show, "version", false, "print rye's version, commit and Go version (what rye version prints)")
	root.RunE = func(cmd *cobra.Command, args []string) error {
		if show {
			return a.printVersion()
		}
		return cmd.Help()
	}
}
