// Package gitrepo is everything rye reads from git: the files of a commit,
// the index, blob ids and what changed since a commit. It reads through
// go-git (rye never runs the git command) and never writes to the
// repository.
//
// It knows nothing of items or trust: callers say which folder they want
// and how large a file they will read, and interpret the files themselves.
package gitrepo

import (
	"errors"
	"fmt"
	"io"
	"os/user"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/ryekit/rye/internal/filestat"
	"github.com/ryekit/rye/internal/par"
)

// Repo is the git repository that holds a folder of interest.
type Repo struct {
	repo *git.Repository
	// blobs serialises reads of objects: go-git's object storage loads
	// pack indexes and seeks shared pack files without locks, and Blob is
	// called from the verifier's workers.
	blobs sync.Mutex
	// index is the index file, read once (rye never writes it).
	index func() (*gitIndex, error)
	// treesRead counts the tree objects read (for the tests).
	treesRead int
	// Root is the work tree's root, absolute.
	Root string
}

// ErrNoRepository is a folder that no git repository holds.
var ErrNoRepository = errors.New("not in a git repository")

// Open finds the repository that contains dir. Symbolic links in dir's
// path are resolved first: a project reached through a link is still in
// its repository (go-git would look above the link's own folder).
func Open(dir string) (*Repo, error) {
	abs, err := realPath(dir)
	if err != nil {
		return nil, err
	}
	r, err := git.PlainOpenWithOptions(abs, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if errors.Is(err, git.ErrRepositoryNotExists) {
		return nil, fmt.Errorf("%s is %w", dir, ErrNoRepository)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot open the git repository of %s: %v", dir, err)
	}
	wt, err := r.Worktree()
	if err != nil {
		return nil, fmt.Errorf("the git repository of %s has no work tree: %v", dir, err)
	}
	repo := &Repo{repo: r, Root: wt.Filesystem.Root()}
	repo.index = sync.OnceValues(func() (*gitIndex, error) {
		idx, err := repo.readIndex()
		if err != nil {
			return nil, fmt.Errorf("reading the git index: %v", err)
		}
		return idx, nil
	})
	return repo, nil
}

// OpenAt opens the repository that contains dir and returns it with dir's
// '/'-separated path in it ("" for the root).
func OpenAt(dir string) (*Repo, string, error) {
	r, err := Open(dir)
	if err != nil {
		return nil, "", err
	}
	prefix, err := r.Prefix(dir)
	if err != nil {
		return nil, "", err
	}
	return r, prefix, nil
}

// Prefix returns the '/'-separated path of dir relative to the repository
// root ("" for the root itself).
func (r *Repo) Prefix(dir string) (string, error) {
	abs, err := realPath(dir)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(r.Root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%s is not inside the git work tree %s", dir, r.Root)
	}
	if rel == "." {
		return "", nil
	}
	return filepath.ToSlash(rel), nil
}

// realPath is dir absolute, with every symbolic link resolved as far as
// the path exists (a path that does not exist yet keeps its last parts).
func realPath(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	rest := ""
	for p := abs; ; p = filepath.Dir(p) {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(real, rest), nil
		}
		if filepath.Dir(p) == p {
			return abs, nil
		}
		rest = filepath.Join(filepath.Base(p), rest)
	}
}

// File is a file recorded in git: its blob id, whether it is a symbolic
// link, and its bytes when they were asked for. A blob over the size the
// caller would read is not loaded: TooLarge says so and Data is nil, and
// the caller reports it (one such file never fails the others).
type File struct {
	Blob     Hash
	Symlink  bool
	TooLarge bool
	Data     []byte
}

// Hash is a git object id (SHA-1). A fixed-size value, not its hex form:
// a tree or an index of a hundred thousand files is read without an
// allocation per id.
type Hash = plumbing.Hash

