package gitrepo

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// gitCmd runs the git command in dir, failing the test on error.
func gitCmd(t *testing.T, dir string, args ...string) string {
	t.Helper()
	c := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// gitIndexRepo makes, with the git command, a repository whose index has
// what rye must read: nested and long names, a symbolic link, an
// executable, an intent-to-add and a skip-worktree entry (extended flags),
// and a merge conflict (stages 1 to 3). (Names past the flags' 12 bits
// are TestParseIndexLongName's: Linux refuses such paths to most calls.)
func gitIndexRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: no index files to read")
	}
	root := t.TempDir()
	gitCmd(t, root, "init", "-q", "-b", "main")
	long := strings.Repeat(strings.Repeat("d", 200)+"/", 3) + "x.txt" // a name of several hundred bytes
	for rel, data := range map[string]string{
		"a.txt": "a\n", "b/c.txt": "c\n", "b/d/e.sh": "#!/bin/sh\n", "conflict.txt": "base\n", "skip.txt": "s\n", long: "long\n",
	} {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Skipf("this file system does not take long names: %v", err)
		}
		os.WriteFile(p, []byte(data), 0o644)
	}
	os.Chmod(filepath.Join(root, "b/d/e.sh"), 0o755)
	os.Symlink("a.txt", filepath.Join(root, "link"))
	gitCmd(t, root, "add", "-A")
	gitCmd(t, root, "commit", "-q", "-m", "base")
	gitCmd(t, root, "checkout", "-q", "-b", "other")
	os.WriteFile(filepath.Join(root, "conflict.txt"), []byte("other\n"), 0o644)
	gitCmd(t, root, "commit", "-q", "-am", "other")
	gitCmd(t, root, "checkout", "-q", "main")
	os.WriteFile(filepath.Join(root, "conflict.txt"), []byte("main\n"), 0o644)
	gitCmd(t, root, "commit", "-q", "-am", "main")
	exec.Command("git", "-C", root, "-c", "user.name=t", "-c", "user.email=t@example.com", "merge", "-q", "other").Run() // fails: the conflict is the point
	os.WriteFile(filepath.Join(root, "new.txt"), []byte("n\n"), 0o644)
	gitCmd(t, root, "add", "-N", "new.txt")
	gitCmd(t, root, "update-index", "--skip-worktree", "skip.txt")
	return root
}

// TestParseIndexAgreesWithGoGit: every version git writes (2, 3, 4) is
// read entry for entry as go-git's decoder reads it.
func TestParseIndexAgreesWithGoGit(t *testing.T) {
	root := gitIndexRepo(t)
	for _, version := range []string{"2", "3", "4"} {
		gitCmd(t, root, "update-index", "--index-version", version)
		data, err := os.ReadFile(filepath.Join(root, ".git", "index"))
		if err != nil {
			t.Fatal(err)
		}
		if got := binary.BigEndian.Uint32(data[4:]); fmt.Sprint(got) != version && !(version == "2" && got == 3) {
			t.Fatalf("git wrote version %d, asked for %s", got, version)
		}
		got, _, err := parseIndex(data)
		if err != nil {
			t.Fatalf("version %s: %v", version, err)
		}
		var want index.Index
		if err := index.NewDecoder(bytes.NewReader(data)).Decode(&want); err != nil {
			t.Fatalf("go-git, version %s: %v", version, err)
		}
		if len(got) != len(want.Entries) {
			t.Fatalf("version %s: %d entries, go-git %d", version, len(got), len(want.Entries))
		}
		sameTime := func(r int64, g time.Time) bool { return r == g.UnixNano() || g.IsZero() && r == 0 } // go-git: 0 is time.Time{}
		stages, skip, ita, long := 0, false, false, false
		for i, w := range want.Entries {
			g := got[i]
			if g.Name != w.Name || g.Hash() != w.Hash || g.Mode != uint32(w.Mode) || g.Size() != w.Size || !sameTime(g.MTime(), w.ModifiedAt) ||
				!sameTime(g.CTime(), w.CreatedAt) || g.Ino() != w.Inode || int(g.Stage) != int(w.Stage) || g.SkipWorktree != w.SkipWorktree || g.IntentToAdd != w.IntentToAdd {
				t.Errorf("version %s, entry %d:\n rye %+v\n go-git %+v", version, i, g, w)
			}
			stages += int(g.Stage)
			skip, ita, long = skip || g.SkipWorktree, ita || g.IntentToAdd, long || len(g.Name) > 600
		}
		if stages != 1+2+3 || !skip || !ita || !long {
			t.Errorf("version %s: the repository lacks a case (stages %d, skip-worktree %v, intent-to-add %v, long name %v)", version, stages, skip, ita, long)
		}
	}
}

