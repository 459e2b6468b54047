package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version and commit are set at link time by release builds
// (-ldflags "-X github.com/ryekit/rye/cmd/rye/cli.version=v1.2.3").
var (
	version = ""
	commit  = ""
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

func (a *app) versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print rye's version, commit and Go version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ver, rev, gov := Version()
			if a.json {
				return writeJSON(a.stdout, map[string]string{"version": ver, "commit": rev, "go": gov})
			}
			_, err := fmt.Fprintf(a.stdout, "rye %s (commit %s, %s)\n", ver, rev, gov)
			return err
		},
	}
}
