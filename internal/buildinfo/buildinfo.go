// Package buildinfo says which rye this is: its version, the commit it was
// built from and that commit's time, and the Go version. Release builds set
// the first three at link time (-ldflags -X in cmd/rye/cli, where
// .goreleaser.yaml and the GitHub Action point); a build from a checkout
// (go install, go build) has them from the module's build information
// instead. The values that were linked in always win, since an action is
// delivered without .git and its build could not otherwise say which rye
// it is.
package buildinfo

import (
	"runtime"
	"runtime/debug"
)

// Info is what rye says of itself (rye version, SARIF logs, bundle
// manifests, the MCP server's name).
type Info struct {
	Version string // a semantic version, or "devel"
	Commit  string // a full commit hash, or "unknown"
	Date    string // the commit's time, RFC 3339; "" when unknown
	Go      string // the Go version rye was built with
}

// Read completes the values set at link time (linked; each may be "")
// from the running binary's build information.
func Read(linked Info) Info {
	bi, _ := debug.ReadBuildInfo()
	return from(linked, bi)
}

// from completes linked from bi (nil when the binary has none): a module
// version other than "(devel)", the vcs.revision and vcs.time settings.
// A version or commit that neither names is "devel" or "unknown"; Go is
// always the running toolchain's version.
func from(linked Info, bi *debug.BuildInfo) Info {
	i := linked
	if bi != nil {
		if i.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			i.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch {
			case s.Key == "vcs.revision" && i.Commit == "":
				i.Commit = s.Value
			case s.Key == "vcs.time" && i.Date == "":
				i.Date = s.Value
			}
		}
	}
	if i.Version == "" {
		i.Version = "devel"
	}
	if i.Commit == "" {
		i.Commit = "unknown"
	}
	i.Go = runtime.Version()
	return i
}