// file describes one tree or index entry, reading its bytes (at most limit
// of them) when limit > 0 and it is not a link.
func (r *Repo) file(h plumbing.Hash, mode filemode.FileMode, limit int64) (File, error) {
	f := File{Blob: h, Symlink: mode == filemode.Symlink}
	if limit <= 0 || f.Symlink {
		return f, nil
	}
	r.blobs.Lock()
	defer r.blobs.Unlock()
	b, err := r.repo.BlobObject(h)
	if err != nil {
		return f, err
	}
	if b.Size > limit {
		f.TooLarge = true
		return f, nil
	}
	rd, err := b.Reader()
	if err != nil {
		return f, err
	}
	defer rd.Close()
	f.Data, err = io.ReadAll(io.LimitReader(rd, limit+1))
	if err == nil && int64(len(f.Data)) > limit {
		f.Data, f.TooLarge = nil, true
	}
	return f, err
}

// ErrTooLarge is a blob over the limit a read was given.
var ErrTooLarge = errors.New("larger than")

// Blob reads the bytes of a file of a Tree or Index (by its Blob id), at
// most limit of them: a larger blob is an error.
func (r *Repo) Blob(f File, limit int64) ([]byte, error) {
	g, err := r.file(f.Blob, filemode.Regular, limit)
	if err != nil {
		return nil, err
	}
	if g.TooLarge {
		return nil, fmt.Errorf("blob %s is %w %d bytes", f.Blob, ErrTooLarge, limit)
	}
	return g.Data, nil
}

// Tree returns the files of the commit named by ref (a branch, tag,
// commit id, HEAD~1, ...) below prefix, keyed by their path below it.
// With limit > 0, the bytes of each file of at most limit bytes are read
// too.
func (r *Repo) Tree(ref, prefix string, limit int64) (map[string]File, error) {
	return r.tree(ref, prefix, limit, nil, nil)
}

// TreeSeeingIndex is Tree without the bytes, reading only the trees the
// index does not already hold: where the index's cache tree says a folder
// of the index makes the very tree the commit has there (same id), the
// folder's files are the index's entries, and its trees are not read. Git
// keeps the cache tree for the folders a change has not touched, so that a
// commit is compared with the index in the time the differences take
// (what git diff --cached does). It trusts the local index as git does:
// for local runs (the verdict cache allowed), not for --no-cache.
func (r *Repo) TreeSeeingIndex(ref, prefix string) (map[string]File, error) {
	idx, err := r.index()
	if err != nil || idx.Trees == nil {
		idx = nil // no cache tree: every tree is read
	}
	return r.tree(ref, prefix, 0, idx, nil)
}

// commitTree is the root tree of the commit ref names.
func (r *Repo) commitTree(ref string) (*object.Tree, error) {
	hash, err := r.repo.ResolveRevision(plumbing.Revision(ref))
	if err != nil {
		return nil, fmt.Errorf("git ref %q: %v", ref, err)
	}
	commit, err := r.repo.CommitObject(*hash)
	if err != nil {
		return nil, fmt.Errorf("git ref %q is not a commit: %v", ref, err)
	}
	return commit.Tree()
}

// tree reads the files of ref below prefix. With idx, a folder whose
// cache tree is ref's tree there is not read: its files are the index's,
// added to the map, or, with clean (one flag per index entry), only
// marked there (markFiles).
func (r *Repo) tree(ref, prefix string, limit int64, idx *gitIndex, clean []bool) (map[string]File, error) {
	tree, err := r.commitTree(ref)
	if err != nil {
		return nil, err
	}
	if prefix != "" {
		tree, err = tree.Tree(prefix)
		if errors.Is(err, object.ErrDirectoryNotFound) {
			return map[string]File{}, nil
		}
		if err != nil {
			return nil, err
		}
	}
	out := map[string]File{}
	w := treeWalk{r: r, limit: limit, idx: idx, top: prefix, out: out, clean: clean}
	if idx != nil && idx.Trees[prefix] == tree.Hash {
		w.fromIndex(prefix, "")
		return out, nil
	}
	if err := w.walk(tree, ""); err != nil {
		return nil, err
	}
	r.treesRead += w.read
	return out, nil
}