// withChecksum puts a correct trailing SHA-1 on an index body.
func withChecksum(body []byte) []byte {
	sum := sha1.Sum(body)
	return append(append([]byte(nil), body...), sum[:]...)
}

// TestParseIndexRefuses: a damaged, truncated, unordered, split or
// otherwise unreadable index is an error naming the problem, never a
// shorter list of entries.
func TestParseIndexRefuses(t *testing.T) {
	root := gitIndexRepo(t)
	gitCmd(t, root, "update-index", "--index-version", "3")
	good, err := os.ReadFile(filepath.Join(root, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	body := good[:len(good)-sha1.Size]
	entries, _, err := parseIndex(good)
	if err != nil {
		t.Fatal(err)
	}
	first := 12 + 62 // the first entry's name ("a.txt", not extended)
	if entries[0].Name != "a.txt" || binary.BigEndian.Uint16(body[12+60:])&0x4000 != 0 {
		first = -1
	}
	cases := map[string]struct {
		data []byte
		want string
	}{
		"short":          {[]byte("DIRC"), "too short"},
		"checksum":       {append(append([]byte(nil), body...), bytes.Repeat([]byte{1}, sha1.Size)...), "checksum"},
		"signature":      {withChecksum(append([]byte("CRID"), body[4:]...)), "no DIRC signature"},
		"version":        {withChecksum(append(append([]byte("DIRC"), 0, 0, 0, 5), body[8:]...)), "version 5"},
		"count":          {withChecksum(append(append([]byte(nil), body[:8]...), append([]byte{0x7f, 0xff, 0xff, 0xff}, body[12:]...)...)), "claims"},
		"truncated":      {withChecksum(body[:len(body)/2]), ""},
		"split index":    {withChecksum(append(append([]byte(nil), body...), append([]byte("link"), 0, 0, 0, 0)...)), "split index"},
		"sparse index":   {withChecksum(append(append([]byte(nil), body...), append([]byte("sdir"), 0, 0, 0, 0)...)), "sparse index"},
		"required ext":   {withChecksum(append(append([]byte(nil), body...), append([]byte("zzzz"), 0, 0, 0, 0)...)), `required extension "zzzz"`},
		"ext past end":   {withChecksum(append(append([]byte(nil), body...), append([]byte("ZZZZ"), 0, 0, 1, 0)...)), "runs past the end"},
		"ext truncation": {withChecksum(append(append([]byte(nil), body...), 'Z', 'Z')), "truncated extension"},
	}
	if first > 0 {
		swapped := append([]byte(nil), body...)
		swapped[first] = 'z' // "z.txt" now sorts after the next entry
		cases["order"] = struct {
			data []byte
			want string
		}{withChecksum(swapped), "out of order"}
		padded := append([]byte(nil), body...)
		padded[first+len("a.txt")+1] = 'x'
		cases["padding"] = struct {
			data []byte
			want string
		}{withChecksum(padded), "padding"}
	}
	for name, c := range cases {
		if _, _, err := parseIndex(c.data); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", name, err, c.want)
		}
	}
	// An optional extension is skipped, and index.skipHash's zero trailer
	// is accepted.
	if got, _, err := parseIndex(withChecksum(append(append([]byte(nil), body...), append([]byte("ZZZZ"), 0, 0, 0, 1, 9)...))); err != nil || len(got) != len(entries) {
		t.Errorf("optional extension: %d entries, %v", len(got), err)
	}
	if got, _, err := parseIndex(append(append([]byte(nil), body...), make([]byte, sha1.Size)...)); err != nil || len(got) != len(entries) {
		t.Errorf("skipHash: %d entries, %v", len(got), err)
	}
}

// TestParseIndexLongName: a name of 0xfff bytes or more has 0xfff in the
// flags and is read to its NUL; a shorter name must have its length there.
func TestParseIndexLongName(t *testing.T) {
	build := func(name string, flagLen uint16) []byte {
		body := []byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x01")
		entry := make([]byte, 62)
		binary.BigEndian.PutUint32(entry[24:], 0o100644)
		binary.BigEndian.PutUint16(entry[60:], flagLen)
		body = append(append(body, entry...), name...)
		pad := (62+len(name)+8)&^7 - 62 - len(name)
		return withChecksum(append(body, make([]byte, pad)...))
	}
	long := strings.Repeat("n/", 2500) + "x"
	if got, _, err := parseIndex(build(long, 0xfff)); err != nil || len(got) != 1 || got[0].Name != long {
		t.Errorf("long name: %v", err)
	}
	if got, _, err := parseIndex(build("abc", 3)); err != nil || got[0].Name != "abc" {
		t.Errorf("short name: %v", err)
	}
	if _, _, err := parseIndex(build("abc", 4)); err == nil || !strings.Contains(err.Error(), "length its flags give") {
		t.Errorf("a name whose flags say otherwise: %v", err)
	}
}

// TestIndexVarint: git's offset varint, each value with one encoding.
func TestIndexVarint(t *testing.T) {
	for _, c := range []struct {
		in   []byte
		v    uint64
		n    int
		desc string
	}{
		{[]byte{0}, 0, 1, "zero"},
		{[]byte{0x7f}, 127, 1, "one byte"},
		{[]byte{0x80, 0}, 128, 2, "two bytes start at 128"},
		{[]byte{0x80, 0x7f}, 255, 2, ""},
		{[]byte{0x81, 0}, 256, 2, ""},
		{[]byte{0x80}, 0, 0, "truncated"},
		{bytes.Repeat([]byte{0xff}, 12), 0, 0, "overflow"},
	} {
		if v, n := indexVarint(c.in); v != c.v || n != c.n {
			t.Errorf("%x (%s): %d,%d want %d,%d", c.in, c.desc, v, n, c.v, c.n)
		}
	}
}

// TestIndexFileFromGit: rye reads the index git says it is using: in a
// hook of git commit -a, GIT_INDEX_FILE names the index being committed,
// not .git/index; one that is not a file of the work tree's git folder is
// refused.
func TestIndexFileFromGit(t *testing.T) {
	root := gitIndexRepo(t)
	other := filepath.Join(root, ".git", "next-index-1.lock")
	idx, _ := os.ReadFile(filepath.Join(root, ".git", "index"))
	entries, _, err := parseIndex(idx)
	if err != nil {
		t.Fatal(err)
	}
	// A second index with one entry fewer: git read-tree into it.
	c := exec.Command("git", "-C", root, "read-tree", "HEAD~1")
	c.Env = append(os.Environ(), "GIT_INDEX_FILE="+other)
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("git read-tree: %v\n%s", err, out)
	}
	count := func() (int, error) {
		r, err := Open(root)
		if err != nil {
			return 0, err
		}
		files, err := r.Index("", 0)
		return len(files), err
	}
	t.Setenv("GIT_INDEX_FILE", other)
	if n, err := count(); err != nil || n >= len(entries) {
		t.Errorf("GIT_INDEX_FILE: %d files (%v), .git/index has %d entries", n, err, len(entries))
	}
	t.Chdir(root)
	t.Setenv("GIT_INDEX_FILE", ".git/next-index-1.lock") // relative to where git runs the hook
	if n, err := count(); err != nil || n >= len(entries) {
		t.Errorf("relative GIT_INDEX_FILE: %d files (%v)", n, err)
	}
	outside := filepath.Join(t.TempDir(), "index")
	os.WriteFile(outside, idx, 0o644)
	t.Setenv("GIT_INDEX_FILE", outside)
	if _, err := count(); err == nil || !strings.Contains(err.Error(), "not a file of the git folder") {
		t.Errorf("GIT_INDEX_FILE outside the repository: %v", err)
	}
	// A folder below the git folder holds a linked work tree's or a
	// submodule's index: not this work tree's.
	below := filepath.Join(root, ".git", "worktrees", "w", "index")
	os.MkdirAll(filepath.Dir(below), 0o755)
	os.WriteFile(below, idx, 0o644)
	t.Setenv("GIT_INDEX_FILE", below)
	if _, err := count(); err == nil || !strings.Contains(err.Error(), "not a file of the git folder") {
		t.Errorf("GIT_INDEX_FILE of a linked work tree: %v", err)
	}
}

