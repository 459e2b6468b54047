package cachedir

import (
	"path/filepath"
	"runtime"
	"testing"
)

func TestDirFollowsXDGCacheHome(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("XDG_CACHE_HOME is the cache folder on Linux only")
	}
	base := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", base)
	got, err := Dir()
	if err != nil || got != filepath.Join(base, "rye") {
		t.Fatalf("Dir() = %q, %v; want %q", got, err, filepath.Join(base, "rye"))
	}
}
