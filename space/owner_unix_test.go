//go:build unix

package space

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A folder is safe when nobody but the caller (and root) could put
// another in its place: its own owner, and every folder above it.
func TestSafeFolder(t *testing.T) {
	top := t.TempDir()
	parent := filepath.Join(top, "parent")
	dir := filepath.Join(parent, "proj")
	os.MkdirAll(dir, 0o755)
	check := func() error {
		t.Helper()
		info, err := os.Stat(dir)
		if err != nil {
			t.Fatal(err)
		}
		return SafeFolder(dir, info)
	}
	if err := check(); err != nil {
		t.Fatalf("a folder of one's own: %v", err)
	}
	os.Chmod(parent, 0o777)
	if err := check(); err == nil || !strings.Contains(err.Error(), "writable by other users") {
		t.Errorf("a world-writable folder above: %v", err)
	}
	os.Chmod(parent, 0o777|os.ModeSticky)
	if err := check(); err != nil {
		t.Errorf("a sticky folder above (as /tmp): %v", err)
	}
	os.Chmod(parent, 0o755)
	// The folder itself: others could add to it, sticky or not.
	for _, mode := range []os.FileMode{0o777, 0o777 | os.ModeSticky, 0o757} {
		os.Chmod(dir, mode)
		if err := check(); err == nil || !strings.Contains(err.Error(), dir+" is writable by other users") {
			t.Errorf("the folder itself, mode %v: %v", mode, err)
		}
	}
	os.Chmod(dir, 0o755)
	if os.Getuid() != 0 {
		t.Log("not root: the folders of other users are not tried")
		return
	}
	if err := os.Chown(parent, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if err := check(); err == nil || !strings.Contains(err.Error(), "belongs to another user") {
		t.Errorf("a folder above of another user: %v", err)
	}
	os.Chown(parent, 0, 0)
	os.Chown(dir, 65534, 65534)
	if err := check(); err == nil || !strings.Contains(err.Error(), "belongs to another user") {
		t.Errorf("the folder of another user: %v", err)
	}
}