// FuzzParseIndex: no input panics the index reader, and what it accepts
// is in git's order.
func FuzzParseIndex(f *testing.F) {
	body := []byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x01")
	entry := make([]byte, 62)
	binary.BigEndian.PutUint32(entry[24:], 0o100644)
	binary.BigEndian.PutUint16(entry[60:], 5)
	body = append(append(body, entry...), "a.txt\x00\x00\x00\x00\x00\x00\x00\x00"[:8-((62+5)%8)+5]...)
	f.Add(withChecksum(body))
	f.Add(append(append([]byte(nil), body...), make([]byte, sha1.Size)...))
	v4 := append([]byte("DIRC\x00\x00\x00\x04\x00\x00\x00\x02"), entry...)
	v4 = append(v4, "\x00a.txt\x00"...)
	binary.BigEndian.PutUint16(entry[60:], 5)
	v4 = append(append(v4, entry...), "\x05b.txt\x00"...)
	f.Add(withChecksum(v4))
	f.Fuzz(func(t *testing.T, data []byte) {
		// As given, and with index.skipHash's zero trailer, so that a
		// mutation need not keep the checksum to reach the entries.
		for _, in := range [][]byte{data, append(append([]byte(nil), data...), make([]byte, sha1.Size)...)} {
			entries, _, err := parseIndex(in)
			if err != nil {
				continue
			}
			for i := 1; i < len(entries); i++ {
				if c := strings.Compare(entries[i-1].Name, entries[i].Name); c > 0 || c == 0 && entries[i-1].Stage >= entries[i].Stage {
					t.Fatalf("entries out of order: %q then %q", entries[i-1].Name, entries[i].Name)
				}
			}
		}
	})
}

