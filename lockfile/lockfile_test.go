package lockfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ryekit/rye/chain"
	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/space"
)

// chainOf is a chain of elements with the given metadata (YAML), ids
// test/element_0, test/element_1, ...
func chainOf(t *testing.T, yamls ...string) *chain.Chain {
	t.Helper()
	c := &chain.Chain{}
	for i, y := range yamls {
		md, err := item.ReadMetadata(item.Tool, "x.yaml", []byte(y))
		if err != nil {
			t.Fatal(err)
		}
		id := item.MustID(fmt.Sprintf("test/element_%d", i))
		c.Elements = append(c.Elements, &chain.Element{Loc: &space.Located{ID: id}, Meta: md})
	}
	return c
}

func lockChain(t *testing.T) *chain.Chain {
	t.Helper()
	c := chainOf(t,
		"version: \"1.2.0\"\ntool_type: shell\nexecutor_id: test/element_1\n",
		"version: \"1.0.0\"\ntool_type: runtime\nexecutor_id: test/element_2\n",
		"version: \"1.0.0\"\ntool_type: primitive\nexecutor_id: null\n",
	)
	spaces := []*space.Space{
		space.NewDiskSpace(space.Project, t.TempDir(), ""),
		space.NewDiskSpace(space.User, t.TempDir(), ""),
		space.EmbeddedSpace(),
	}
	for i, el := range c.Elements {
		el.Loc.Space = spaces[i]
	}
	return c
}

// The file has the reference's fields, in its order, with null for the
// primitive's executor.
func TestLockfileFormat(t *testing.T) {
	c := lockChain(t)
	l := New(c, []string{"aa", "bb", "cc"}, time.Date(2026, 11, 21, 10, 0, 0, 0, time.FixedZone("x", 3600)))
	want := `{
  "lockfile_version": 1,
  "generated_at": "2026-11-21T09:00:00Z",
  "root": {
    "tool_id": "test/element_0",
    "version": "1.2.0",
    "integrity": "aa"
  },
  "resolved_chain": [
    {
      "item_id": "test/element_0",
      "space": "project",
      "tool_type": "shell",
      "executor_id": "test/element_1",
      "integrity": "aa"
    },
    {
      "item_id": "test/element_1",
      "space": "user",
      "tool_type": "runtime",
      "executor_id": "test/element_2",
      "integrity": "bb"
    },
    {
      "item_id": "test/element_2",
      "space": "system",
      "tool_type": "primitive",
      "executor_id": null,
      "integrity": "cc"
    }
  ]
}
`
	if got := string(l.Marshal()); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	back, err := parse(l.Marshal())
	if err != nil {
		t.Fatal(err)
	}
	if string(back.Marshal()) != want {
		t.Error("the lockfile does not survive a round trip")
	}
}

