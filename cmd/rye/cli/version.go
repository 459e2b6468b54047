package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
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

// Version returns rye's version, the commit it was built from and the Go
// version, from the link-time values or else the module's build info.
func Version() (ver, rev, goVersion string) {
	ver, rev = version, commit
	if info, ok := debug.ReadBuildInfo(); ok {
		if ver == "" && info.Main.Version != "" && info.Main.Version != "(devel)" {
			ver = info.Main.Version
		}
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" && rev == "" {
				rev = s.Value
			}
		}
	}
	if ver == "" {
		ver = "devel"
	}
	if rev == "" {
		rev = "unknown"
	}
	return ver, rev, runtime.Version()
}

// commitDate is the time of the commit rye was built from, from the
// link-time value or else the build info; "" when neither knows it.
func commitDate() string {
	if date != "" {
		return date
	}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "vcs.time" {
				return s.Value
			}
		}
	}
	return ""
}

func (a *app) versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print rye's version, commit and Go version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.printVersion()
		},
	}
}

// printVersion is rye version, and rye --version.
func (a *app) printVersion() error {
	ver, rev, gov := Version()
	when := commitDate()
	if a.json {
		return writeJSON(a.stdout, map[string]string{"version": ver, "commit": rev, "date": when, "go": gov})
	}
	if when != "" {
		rev += ", " + when
	}
	_, err := fmt.Fprintf(a.stdout, "rye %s (commit %s, %s)\n", ver, rev, gov)
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
