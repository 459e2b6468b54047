package buildinfo

import (
	"runtime"
	"runtime/debug"
	"testing"
)

func TestFrom(t *testing.T) {
	module := &debug.BuildInfo{
		Main: debug.Module{Version: "v1.4.0"},
		Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "abc123"},
			{Key: "vcs.time", Value: "2026-01-02T03:04:05Z"},
		},
	}
	checkout := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: module.Settings}
	for _, c := range []struct {
		name   string
		linked Info
		bi     *debug.BuildInfo
		want   Info
	}{
		{"module build", Info{}, module, Info{Version: "v1.4.0", Commit: "abc123", Date: "2026-01-02T03:04:05Z"}},
		{"linked values win", Info{Version: "v2.0.0", Commit: "fff", Date: "2027-01-01T00:00:00Z"}, module, Info{Version: "v2.0.0", Commit: "fff", Date: "2027-01-01T00:00:00Z"}},
		{"linked version, commit from vcs", Info{Version: "v2.0.0"}, module, Info{Version: "v2.0.0", Commit: "abc123", Date: "2026-01-02T03:04:05Z"}},
		{"a checkout is devel", Info{}, checkout, Info{Version: "devel", Commit: "abc123", Date: "2026-01-02T03:04:05Z"}},
		{"no build information", Info{}, nil, Info{Version: "devel", Commit: "unknown"}},
		{"linked Go is the toolchain's", Info{Go: "go0.1"}, nil, Info{Version: "devel", Commit: "unknown"}},
	} {
		c.want.Go = runtime.Version()
		if got := from(c.linked, c.bi); got != c.want {
			t.Errorf("%s: got %+v, want %+v", c.name, got, c.want)
		}
	}
}

// The test binary has build information; Read takes the linked values
// over it.
func TestReadKeepsLinked(t *testing.T) {
	i := Read(Info{Version: "v9.9.9", Commit: "c0ffee"})
	if i.Version != "v9.9.9" || i.Commit != "c0ffee" || i.Go != runtime.Version() {
		t.Errorf("%+v", i)
	}
}