// treeWalk reads a commit's files below top into out.
type treeWalk struct {
	r     *Repo
	limit int64
	idx   *gitIndex // with its cache tree, to skip the trees the index holds
	top   string
	out   map[string]File
	clean []bool // when set, what the index holds is marked here, not added to out
	read  int
}

// fromIndex takes the files of folder full (named rel below top) from the
// index: into out, or marked in clean.
func (w *treeWalk) fromIndex(full, rel string) {
	if w.clean != nil {
		w.idx.markFiles(full, w.clean)
	} else {
		w.idx.files(full, rel, w.out)
	}
}

// walk adds the files of tree, the folder dir below top, and its subtrees.
func (w *treeWalk) walk(tree *object.Tree, dir string) error {
	w.read++
	for _, entry := range tree.Entries {
		name := entry.Name
		if dir != "" {
			name = dir + "/" + name
		}
		switch entry.Mode {
		case filemode.Submodule:
		case filemode.Dir:
			full := name
			if w.top != "" {
				full = w.top + "/" + name
			}
			if w.idx != nil && w.idx.Trees[full] == entry.Hash {
				w.fromIndex(full, name)
				continue
			}
			sub, err := w.r.repo.TreeObject(entry.Hash)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			if err := w.walk(sub, name); err != nil {
				return err
			}
		default:
			f, err := w.r.file(entry.Hash, entry.Mode, w.limit)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			w.out[name] = f
		}
	}
	return nil
}

// files adds to out the index's files below folder full (a path from the
// repository's top, "" for all), keyed as rel/<path below full>: what a
// tree of the same id holds (entries git leaves out of trees, intent to
// add and conflicts, are left out; so are submodules, as Tree leaves
// them).
func (idx *gitIndex) files(full, rel string, out map[string]File) {
	entries := idx.below(full)
	dir := ""
	if full != "" {
		dir = full + "/"
	}
	for _, e := range entries {
		if e.Stage != 0 || e.IntentToAdd || e.Mode == modeGitlink {
			continue
		}
		name := e.Name[len(dir):]
		if rel != "" {
			name = rel + "/" + name
		}
		out[name] = File{Blob: e.Hash(), Symlink: e.Mode == modeSymlink}
	}
}

// markFiles is files for a caller that looks the entries up itself: it
// sets clean[i] for every entry i (of idx.Entries) that files would add.
func (idx *gitIndex) markFiles(full string, clean []bool) {
	lo, hi := idx.span(full)
	for i := lo; i < hi; i++ {
		if e := &idx.Entries[i]; e.Stage == 0 && !e.IntentToAdd && e.Mode != modeGitlink {
			clean[i] = true
		}
	}
}

// Index returns the staged files (the index) below prefix, with the bytes
// of those of at most limit bytes: what the next commit will contain.
func (r *Repo) Index(prefix string, limit int64) (map[string]File, error) {
	idx, err := r.index()
	if err != nil {
		return nil, err
	}
	entries := idx.below(prefix)
	out := make(map[string]File, len(entries))
	for _, e := range entries {
		name := e.Name
		if prefix != "" {
			name = name[len(prefix)+1:]
		}
		if e.Mode == modeGitlink {
			continue // a submodule: a commit, not a file
		}
		f, err := r.file(e.Hash(), filemode.FileMode(e.Mode), limit)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.Name, err)
		}
		out[name] = f
	}
	return out, nil
}

// Entry returns the index's entry for one path (a file, a link, or a
// submodule recorded at exactly that path), and whether there is one.
func (r *Repo) Entry(rel string) (File, bool, error) {
	idx, err := r.index()
	if err != nil {
		return File{}, false, err
	}
	i, _ := slices.BinarySearchFunc(idx.Entries, rel, func(e indexEntry, name string) int { return strings.Compare(e.Name, name) })
	if i == len(idx.Entries) || idx.Entries[i].Name != rel {
		return File{}, false, nil
	}
	e := idx.Entries[i]
	return File{Blob: e.Hash(), Symlink: e.Mode == modeSymlink}, true, nil
}

