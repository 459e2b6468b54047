package cachedir

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
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

func TestSecretIsMadeOnceAndKeptPrivate(t *testing.T) {
	p := filepath.Join(t.TempDir(), "rye", "cache.key")
	a, err := secretAt(p)
	if err != nil || len(a) != secretSize {
		t.Fatalf("first: %d bytes, %v", len(a), err)
	}
	b, err := secretAt(p)
	if err != nil || !bytes.Equal(a, b) {
		t.Fatalf("second read differs: %v", err)
	}
	if runtime.GOOS != "windows" {
		info, _ := os.Stat(p)
		if info.Mode().Perm() != 0o600 {
			t.Errorf("mode %v", info.Mode().Perm())
		}
		os.Chmod(p, 0o644)
		if _, err := secretAt(p); err == nil || !strings.Contains(err.Error(), "can be read by others") {
			t.Errorf("readable by others: %v", err)
		}
		os.Chmod(p, 0o600)
	}
	os.WriteFile(p, []byte("short"), 0o600)
	if _, err := secretAt(p); err == nil || !strings.Contains(err.Error(), "not a cache secret") {
		t.Errorf("truncated: %v", err)
	}
}