// TestTreeSeeingIndex: reading a commit's tree with the index's cache tree
// gives the same files as reading every tree, for the commit the index
// came from and an older one, with staged edits, an intent to add, a
// deletion, a new folder, a conflict and a submodule-free tree; and where
// the index holds a folder as the commit has it, its trees are not read.
func TestTreeSeeingIndex(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: no cache tree to read")
	}
	root := t.TempDir()
	gitCmd(t, root, "init", "-q", "-b", "main")
	files := map[string]string{}
	for i := range 60 {
		files[fmt.Sprintf("p/.ai/tools/ns%d/g%d/t%d.py", i%3, i%5, i)] = fmt.Sprint(i)
	}
	files["p/other.txt"], files["top.txt"] = "o", "t"
	for rel, data := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(data), 0o644)
	}
	os.Symlink("t0.py", filepath.Join(root, "p/.ai/tools/ns0/g0/link.py"))
	gitCmd(t, root, "add", "-A")
	gitCmd(t, root, "commit", "-q", "-m", "one")
	os.WriteFile(filepath.Join(root, "p/.ai/tools/ns1/g1/t1.py"), []byte("changed"), 0o644)
	gitCmd(t, root, "commit", "-q", "-am", "two")

	compare := func(what string) {
		t.Helper()
		for _, ref := range []string{"HEAD", "HEAD~1"} {
			for _, prefix := range []string{"", "p", "p/.ai", "p/.ai/tools/ns2", "nowhere"} {
				r, err := Open(root)
				if err != nil {
					t.Fatal(err)
				}
				want, err1 := r.Tree(ref, prefix, 0)
				got, err2 := r.TreeSeeingIndex(ref, prefix)
				if err1 != nil || err2 != nil || !reflect.DeepEqual(got, want) {
					t.Errorf("%s, %s below %q: with the index %d files (%v), without %d (%v)", what, ref, prefix, len(got), err2, len(want), err1)
				}
			}
		}
	}
	compare("clean")
	r, _ := Open(root)
	if _, err := r.TreeSeeingIndex("HEAD", "p/.ai"); err != nil || r.treesRead != 0 {
		t.Errorf("a clean index: %d trees read (%v), want none", r.treesRead, err)
	}
	r.treesRead = 0
	if _, err := r.TreeSeeingIndex("HEAD~1", "p/.ai"); err != nil || r.treesRead == 0 || r.treesRead > 4 {
		t.Errorf("one file changed since HEAD~1: %d trees read (%v), want the few on its way", r.treesRead, err)
	}

	os.WriteFile(filepath.Join(root, "p/.ai/tools/ns2/g2/t2.py"), []byte("staged"), 0o644)
	gitCmd(t, root, "add", "p/.ai/tools/ns2/g2/t2.py")
	os.MkdirAll(filepath.Join(root, "p/.ai/tools/new"), 0o755)
	os.WriteFile(filepath.Join(root, "p/.ai/tools/new/n.py"), []byte("n"), 0o644)
	gitCmd(t, root, "add", "p/.ai/tools/new/n.py")
	gitCmd(t, root, "rm", "-q", "p/.ai/tools/ns0/g3/t3.py")
	os.WriteFile(filepath.Join(root, "p/.ai/tools/ns0/g0/ita.py"), []byte("i"), 0o644)
	gitCmd(t, root, "add", "-N", "p/.ai/tools/ns0/g0/ita.py")
	compare("staged changes")
}