// Tracks reports, for each rel (a '/'-separated path from the repository
// root), whether the index records it, anything below it, or one of the
// folders above it as a file, a symbolic link or a submodule (then what is
// below it comes from git too). Names are compared without case where the
// file system ignores it (macOS, Windows). The index is read once for all.
func (r *Repo) Tracks(rels ...string) (map[string]bool, error) {
	idx, err := r.index()
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(rels))
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		// Without case, the sorted order does not help: look at every entry.
		for _, e := range idx.Entries {
			name := strings.ToLower(e.Name)
			for _, rel := range rels {
				f := strings.ToLower(rel)
				if name == f || strings.HasPrefix(name, f+"/") || strings.HasPrefix(f, name+"/") {
					out[rel] = true
				}
			}
		}
		return out, nil
	}
	// The entries are sorted by name: rel, what is below it and each folder
	// above it are each found by binary search.
	entries := idx.Entries
	has := func(name string) bool {
		i := sort.Search(len(entries), func(i int) bool { return entries[i].Name >= name })
		return i < len(entries) && entries[i].Name == name
	}
	below := func(dir string) bool {
		i := sort.Search(len(entries), func(i int) bool { return entries[i].Name >= dir+"/" })
		return i < len(entries) && strings.HasPrefix(entries[i].Name, dir+"/")
	}
	for _, rel := range rels {
		tracked := has(rel) || below(rel)
		for d := rel; !tracked; {
			i := strings.LastIndexByte(d, '/')
			if i < 0 {
				break
			}
			d = d[:i]
			tracked = has(d)
		}
		out[rel] = out[rel] || tracked
	}
	for rel, t := range out {
		if !t {
			delete(out, rel)
		}
	}
	return out, nil
}

// deletion is a path that a commit's history had and the commit does not:
// the commit that removed it (the oldest one without it, newest first from
// the ref) and the file as it was just before.
type deletion struct {
	Commit string
	When   time.Time // the deleting commit's committer time
	Last   File
}

// Deleted looks for rels (paths below prefix, absent at ref) in ref's
// history, newest commit first, over at most maxCommits commits: for each
// one found, when it was deleted and its last version. A path that was
// never in those commits is not in the result.
func (r *Repo) Deleted(ref, prefix string, rels []string, maxCommits int) (map[string]deletion, error) {
	hash, err := r.repo.ResolveRevision(plumbing.Revision(ref))
	if err != nil {
		return nil, fmt.Errorf("git ref %q: %v", ref, err)
	}
	iter, err := r.repo.Log(&git.LogOptions{From: *hash, Order: git.LogOrderCommitterTime})
	if err != nil {
		return nil, err
	}
	defer iter.Close()
	out := map[string]deletion{}
	missing := map[string]bool{}
	for _, rel := range rels {
		missing[rel] = true
	}
	var newer *object.Commit
	for n := 0; n < maxCommits && len(missing) > 0; n++ {
		c, err := iter.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		tree, err := c.Tree()
		if err != nil {
			return nil, err
		}
		for rel := range missing {
			entry, err := tree.FindEntry(strings.TrimPrefix(prefix+"/"+rel, "/"))
			if err != nil || entry.Mode == filemode.Dir {
				continue
			}
			delete(missing, rel)
			if newer == nil {
				continue // present at ref itself: not deleted
			}
			out[rel] = deletion{Commit: newer.Hash.String(), When: newer.Committer.When, Last: File{Blob: entry.Hash, Symlink: entry.Mode == filemode.Symlink}}
		}
		newer = c
	}
	return out, nil
}

// blobID is the git object id of data as a blob: what git would store for
// it, so that a working-tree file can be compared with a commit without a
// status walk.
func blobID(data []byte) Hash {
	return plumbing.ComputeHash(plumbing.BlobObject, data)
}

