package gitrepo

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/ryekit/rye/internal/filestat"
)

// repoWith makes a repository with files committed, then applies edits to
// the working tree (not committed).
func repoWith(t *testing.T, committed map[string]string) (string, *git.Worktree) {
	t.Helper()
	root := t.TempDir()
	for rel, data := range committed {
		p := filepath.Join(root, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, err := git.PlainInit(root, false)
	if err != nil {
		t.Fatal(err)
	}
	wt, _ := r.Worktree()
	if err := wt.AddGlob("."); err != nil {
		t.Fatal(err)
	}
	if _, err := wt.Commit("base", &git.CommitOptions{Author: &object.Signature{Name: "t", Email: "t@example.com", When: time.Now()}}); err != nil {
		t.Fatal(err)
	}
	return root, wt
}

// testCand is one candidate, as a test lists them.
type testCand struct {
	Rel, File string
	Read      func() ([]byte, error)
}

func candidatesOf(list []testCand) Candidates {
	c := Candidates{
		Read: func(i int) ([]byte, error) { return list[i].Read() },
		File: func(i int) string { return list[i].File },
	}
	for _, t := range list {
		c.Rels = append(c.Rels, t.Rel)
	}
	return c
}

func TestTreeIndexAndChangedSince(t *testing.T) {
	root, wt := repoWith(t, map[string]string{
		"p/.ai/a.txt":     "alpha\n",
		"p/.ai/sub/b.txt": "beta\n",
		"p/.ai/big.txt":   strings.Repeat("x", 100),
		"other/c.txt":     "gamma\n",
	})
	r, prefix, err := OpenAt(filepath.Join(root, "p"))
	if err != nil || prefix != "p" {
		t.Fatalf("OpenAt: %q %v", prefix, err)
	}
	if _, err := r.Prefix(t.TempDir()); err == nil {
		t.Error("a folder outside the work tree has a prefix")
	}

	files, err := r.Tree("HEAD", "p/.ai", 50)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 3 || string(files["a.txt"].Data) != "alpha\n" || files["sub/b.txt"].Blob != blobID([]byte("beta\n")) {
		t.Errorf("tree: %+v", files)
	}
	if f := files["big.txt"]; !f.TooLarge || f.Data != nil {
		t.Errorf("a file over the limit: %+v", f)
	}
	if files, _ := r.Tree("HEAD", "p/.ai", 0); files["a.txt"].Data != nil || files["big.txt"].TooLarge {
		t.Error("limit 0 read data")
	}
	if files, err := r.Tree("HEAD", "nowhere", 0); err != nil || len(files) != 0 {
		t.Errorf("a missing folder: %v %v", files, err)
	}
	if _, err := r.Tree("no-such-ref", "", 0); err == nil || !strings.Contains(err.Error(), `git ref "no-such-ref"`) {
		t.Errorf("bad ref: %v", err)
	}

	// The blob id is git's own.
	if git, err := exec.LookPath("git"); err == nil {
		out, err := exec.Command(git, "-C", root, "hash-object", "p/.ai/a.txt").Output()
		if err != nil || strings.TrimSpace(string(out)) != blobID([]byte("alpha\n")).String() {
			t.Errorf("git hash-object says %s, BlobID %s (%v)", out, blobID([]byte("alpha\n")), err)
		}
	}

	// Stage an edit: the index has it, HEAD does not.
	os.WriteFile(filepath.Join(root, "p/.ai/a.txt"), []byte("ALPHA\n"), 0o644)
	if _, err := wt.Add("p/.ai/a.txt"); err != nil {
		t.Fatal(err)
	}
	idx, err := r.Index("p/.ai", 50)
	if err != nil || string(idx["a.txt"].Data) != "ALPHA\n" || len(idx) != 3 {
		t.Errorf("index: %+v %v", idx, err)
	}

	read := func(s string, err error) func() ([]byte, error) {
		return func() ([]byte, error) { return []byte(s), err }
	}
	cands := candidatesOf([]testCand{
		{Rel: "a.txt", Read: read("ALPHA\n", nil)},           // edited
		{Rel: "sub/b.txt", Read: read("beta\n", nil)},        // same
		{Rel: "new.txt", Read: read("new\n", nil)},           // new
		{Rel: "sub/b.txt", Read: read("", os.ErrPermission)}, // unreadable: always a change
	})
	// Every candidate read, and with the index's word (its stat data and
	// cache tree): the same changes, and the same files of HEAD that no
	// candidate names.
	for _, local := range []bool{false, true} {
		changed, gone, err := r.ChangedSince("HEAD", "p/.ai", cands, local)
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		for _, c := range changed {
			got = append(got, c.Index)
		}
		if len(got) != 3 || got[0] != 0 || got[1] != 2 || got[2] != 3 || string(changed[0].Data) != "ALPHA\n" || changed[2].Err == nil {
			t.Errorf("local %v: changed: %+v", local, changed)
		}
		if len(gone) != 1 || gone[0] != "big.txt" {
			t.Errorf("local %v: files no candidate names: %q", local, gone)
		}
	}
}

// The identity comes from the repository's configuration over the global
// file, and from GIT_AUTHOR_* over both; outside a repository from the
// global file.
func TestIdentity(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[user]\n\tname = Ada Lovelace\n\temail = ada@example.com\n"), 0o644)
	none := func(string) string { return "" }
	if name, email := identity(t.TempDir(), none); name != "Ada Lovelace" || email != "ada@example.com" {
		t.Errorf("global: %q %q", name, email)
	}
	root, _ := repoWith(t, map[string]string{"a": "x"})
	cfg := filepath.Join(root, ".git", "config")
	data, _ := os.ReadFile(cfg)
	os.WriteFile(cfg, append(data, "[user]\n\temail = ada@work.example\n"...), 0o644)
	if name, email := identity(filepath.Join(root), none); name != "Ada Lovelace" || email != "ada@work.example" {
		t.Errorf("repository: %q %q", name, email)
	}
	env := map[string]string{"GIT_AUTHOR_NAME": "A. L."}
	if name, email := identity(root, func(k string) string { return env[k] }); name != "A. L." || email != "ada@work.example" {
		t.Errorf("environment: %q %q", name, email)
	}
	os.Remove(filepath.Join(home, ".gitconfig"))
	if name, email := identity(t.TempDir(), none); name != "" || email != "" {
		t.Errorf("nothing set: %q %q", name, email)
	}
}

// TestChangedSinceTrustsTheIndexLikeGit: a file whose stat data are the
// index's, and that changed before the index was written, is not read; an
// edit that keeps the size and modification time, a racily clean entry, a
// candidate without a file, and any way git could convert bytes (an
// attributes file, core.autocrlf) all make rye read the file.
func TestChangedSinceTrustsTheIndexLikeGit(t *testing.T) {
	home := t.TempDir()
	clearGitConfigEnv(t)
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	for _, f := range []string{"/etc/gitattributes", "/usr/local/etc/gitattributes"} {
		if _, err := os.Lstat(f); err == nil {
			t.Skipf("%s exists on this machine: rye never trusts the index's stat data with it", f)
		}
	}
	files := map[string]string{"p/.ai/a.txt": "alpha\n", "p/.ai/b.txt": "beta\n", "p/.ai/c.txt": "gamma\n"}
	root, _ := repoWith(t, files)
	index := filepath.Join(root, ".git", "index")
	// The index is written after the files, but a coarse file-system clock
	// can give both the same time: put it clearly later.
	later := time.Now().Add(time.Second)
	os.Chtimes(index, later, later)
	open := func() *Repo { // a Repo reads the index once: one per run, as rye makes
		t.Helper()
		r, _, err := OpenAt(filepath.Join(root, "p"))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	run := func(what string) (reads map[string]int, changed []string) {
		t.Helper()
		r := open()
		reads = map[string]int{}
		var mu sync.Mutex
		var cands []testCand
		for _, rel := range []string{"a.txt", "b.txt", "c.txt"} {
			file := filepath.Join(root, "p", ".ai", rel)
			cands = append(cands, testCand{Rel: rel, File: file, Read: func() ([]byte, error) {
				mu.Lock()
				reads[rel]++
				mu.Unlock()
				return os.ReadFile(file)
			}})
		}
		ch, _, err := r.ChangedSince("HEAD", "p/.ai", candidatesOf(cands), true)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		for _, c := range ch {
			changed = append(changed, cands[c.Index].Rel)
		}
		return reads, changed
	}

	if reads, changed := run("clean"); len(reads) != 0 || len(changed) != 0 {
		t.Fatalf("clean tree: read %v, changed %v", reads, changed)
	}

	// Same size, same modification time, same inode, other bytes: the
	// change time tells.
	b := filepath.Join(root, "p/.ai/b.txt")
	editKeepingAllButCtime(t, open(), "p/.ai/b.txt", b, "BETA\n")
	if reads, changed := run("edit keeping size and mtime"); reads["b.txt"] != 1 || len(changed) != 1 || changed[0] != "b.txt" || len(reads) != 1 {
		t.Fatalf("edit keeping size and mtime: read %v, changed %v", reads, changed)
	}

	// A racily clean index (written in the same tick as a file it
	// records): every entry at or after its time is read.
	a := filepath.Join(root, "p/.ai/a.txt")
	fa, _ := os.Stat(a)
	os.Chtimes(index, fa.ModTime(), fa.ModTime())
	if reads, _ := run("racy"); reads["a.txt"] != 1 {
		t.Fatalf("racily clean entry not read: %v", reads)
	}
	os.Chtimes(index, later, later)

	// No file to stat: read.
	cands := candidatesOf([]testCand{{Rel: "a.txt", Read: func() ([]byte, error) { return []byte("alpha\n"), nil }}})
	if ch, _, err := open().ChangedSince("HEAD", "p/.ai", cands, true); err != nil || len(ch) != 0 {
		t.Fatalf("candidate without a file: %v %v", ch, err)
	}

	// Anything that lets git convert bytes turns the shortcut off.
	for name, setup := range map[string]func() func(){
		"untracked .gitattributes above": func() func() {
			f := filepath.Join(root, "p", ".gitattributes")
			os.WriteFile(f, []byte("*.txt text eol=crlf\n"), 0o644)
			return func() { os.Remove(f) }
		},
		"info/attributes": func() func() {
			f := filepath.Join(root, ".git", "info", "attributes")
			os.MkdirAll(filepath.Dir(f), 0o755)
			os.WriteFile(f, []byte("*.txt ident\n"), 0o644)
			return func() { os.Remove(f) }
		},
		"user attributes": func() func() {
			f := filepath.Join(home, ".config", "git", "attributes")
			os.MkdirAll(filepath.Dir(f), 0o755)
			os.WriteFile(f, []byte("*.txt text\n"), 0o644)
			return func() { os.Remove(f) }
		},
		"core.autocrlf": func() func() {
			f := filepath.Join(home, ".gitconfig")
			os.WriteFile(f, []byte("[core]\n\tautocrlf = input\n"), 0o644)
			return func() { os.Remove(f) }
		},
		"core.autocrlf without a value (true)": func() func() {
			f := filepath.Join(home, ".gitconfig")
			os.WriteFile(f, []byte("[Core]\n\tAutoCRLF\n"), 0o644)
			return func() { os.Remove(f) }
		},
		"core.autocrlf in ~/.gitconfig beside an XDG file": func() func() {
			x := filepath.Join(home, ".config", "git", "config")
			os.MkdirAll(filepath.Dir(x), 0o755)
			os.WriteFile(x, []byte("[user]\n\tname = x\n"), 0o644)
			f := filepath.Join(home, ".gitconfig")
			os.WriteFile(f, []byte("[core]\n\tautocrlf = true\n"), 0o644)
			return func() { os.Remove(f); os.Remove(x) }
		},
		"git -c core.autocrlf=true": func() func() {
			os.Setenv("GIT_CONFIG_PARAMETERS", "'core.autocrlf'='true'")
			return func() { os.Unsetenv("GIT_CONFIG_PARAMETERS") }
		},
		"GIT_CONFIG_GLOBAL": func() func() {
			f := filepath.Join(home, "elsewhere.cfg")
			os.WriteFile(f, []byte("[core]\nautocrlf = 1\n"), 0o644)
			os.Setenv("GIT_CONFIG_GLOBAL", f)
			return func() { os.Unsetenv("GIT_CONFIG_GLOBAL"); os.Remove(f) }
		},
		"an include": func() func() {
			f := filepath.Join(root, ".git", "config")
			old, _ := os.ReadFile(f)
			os.WriteFile(f, append(append([]byte{}, old...), "[include]\n\tpath = other\n"...), 0o644)
			return func() { os.WriteFile(f, old, 0o644) }
		},
		"a macro": func() func() {
			f := filepath.Join(root, ".gitattributes")
			os.WriteFile(f, []byte("[attr]crlfy text eol=crlf\n*.txt crlfy\n"), 0o644)
			return func() { os.Remove(f) }
		},
		"an unreadable attributes file": func() func() {
			f := filepath.Join(root, "p", ".gitattributes")
			os.Mkdir(f, 0o755) // a folder where the file would be
			return func() { os.Remove(f) }
		},
	} {
		undo := setup()
		if reads, _ := run(name); reads["a.txt"] != 1 || reads["c.txt"] != 1 {
			t.Errorf("%s: the index's stat data were trusted (reads %v)", name, reads)
		}
		undo()
	}
	if reads, _ := run("after"); reads["a.txt"] != 0 || reads["c.txt"] != 0 {
		t.Fatalf("the shortcut did not come back: %v", reads)
	}

	// Attributes and settings that convert nothing keep it: what rye
	// init writes, binary files, other attributes, autocrlf false.
	for name, text := range map[string]string{
		"rye init's":  "# rye: items are signed byte for byte\n* -text\n",
		"binary":      "*.txt binary\n*.png -diff\n",
		"others":      "*.txt diff=python linguist-generated export-ignore -eol -filter\n\"a b.txt\" -text\n",
		"empty lines": "\n\n   \n#text\n",
	} {
		f := filepath.Join(root, "p", ".gitattributes")
		os.WriteFile(f, []byte(text), 0o644)
		cfg := filepath.Join(home, ".gitconfig")
		os.WriteFile(cfg, []byte("[core]\n\tautocrlf = false\n[user]\n\tname = n\n"), 0o644)
		if reads, _ := run(name); reads["a.txt"] != 0 || reads["c.txt"] != 0 {
			t.Errorf("%s attributes: the shortcut was turned off (reads %v)", name, reads)
		}
		os.Remove(f)
		os.Remove(cfg)
	}
}

// clearGitConfigEnv unsets what would hand git settings outside files.
func clearGitConfigEnv(t *testing.T) {
	for _, v := range []string{"GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM"} {
		t.Setenv(v, "")
	}
}

// TestLinkedWorktreeReadsCommonAttributes: in a linked work tree, git
// reads info/attributes from the common git folder, so rye does too.
func TestLinkedWorktreeReadsCommonAttributes(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	home := t.TempDir()
	clearGitConfigEnv(t)
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	root, _ := repoWith(t, map[string]string{"p/.ai/a.txt": "alpha\n"})
	wt := filepath.Join(t.TempDir(), "w")
	if out, err := exec.Command("git", "-C", root, "worktree", "add", "-q", wt).CombinedOutput(); err != nil {
		t.Fatalf("git worktree add: %v\n%s", err, out)
	}
	converts := func() bool {
		t.Helper()
		r, err := Open(wt)
		if err != nil {
			t.Fatal(err)
		}
		idx, err := r.index()
		if err != nil {
			t.Fatal(err)
		}
		return r.mayConvert(idx, candidatesOf([]testCand{{Rel: "a.txt", File: filepath.Join(wt, "p", ".ai", "a.txt")}}))
	}
	if converts() {
		t.Fatal("nothing converts, yet the shortcut is off")
	}
	common := filepath.Join(root, ".git", "info", "attributes")
	os.MkdirAll(filepath.Dir(common), 0o755)
	os.WriteFile(common, []byte("*.txt text eol=crlf\n"), 0o644)
	if !converts() {
		t.Error("the common git folder's info/attributes was not read")
	}
}

// TestAttributesMayConvert: which gitattributes lines can change bytes
// between the index and the work tree.
func TestAttributesMayConvert(t *testing.T) {
	for text, want := range map[string]bool{
		"":                                   false,
		"* -text":                            false,
		"*.png binary":                       false,
		"*.go diff=golang":                   false,
		"*.sh -crlf -ident -filter":          false,
		"\"a b\" -text":                      false,
		"* text":                             true,
		"* text=auto":                        true,
		"* !text":                            true,
		"*.txt eol=lf":                       true,
		"*.txt crlf":                         true,
		"*.c ident":                          true,
		"*.bin filter=lfs":                   true,
		"*.txt working-tree-encoding=UTF-16": true,
		"[attr]mine -text":                   true,
		"\"unterminated -text":               false, // git cannot unquote it: pattern "\"unterminated", attribute -text
		"* ident\x00":                        true,
		"* -text\n* text\x00":                true,
		"\xef\xbb\xbf\"*\"ident":             true,
		"\xef\xbb\xbf* -text":                false,
		"\"* ident x=\\q\"":                  true,
		"* -text\n*.md text":                 true,
		"\"a\\\" text\" -text":               true, // a pattern named like an attribute: yes, to be safe
		"\"a\\\" b\" text":                   true,
	} {
		if got := attributesMayConvert([]byte(text)); got != want {
			t.Errorf("%q: %v, want %v", text, got, want)
		}
	}
}

// TestConfigMayConvert: core.autocrlf in any spelling git takes.
func TestConfigMayConvert(t *testing.T) {
	for text, want := range map[string]bool{
		"":                                    false,
		"[user]\nname = x":                    false,
		"[core]\nautocrlf = false":            false,
		"[core]\nautocrlf = No":               false,
		"[core]\nautocrlf = 0":                false,
		"[core]\nautocrlf = true":             true,
		"[core]\nautocrlf = input":            true,
		"[core]\nautocrlf":                    true,
		"[CORE]\nAUTOCRLF = yes":              true,
		"[core]\nattributesFile = ~/.attrs":   true,
		"[include]\npath = x":                 true,
		"[includeIf \"gitdir:~/\"]\npath = x": true,
		"[core":                               true,
		"[attr]\ntree = HEAD":                 true,
	} {
		if got := configMayConvert([]byte(text)); got != want {
			t.Errorf("%q: %v, want %v", text, got, want)
		}
	}
}

// TestTracks: a path is tracked when the index has it, something below it,
// or a folder above it as a file; names that only share a prefix are not.
func TestTracks(t *testing.T) {
	root, _ := repoWith(t, map[string]string{
		".venv/bin/python": "x", "a/b": "x", "c": "x", ".envx": "x", "a-b/c": "x", "a.x": "x",
	})
	r, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{".venv": true, ".venv/bin/python": true, "a/b/c": true, "c/d": true, "a": true, "d": false, ".env": false, "a-": false, "a/c": false, "b": false}
	var rels []string
	for rel := range want {
		rels = append(rels, rel)
	}
	got, err := r.Tracks(rels...)
	if err != nil {
		t.Fatal(err)
	}
	for rel, w := range want {
		if got[rel] != w {
			t.Errorf("%s: tracked %v, want %v", rel, got[rel], w)
		}
	}
}

// editKeepingAllButCtime rewrites file (name in the index) in place with
// data of the same size and sets its modification time back, so that of
// the stat data the index recorded only the change time differs. A file
// system with coarse timestamps can give the edit the change time the
// index holds: the modification time is set again (which sets the change
// time to now) until the change time differs, for a few seconds at most.
// The test fails unless exactly the change time differs.
func editKeepingAllButCtime(t *testing.T, r *Repo, name, file, data string) {
	t.Helper()
	idx, err := r.index()
	if err != nil {
		t.Fatal(err)
	}
	var e *indexEntry
	for i := range idx.Entries {
		if idx.Entries[i].Name == name {
			e = &idx.Entries[i]
		}
	}
	if e == nil || int(e.Size()) != len(data) {
		t.Fatalf("%s: no index entry of %d bytes: %+v", name, len(data), e)
	}
	if err := os.WriteFile(file, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	var st filestat.Stat
	for deadline := time.Now().Add(5 * time.Second); ; {
		if err := os.Chtimes(file, time.Unix(0, e.MTime()), time.Unix(0, e.MTime())); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Lstat(file)
		if err != nil {
			t.Fatal(err)
		}
		var complete bool
		if st, complete = filestat.Of(fi); !complete {
			t.Fatalf("%s: no change time or inode on this system", file)
		}
		if st.Ctime != e.CTime() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: the change time is still the index's (%v) 5 s after the edit: this file system does not advance it", file, e.CTime())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if st.Size != int64(e.Size()) || st.Mtime != e.MTime() || uint32(st.Ino) != e.Ino() {
		t.Fatalf("%s: the edit changed more than the change time: size %d mtime %d inode %d, index %d %d %d",
			file, st.Size, st.Mtime, st.Ino, e.Size(), e.MTime(), e.Ino())
	}
}

// Below is a folder's place in its repository: what git apply takes for
// its prefix.
func TestBelow(t *testing.T) {
	root := t.TempDir()
	if _, err := git.PlainInit(root, false); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(root, "proj", ".ai", "knowledge")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(root)
	if below, top := Below(sub); below != "proj/.ai/knowledge" || top != real {
		t.Errorf("sub-folder: %q %q", below, top)
	}
	if below, top := Below(root); below != "." || top != real {
		t.Errorf("top: %q %q", below, top)
	}
	if below, top := Below(t.TempDir()); below != "." || top != "" {
		t.Errorf("outside git: %q %q", below, top)
	}
}