// vouched is the blob id the index vouches for (statVouches) at rel below
// prefix, as changedSeeingIndex finds its entry.
func vouched(t *testing.T, r *Repo, prefix, rel, file string) (Hash, bool) {
	idx, err := r.index()
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := idx.span(prefix)
	skip := 0
	if prefix != "" {
		skip = len(prefix) + 1
	}
	j := lo + sort.Search(hi-lo, func(k int) bool { return idx.Entries[lo+k].Name[skip:] >= rel })
	if j == hi || idx.Entries[j].Name[skip:] != rel || !statVouches(&idx.Entries[j], file, idx.Written.UnixNano()) {
		return Hash{}, false
	}
	return idx.Entries[j].Hash(), true
}

// TestStatBlobsEntries: the index's stat data answer for a merged entry
// whose file is unchanged, found under a folder prefix or at the root, and
// never for a side of a conflict, a skip-worktree or an intent-to-add
// entry, a name that only shares a prefix, or a file that is not there.
func TestStatBlobsEntries(t *testing.T) {
	root := gitIndexRepo(t)
	clearGitConfigEnv(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	later := time.Now().Add(time.Second)
	os.Chtimes(filepath.Join(root, ".git", "index"), later, later)
	r, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		prefix, rel string
		want        bool
	}{
		{"", "a.txt", true}, {"b", "c.txt", true}, {"b", "d/e.sh", true}, {"b/d", "e.sh", true},
		{"", "conflict.txt", false}, {"", "skip.txt", false}, {"", "new.txt", false},
		{"b", "c.tx", false}, {"b", "a.txt", false}, {"", "b", false},
	} {
		file := filepath.Join(root, filepath.FromSlash(path.Join(c.prefix, c.rel)))
		h, ok := vouched(t, r, c.prefix, c.rel, file)
		if ok != c.want {
			t.Errorf("%s in %q: known %v, want %v", c.rel, c.prefix, ok, c.want)
		}
		if ok {
			data, _ := os.ReadFile(file)
			if want := plumbing.ComputeHash(plumbing.BlobObject, data); h != want {
				t.Errorf("%s: blob %s, want %s", c.rel, h, want)
			}
		}
	}
}