// Same reports whether data is the content git recorded for f (a regular
// file with the same blob id).
func (f File) Same(data []byte) bool { return !f.Symlink && f.Blob == blobID(data) }

// Candidates are the working-tree files to compare with a commit: their
// paths below the compared folder, how to read the i-th, and its file on
// disk for the index's stat data (File nil, or "" for a candidate that has
// none; otherwise Rels[i] below one folder on disk, the same for every
// candidate, so that candidates of one folder of Rels share a folder on
// disk). Functions of an index rather than a record with a closure per
// file: at 100,000 files those records were 13 MB.
type Candidates struct {
	Rels []string
	Read func(i int) ([]byte, error)
	File func(i int) string
	// Stat, when set, reads the stat data of the i-th candidate's file
	// (one File names) as filestat.Lstat of it would (through a folder
	// already open, say); nil lstats File(i).
	Stat func(i int) (st filestat.Stat, regular, complete bool, err error)
}

// stat is the i-th candidate's stat data, when it is a regular file whose
// stat data are complete.
func (c Candidates) stat(i int) (filestat.Stat, bool) {
	var st filestat.Stat
	var regular, complete bool
	var err error
	switch file := c.file(i); {
	case file == "": // no file on disk: never vouched for
		return st, false
	case c.Stat != nil:
		st, regular, complete, err = c.Stat(i)
	default:
		st, regular, complete, err = filestat.Lstat(file)
	}
	return st, err == nil && regular && complete
}

// file is the i-th candidate's file on disk, or "".
func (c Candidates) file(i int) string {
	if c.File == nil {
		return ""
	}
	return c.File(i)
}

// change is a candidate whose bytes differ from the commit's (or that is
// new, or cannot be read): its index among the candidates and what reading
// it gave, so that nobody reads it a second time.
type change struct {
	Index int
	Data  []byte
	Err   error
}

// ChangedSince compares candidates with the files of commit ref below
// prefix by git blob id (no status walk) and returns those that differ,
// and the files of ref that no candidate names, sorted (the caller looks
// for what was deleted among them). Like git status, a local run trusts
// the index's stat data: a file whose size, modification and change times
// and inode are those the index recorded, and that changed before the
// index was written (git's racy-timestamp rule), has the index's blob id
// without being read. The others are read and hashed, in parallel.
//
// A local run (local) trusts the index as git status does: the stat data
// of its entries and its cache tree (TreeSeeingIndex); otherwise every
// candidate is read and every tree of ref is read.
func (r *Repo) ChangedSince(ref, prefix string, cands Candidates, local bool) ([]change, []string, error) {
	if local {
		if idx, err := r.index(); err == nil && !r.mayConvert(idx, cands) {
			return r.changedSeeingIndex(ref, prefix, cands, idx)
		}
	}
	var old map[string]File
	var err error
	if local {
		old, err = r.TreeSeeingIndex(ref, prefix)
	} else {
		old, err = r.Tree(ref, prefix, 0)
	}
	if err != nil {
		return nil, nil, err
	}
	changes := make([]*change, len(cands.Rels))
	par.For(len(cands.Rels), par.IO(), func(i int) {
		f, inRef := old[cands.Rels[i]]
		data, err := cands.Read(i)
		if inRef && err == nil && f.Same(data) {
			return
		}
		changes[i] = &change{Index: i, Data: data, Err: err}
	})
	named := make(map[string]bool, len(cands.Rels))
	for _, rel := range cands.Rels {
		named[rel] = true
	}
	var gone []string
	for rel := range old {
		if !named[rel] {
			gone = append(gone, rel)
		}
	}
	slices.Sort(gone)
	return collect(changes), gone, nil
}

func collect(changes []*change) []change {
	var changed []change
	for _, c := range changes {
		if c != nil {
			changed = append(changed, *c)
		}
	}
	return changed
}

