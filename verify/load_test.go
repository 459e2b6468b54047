package verify

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/space"
)

// Load reads an item once, gives the verdict of those bytes, and copies
// only what the request allows, never through a symbolic link.
func TestLoad(t *testing.T) {
	root := t.TempDir()
	sp := signedProject(t, root, 3)
	user := t.TempDir()
	ss, err := space.Discover(space.Options{WorkDir: root, ProjectDir: root, Getenv: func(k string) string {
		if k == "USER_SPACE" {
			return user
		}
		return ""
	}})
	if err != nil {
		t.Fatal(err)
	}
	ts, err := LoadTrustStore(TrustSources(ss.All()))
	if err != nil {
		t.Fatal(err)
	}
	found, _, _ := sp.Walk(item.Kinds)
	f := found[0]
	req := LoadRequest{Spaces: ss, Trust: ts, Policy: Policy{Now: time.Now()}, Kind: f.Kind, ID: f.ID}

	l, err := Load(req)
	if err != nil || l.Result.Verdict != Verified || l.Loc.Space != ss.Project || len(l.Item.Bytes) == 0 || l.CopiedTo != "" {
		t.Fatalf("load: %v %+v", err, l)
	}
	// Resolution is limited to the spaces asked for.
	from := req
	from.From = []*space.Space{ss.User}
	var nf *space.NotFoundError
	if _, err := Load(from); !errors.As(err, &nf) {
		t.Errorf("from the user space: %v", err)
	}
	// Not into the space it is in.
	same := req
	same.To = ss.Project
	var ce *CopyError
	if _, err := Load(same); !errors.As(err, &ce) || ce.Exists {
		t.Errorf("copy into its own space: %v", err)
	}

	// A copy into the user space, not twice without Overwrite.
	cp := req
	cp.To = ss.User
	l, err = Load(cp)
	want := filepath.Join(user, ".ai", filepath.FromSlash(f.Rel))
	if err != nil || l.CopiedTo != want || l.Shadows {
		t.Fatalf("copy: %v %+v", err, l)
	}
	if data, _ := os.ReadFile(want); string(data) != string(l.Item.Bytes) {
		t.Error("the copy is not the bytes verified")
	}
	if _, err := Load(cp); !errors.As(err, &ce) || !ce.Exists || ce.Path != want {
		t.Errorf("second copy: %v", err)
	}
	cp.Overwrite = true
	if _, err := Load(cp); err != nil {
		t.Errorf("overwrite: %v", err)
	}

	// An item that does not verify: the verdict; a copy only when asked.
	path := filepath.Join(sp.AI(), filepath.FromSlash(f.Rel))
	data, _ := os.ReadFile(path)
	os.WriteFile(path, append(data, "\nchanged\n"...), 0o644)
	os.Remove(want)
	l, err = Load(req)
	if err != nil || l.Result.Verdict != Modified {
		t.Fatalf("modified: %v %+v", err, l)
	}
	cp.Overwrite = false
	if l, err := Load(cp); !errors.As(err, &ce) || ce.Exists || l == nil || l.Result.Verdict != Modified {
		t.Errorf("copy of a modified item: %v", err)
	}
	if _, err := os.Stat(want); err == nil {
		t.Error("a modified item was copied")
	}
	cp.CopyUnverified = true
	if _, err := Load(cp); err != nil {
		t.Errorf("copy of a modified item, allowed: %v", err)
	}

	// A symbolic link on the way to the destination is refused.
	os.RemoveAll(filepath.Join(user, ".ai"))
	elsewhere := t.TempDir()
	os.Symlink(elsewhere, filepath.Join(user, ".ai"))
	if _, err := Load(cp); !errors.As(err, &ce) || !errors.Is(err, space.ErrSymlink) {
		t.Errorf("destination through a link: %v", err)
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
		t.Error("the copy went through the link")
	}
}