// TestChangedSinceSeeingIndexIsAFullRead: with the index's word (its stat
// data and cache tree, no map of the commit's files) ChangedSince finds
// the same changes and the same files no candidate names as reading every
// candidate and every tree, against HEAD and an older commit, in a
// candidate order that is not the index's (names that sort around "/"),
// through unstaged and staged edits, an edit that keeps size and time, a
// new folder, untracked files, a file removed from the index but not from
// disk, a deletion, an intent to add and a link; and with no cache tree.
func TestChangedSinceSeeingIndexIsAFullRead(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: no cache tree to read")
	}
	clearGitConfigEnv(t)
	root := t.TempDir()
	gitCmd(t, root, "init", "-q", "-b", "main")
	for i := range 60 {
		p := filepath.Join(root, fmt.Sprintf("p/.ai/tools/ns%d/g%d/t%d.py", i%3, i%5, i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(fmt.Sprint(i)), 0o644)
	}
	for _, rel := range []string{"p/.ai/tools/a-b/x.py", "p/.ai/tools/a/x.py", "p/.ai/tools/a.b/y.py", "p/.ai/tools/a0.py"} {
		p := filepath.Join(root, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(rel), 0o644)
	}
	os.Symlink("t0.py", filepath.Join(root, "p/.ai/tools/ns0/g0/link.py"))
	gitCmd(t, root, "add", "-A")
	gitCmd(t, root, "commit", "-q", "-m", "one")
	os.WriteFile(filepath.Join(root, "p/.ai/tools/ns1/g1/t1.py"), []byte("changed"), 0o644)
	gitCmd(t, root, "commit", "-q", "-am", "two")
	// Stat data older than the index, so that the index vouches for them.
	old := time.Now().Add(-time.Hour)
	filepath.WalkDir(filepath.Join(root, "p"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			os.Chtimes(p, old, old)
		}
		return nil
	})
	gitCmd(t, root, "update-index", "--refresh")

	var reads atomic.Int64
	compare := func(what string) {
		t.Helper()
		// The candidates: every file below p/.ai, in a walk's order (a
		// folder's entries sorted by name, which is not the index's order
		// around "/").
		var cands []testCand
		ai := filepath.Join(root, "p", ".ai")
		filepath.WalkDir(ai, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				rel, _ := filepath.Rel(ai, p)
				cands = append(cands, testCand{Rel: filepath.ToSlash(rel), File: p, Read: func() ([]byte, error) {
					reads.Add(1)
					if d.Type()&fs.ModeSymlink != 0 {
						return nil, fs.ErrInvalid
					}
					return os.ReadFile(p)
				}})
			}
			return nil
		})
		for _, ref := range []string{"HEAD", "HEAD~1"} {
			r, err := Open(root)
			if err != nil {
				t.Fatal(err)
			}
			want, wantGone, err1 := r.ChangedSince(ref, "p/.ai", candidatesOf(cands), false)
			reads.Store(0)
			got, gotGone, err2 := r.ChangedSince(ref, "p/.ai", candidatesOf(cands), true)
			if what == "clean" && ref == "HEAD" && reads.Load() != 1 { // the link: never vouched for
				t.Errorf("a clean tree: %d of %d files read", reads.Load(), len(cands))
			}
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			index := func(cs []change) (out []string) {
				for _, c := range cs {
					out = append(out, cands[c.Index].Rel)
				}
				return out
			}
			if !reflect.DeepEqual(index(got), index(want)) || !reflect.DeepEqual(gotGone, wantGone) {
				t.Errorf("%s, since %s:\n with the index %q, gone %q\n full read      %q, gone %q", what, ref, index(got), gotGone, index(want), wantGone)
			}
		}
	}
	compare("clean")
	// The same size and modification time, other bytes: the change time
	// tells.
	f := filepath.Join(root, "p/.ai/tools/ns0/g1/t6.py")
	os.WriteFile(f, []byte("x"), 0o644)
	os.Chtimes(f, old, old)
	os.WriteFile(filepath.Join(root, "p/.ai/tools/a-b/x.py"), []byte("unstaged"), 0o644)
	compare("unstaged edits")
	os.WriteFile(filepath.Join(root, "p/.ai/tools/ns2/g2/t2.py"), []byte("staged"), 0o644)
	gitCmd(t, root, "add", "p/.ai/tools/ns2/g2/t2.py")
	os.MkdirAll(filepath.Join(root, "p/.ai/tools/new"), 0o755)
	os.WriteFile(filepath.Join(root, "p/.ai/tools/new/n.py"), []byte("n"), 0o644)
	gitCmd(t, root, "add", "p/.ai/tools/new/n.py")
	os.WriteFile(filepath.Join(root, "p/.ai/tools/new/untracked.py"), []byte("u"), 0o644)
	gitCmd(t, root, "rm", "-q", "p/.ai/tools/ns0/g3/t3.py")
	gitCmd(t, root, "rm", "-q", "--cached", "p/.ai/tools/ns1/g4/t4.py")
	os.Remove(filepath.Join(root, "p/.ai/tools/ns2/g0/t5.py"))
	os.WriteFile(filepath.Join(root, "p/.ai/tools/ns0/g0/ita.py"), []byte("i"), 0o644)
	gitCmd(t, root, "add", "-N", "p/.ai/tools/ns0/g0/ita.py")
	compare("staged changes")
	// No cache tree at all (an index made by git add alone): every tree
	// is read.
	os.Remove(filepath.Join(root, ".git", "index"))
	gitCmd(t, root, "add", "-A")
	if r, err := Open(root); err != nil {
		t.Fatal(err)
	} else if idx, err := r.index(); err != nil || idx.Trees != nil {
		t.Fatalf("the index made by git add has a cache tree (%v)", err)
	}
	compare("an index without a cache tree")
}