// changedSeeingIndex is ChangedSince of a local run with a usable index,
// at the pace of git status: each candidate is matched with its index
// entry (the candidates come in the index's order but for names that
// sort around "/", so the entry after the last one matched is tried
// before a binary search), and where the cache tree says the entry's
// folder is ref's very tree, ref's file there is the entry itself: no map
// of ref's files is built. Only the folders that differ from ref's are
// read from git. A file whose stat data are the entry's is not read.
func (r *Repo) changedSeeingIndex(ref, prefix string, cands Candidates, idx *gitIndex) ([]change, []string, error) {
	clean := make([]bool, len(idx.Entries)) // the entry is ref's file
	if idx.Trees == nil {
		idx = &gitIndex{Entries: idx.Entries, Written: idx.Written} // no cache tree: every tree is read
	}
	dirty, err := r.tree(ref, prefix, 0, idx, clean) // ref's files in the other folders
	if err != nil {
		return nil, nil, err
	}
	lo, hi := idx.span(prefix)
	skip := 0 // the length of "prefix/" in each entry's name
	if prefix != "" {
		skip = len(prefix) + 1
	}
	written := idx.Written.UnixNano()
	entries := idx.Entries
	named := make([]bool, len(entries)) // a candidate names the entry
	var mu sync.Mutex
	namedDirty := map[string]bool{} // files of dirty named by candidates that have no entry
	n := len(cands.Rels)
	changes := make([]*change, n)
	const block = 256
	par.For((n+block-1)/block, par.IO(), func(b int) {
		cur := lo
		for i := b * block; i < min(n, (b+1)*block); i++ {
			rel := cands.Rels[i]
			j, found := -1, false
			if cur < hi && entries[cur].Name[skip:] == rel {
				j, found = cur, true
			} else {
				j = lo + sort.Search(hi-lo, func(k int) bool { return entries[lo+k].Name[skip:] >= rel })
				found = j < hi && entries[j].Name[skip:] == rel
			}
			var f File // ref's file at rel
			inRef := false
			if found {
				cur = j + 1
				named[j] = true
				if e := &entries[j]; clean[j] {
					f, inRef = File{Blob: e.Hash(), Symlink: e.Mode == modeSymlink}, true
				}
			} else {
				cur = j
			}
			if !inRef {
				if f, inRef = dirty[rel]; inRef && !found {
					mu.Lock()
					namedDirty[rel] = true
					mu.Unlock()
				}
			}
			if found && inRef && !f.Symlink && f.Blob == entries[j].Hash() && keepsUp(&entries[j], written) {
				if st, ok := cands.stat(i); ok && sameStat(&entries[j], st) {
					continue // unchanged, by the index's word
				}
			}
			data, err := cands.Read(i)
			if inRef && err == nil && f.Same(data) {
				continue
			}
			changes[i] = &change{Index: i, Data: data, Err: err}
		}
	})
	var gone []string
	for j := lo; j < hi; j++ {
		if clean[j] && !named[j] {
			gone = append(gone, entries[j].Name[skip:])
		}
	}
	for rel := range dirty {
		if namedDirty[rel] {
			continue
		}
		j := lo + sort.Search(hi-lo, func(k int) bool { return entries[lo+k].Name[skip:] >= rel })
		if j < hi && entries[j].Name[skip:] == rel && named[j] {
			continue
		}
		gone = append(gone, rel)
	}
	slices.Sort(gone)
	return collect(changes), gone, nil
}