func TestLockfileCheck(t *testing.T) {
	c := lockChain(t)
	current := []string{"aa", "bb", "cc"}
	pinned := func(mut func(*file)) *Found {
		l := New(c, current, time.Now())
		if mut != nil {
			mut(l)
		}
		return &Found{Lock: l, Path: ".ai/lockfiles/test/element_0@1.2.0.lock.json"}
	}
	if err := pinned(nil).Check(c, current); err != nil {
		t.Fatalf("same chain: %v", err)
	}
	cases := []struct {
		name string
		mut  func(*file)
		want string
	}{
		{"tool changed", func(l *file) { l.Root.Integrity = "old"; l.ResolvedChain[0].Integrity = "old" },
			"test/element_0 integrity: pinned old, now aa"},
		{"runtime changed", func(l *file) { l.ResolvedChain[1].Integrity = "old" },
			"test/element_1 integrity: pinned old, now bb"},
		{"runtime now shadowed from another space", func(l *file) { l.ResolvedChain[1].Space = "system" },
			"test/element_1 space: pinned system, now user"},
		{"another runtime", func(l *file) { l.ResolvedChain[1].ItemID = "other/runtime" },
			"other/runtime at position 2 of the chain: pinned other/runtime, now test/element_1"},
		{"chain got shorter", func(l *file) {
			l.ResolvedChain = append(l.ResolvedChain, entry{ItemID: "gone/one", Integrity: "x"})
		}, "gone/one is pinned but no longer in the chain"},
		{"chain got longer", func(l *file) { l.ResolvedChain = l.ResolvedChain[:2] },
			"test/element_2 is not in the pinned chain"},
	}
	for _, tc := range cases {
		err := pinned(tc.mut).Check(c, current)
		var lm *MismatchError
		if !errors.As(err, &lm) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "rye lock tool test/element_0") {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

func TestParseLockfileRejectsIncompleteFiles(t *testing.T) {
	for name, src := range map[string]string{
		"not json":      "{",
		"trailing":      `{"lockfile_version":1,"root":{"tool_id":"a","integrity":"x"},"resolved_chain":[{"item_id":"a","integrity":"x"}]} {}`,
		"version":       `{"lockfile_version":2,"root":{"tool_id":"a","integrity":"x"},"resolved_chain":[{"item_id":"a","integrity":"x"}]}`,
		"no root":       `{"lockfile_version":1,"resolved_chain":[{"item_id":"a","integrity":"x"}]}`,
		"empty chain":   `{"lockfile_version":1,"root":{"tool_id":"a","integrity":"x"},"resolved_chain":[]}`,
		"no integrity":  `{"lockfile_version":1,"root":{"tool_id":"a","integrity":"x"},"resolved_chain":[{"item_id":"a"}]}`,
		"wrong integer": `{"lockfile_version":"1"}`,
	} {
		if _, err := parse([]byte(src)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestFindAndWriteLockfile(t *testing.T) {
	c := lockChain(t)
	project := c.Elements[0].Loc.Space
	user := c.Elements[1].Loc.Space
	ss := &space.Spaces{Project: project, User: user, System: []*space.Space{space.EmbeddedSpace()}}
	if f, err := Find(ss, "test/element_0", "1.2.0"); f != nil || err != nil {
		t.Fatalf("no lockfile: %v %v", f, err)
	}
	// A user lockfile is read when the project has none.
	userLock := New(c, []string{"u", "u", "u"}, time.Now())
	p := filepath.Join(user.AI(), "lockfiles", "test", "element_0@1.2.0.lock.json")
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, userLock.Marshal(), 0o644)
	f, err := Find(ss, "test/element_0", "1.2.0")
	if err != nil || f == nil || f.Space != user || f.Lock.Root.Integrity != "u" {
		t.Fatalf("user lockfile: %+v %v", f, err)
	}
	// The project's wins, and is where rye writes.
	os.MkdirAll(project.AI(), 0o755)
	shown, err := Write(project, New(c, []string{"p", "p", "p"}, time.Now()))
	if err != nil || !strings.HasSuffix(shown, filepath.FromSlash(".ai/lockfiles/test/element_0@1.2.0.lock.json")) {
		t.Fatalf("write: %q %v", shown, err)
	}
	f, err = Find(ss, "test/element_0", "1.2.0")
	if err != nil || f.Space != project || f.Lock.Root.Integrity != "p" {
		t.Fatalf("project lockfile: %+v %v", f, err)
	}
	// A broken lockfile is an error, never ignored.
	os.WriteFile(filepath.Join(project.AI(), "lockfiles", "test", "element_0@1.2.0.lock.json"), []byte("{oops"), 0o644)
	if _, err := Find(ss, "test/element_0", "1.2.0"); err == nil || !strings.Contains(err.Error(), "rye lock tool test/element_0") {
		t.Errorf("broken lockfile: %v", err)
	}
	// A lockfile naming another tool is an error.
	other := New(c, []string{"p", "p", "p"}, time.Now())
	other.Root.ToolID = "x/y"
	os.WriteFile(filepath.Join(project.AI(), "lockfiles", "test", "element_0@1.2.0.lock.json"), other.Marshal(), 0o644)
	if _, err := Find(ss, "test/element_0", "1.2.0"); err == nil || !strings.Contains(err.Error(), "pins x/y@1.2.0") {
		t.Errorf("foreign lockfile: %v", err)
	}
}

func TestWriteLockfileRefusesSymlinks(t *testing.T) {
	c := lockChain(t)
	project := c.Elements[0].Loc.Space
	elsewhere := t.TempDir()
	os.MkdirAll(project.AI(), 0o755)
	if err := os.Symlink(elsewhere, filepath.Join(project.AI(), "lockfiles")); err != nil {
		t.Skip("no symlinks:", err)
	}
	_, err := Write(project, New(c, []string{"a", "b", "c"}, time.Now()))
	if !errors.Is(err, space.ErrSymlink) && (err == nil || !strings.Contains(err.Error(), "symbolic link")) {
		t.Errorf("symlinked lockfiles folder: %v", err)
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
		t.Errorf("wrote through the link: %v", entries)
	}
}

// Only semantic versions are locked: a version cannot name a path.
func TestLockfileNeedsASemanticVersion(t *testing.T) {
	c := lockChain(t)
	project := c.Elements[0].Loc.Space
	os.MkdirAll(project.AI(), 0o755)
	for _, v := range []string{"", "1.0.0/../../../escape", "latest"} {
		l := New(c, []string{"a", "b", "c"}, time.Now())
		l.Root.Version = v
		if _, err := Write(project, l); err == nil {
			t.Errorf("version %q was locked", v)
		}
	}
	ss := &space.Spaces{Project: project}
	if f, err := Find(ss, "test/element_0", "1.0.0/../../x"); f != nil || err != nil {
		t.Errorf("%v %v", f, err)
	}
}