// TestNested: the projects below a folder are the folders holding a
// folder named .ai (or a link named .ai), but for the folder's own .ai;
// a file named .ai, a name that only ends in .ai, and .ai above the
// folder are none.
func TestNested(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	root := t.TempDir()
	gitCmd(t, root, "init", "-q", "-b", "main")
	for _, rel := range []string{"p/.ai/tools/t.py", "p/a/.ai/tools/t.py", "p/a/b/c/.ai/x", "p/file/.ai", "p/x.ai/y", "q/.ai/z", "p/deep/.ai/n/.ai/k"} {
		f := filepath.Join(root, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(f), 0o755)
		os.WriteFile(f, nil, 0o644)
	}
	os.MkdirAll(filepath.Join(root, "p/l"), 0o755)
	os.Symlink("../a/.ai", filepath.Join(root, "p/l/.ai"))
	gitCmd(t, root, "add", "-A")
	r, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	for prefix, want := range map[string][]string{
		"p": {"p/a", "p/a/b/c", "p/deep", "p/deep/.ai/n", "p/l"},
		"":  {"p", "p/a", "p/a/b/c", "p/deep", "p/deep/.ai/n", "p/l", "q"},
	} {
		got, err := r.Nested(prefix)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("below %q: %q (%v), want %q", prefix, got, err, want)
		}
	}
}