// identity returns the name and email git records for its user when
// working in dir: GIT_AUTHOR_NAME and GIT_AUTHOR_EMAIL (read with getenv)
// over the configuration of the repository that holds dir, over the global
// and system files (~/.gitconfig, $XDG_CONFIG_HOME/git/config,
// ~/.config/git/config, /etc/gitconfig); outside a repository, the global
// and system files alone. What is set nowhere is "".
func identity(dir string, getenv func(string) string) (name, email string) {
	var cfg *config.Config
	if r, err := Open(dir); err == nil {
		cfg, _ = r.repo.ConfigScoped(config.SystemScope)
	}
	if cfg == nil {
		cfg = config.NewConfig()
		for _, scope := range []config.Scope{config.SystemScope, config.GlobalScope} {
			if c, err := config.LoadConfig(scope); err == nil {
				if c.User.Name != "" {
					cfg.User.Name = c.User.Name
				}
				if c.User.Email != "" {
					cfg.User.Email = c.User.Email
				}
			}
		}
	}
	name, email = cfg.User.Name, cfg.User.Email
	if getenv != nil {
		if v := getenv("GIT_AUTHOR_NAME"); v != "" {
			name = v
		}
		if v := getenv("GIT_AUTHOR_EMAIL"); v != "" {
			email = v
		}
	}
	return name, email
}

// sameStat reports whether a file's stat data are those the index entry
// recorded: size, modification and change times and inode, as git
// compares them (where the change time is not known, never).
// statVouches reports whether the index entry e vouches for file (""
// for none): a merged entry (stage 0; 1 to 3 are the sides of a conflict,
// sorted after it, so a name's first entry tells) that git keeps in step
// with its file (not skip-worktree, not intent to add), whose stat data
// the file still has, and that changed before the index was written
// (written, in nanoseconds: git's racy-timestamp rule).
func statVouches(e *indexEntry, file string, written int64) bool {
	if file == "" || !keepsUp(e, written) {
		return false
	}
	st, regular, complete, err := filestat.Lstat(file)
	return err == nil && regular && complete && sameStat(e, st)
}

// keepsUp reports whether the stat data of index entry e can vouch for
// its file (statVouches), before they are compared.
func keepsUp(e *indexEntry, written int64) bool {
	return e.Stage == 0 && !e.SkipWorktree && !e.IntentToAdd && e.MTime() < written
}

func sameStat(e *indexEntry, st filestat.Stat) bool {
	return int64(e.Size()) == st.Size&0xffffffff && e.MTime() == st.Mtime && e.CTime() == st.Ctime && e.Ino() == uint32(st.Ino)
}

// Below is dir's path below the top level of the git repository that
// holds it ('/'-separated; "." at the top and outside a repository), and
// that top ("" outside one).
func Below(dir string) (below, top string) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return ".", ""
	}
	repo, err := Open(real)
	if err != nil {
		return ".", ""
	}
	rel, err := filepath.Rel(repo.Root, real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return ".", ""
	}
	return filepath.ToSlash(rel), repo.Root
}

// Owner names the user as git does when working in dir: "Name <email>"
// (Identity), or what of them is set, else the login name (USER, LOGNAME,
// else the system's name for the user running rye); "" when none is
// known, for the caller to ask for one.
func Owner(dir string, getenv func(string) string) string {
	name, email := identity(dir, getenv)
	switch {
	case name != "" && email != "":
		return name + " <" + email + ">"
	case name != "":
		return name
	case email != "":
		return email
	}
	for _, v := range []string{"USER", "LOGNAME"} {
		if name := getenv(v); name != "" {
			return name
		}
	}
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return ""
}

// Nested lists the projects the index tracks below the folder prefix
// ('/'-separated from the repository's top, "" for the top itself), other
// than the one whose .ai folder is prefix's own: the folder above each
// ".ai" component of a path below prefix (in hidden folders and inside
// another .ai/ folder too, where a change could hide one), and above each
// ".ai" that is a symbolic link or a submodule (a folder that rye follows
// into, whose files the index holds elsewhere or not at all). Sorted.
func (r *Repo) Nested(prefix string) ([]string, error) {
	idx, err := r.index()
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []string
	// Each name is scanned for a folder named .ai below prefix's own,
	// without splitting it: this runs for every file of a tree.
	for _, e := range idx.below(prefix) {
		name := e.Name
		if prefix != "" {
			name = name[len(prefix)+1:]
		}
		link := e.Mode == modeSymlink || e.Mode == modeGitlink // a link or a submodule named .ai is a project's .ai too
		start := 0
		for i := 0; i <= len(name); i++ {
			if i < len(name) && name[i] != '/' {
				continue
			}
			if start > 0 && (i < len(name) || link) && name[start:i] == ".ai" { // not prefix's own .ai
				dir := name[:start-1]
				if prefix != "" {
					dir = prefix + "/" + dir
				}
				if !seen[dir] {
					seen[dir] = true
					out = append(out, dir)
				}
			}
			start = i + 1
		}
	}
	sort.Strings(out)
	return out, nil
}

// EachPath calls fn with the path of every entry the index tracks below
// the folder prefix ('/'-separated from the repository's top, "" for all
// of it), relative to prefix, in the index's order: a walk over the names
// alone, which reads no object.
func (r *Repo) EachPath(prefix string, fn func(rel string)) error {
	idx, err := r.index()
	if err != nil {
		return err
	}
	for _, e := range idx.below(prefix) {
		name := e.Name
		if prefix != "" {
			name = name[len(prefix)+1:]
		}
		fn(name)
	}
	return nil
}

// HasFolder reports whether the commit ref holds the folder dir
// ('/'-separated from the repository's top), or a symbolic link or a
// submodule in its place.
func (r *Repo) HasFolder(ref, dir string) (bool, error) {
	tree, err := r.commitTree(ref)
	if err != nil {
		return false, err
	}
	e, err := tree.FindEntry(dir)
	switch {
	case errors.Is(err, object.ErrDirectoryNotFound), errors.Is(err, object.ErrEntryNotFound):
		return false, nil
	case err != nil:
		return false, err
	}
	return e.Mode == filemode.Dir || e.Mode == filemode.Symlink || e.Mode == filemode.Submodule, nil
}

// SameInIndex reports whether the index holds exactly what commit ref
// holds at path ('/'-separated from the repository's top): the same files
// with the same blob ids below a folder, or the same link or submodule in
// its place, or nothing at either. A gate asks it of a nested project it
// does not check: a change that alters one is a change nobody reviewed.
// Entries git leaves out of trees (intent to add, conflicts) count as
// differences.
func (r *Repo) SameInIndex(ref, path string) (bool, error) {
	idx, err := r.index()
	if err != nil {
		return false, err
	}
	root, err := r.commitTree(ref)
	if err != nil {
		return false, err
	}
	below := idx.below(path)
	var at *indexEntry // the index's entry at path itself (a link, a submodule)
	i := sort.Search(len(idx.Entries), func(i int) bool { return idx.Entries[i].Name >= path })
	if i < len(idx.Entries) && idx.Entries[i].Name == path {
		at = &idx.Entries[i]
	}
	e, err := root.FindEntry(path)
	switch {
	case errors.Is(err, object.ErrDirectoryNotFound), errors.Is(err, object.ErrEntryNotFound):
		return at == nil && len(below) == 0, nil
	case err != nil:
		return false, err
	}
	if e.Mode != filemode.Dir {
		return at != nil && at.Stage == 0 && len(below) == 0 && at.Hash() == e.Hash && filemode.FileMode(at.Mode) == e.Mode, nil
	}
	if at != nil {
		return false, nil
	}
	if h, ok := idx.Trees[path]; ok && h == e.Hash {
		return true, nil // git's cache tree: the index makes this very tree
	}
	tree, err := r.repo.TreeObject(e.Hash)
	if err != nil {
		return false, err
	}
	files := map[string]File{}
	w := treeWalk{r: r, top: path, out: files}
	if err := w.walk(tree, ""); err != nil {
		return false, err
	}
	n := 0
	for _, x := range below {
		if x.Mode == modeGitlink {
			continue // Tree leaves submodules out too
		}
		f, ok := files[x.Name[len(path)+1:]]
		if !ok || x.Stage != 0 || x.IntentToAdd || f.Blob != x.Hash() || f.Symlink != (x.Mode == modeSymlink) {
			return false, nil
		}
		n++
	}
	return n == len(files), nil
}
