package verify

import (
	"errors"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"strings"
	"testing/fstest"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/ryekit/rye/space"
)

// Repo is the git repository that holds a project. rye reads history with
// it (the trust store at a ref, the files that changed since a ref, the
// index for --staged); it never writes to it.
type Repo struct {
	repo *git.Repository
	// Root is the work tree's root, absolute.
	Root string
}

// OpenRepo finds the repository that contains dir.
func OpenRepo(dir string) (*Repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	r, err := git.PlainOpenWithOptions(abs, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if err != nil {
		return nil, fmt.Errorf("%s is not in a git repository: %v", dir, err)
	}
	wt, err := r.Worktree()
	if err != nil {
		return nil, fmt.Errorf("the git repository of %s has no work tree: %v", dir, err)
	}
	return &Repo{repo: r, Root: wt.Filesystem.Root()}, nil
}

// Prefix returns the '/'-separated path of dir relative to the repository
// root ("" for the root itself).
func (r *Repo) Prefix(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(r.Root, abs)
	if err != nil || strings.HasPrefix(rel, "..") {
		return "", fmt.Errorf("%s is not inside the git work tree %s", dir, r.Root)
	}
	if rel == "." {
		return "", nil
	}
	return filepath.ToSlash(rel), nil
}

// OpenSpaceRepo opens the git repository that holds a space's root and
// returns it with the '/'-separated path of the space's .ai/ folder in it,
// the form TrustAtRef, TrustInIndex, StagedSources and ChangedSince take.
func OpenSpaceRepo(root string) (*Repo, string, error) {
	repo, err := OpenRepo(root)
	if err != nil {
		return nil, "", err
	}
	prefix, err := repo.Prefix(root)
	if err != nil {
		return nil, "", err
	}
	return repo, path.Join(prefix, space.AIDir), nil
}

// GitFile is a file recorded in git: its blob id, whether it is a
// symbolic link, and its bytes when they were asked for. A blob over
// bundle.MaxItemSize is not loaded: TooLarge says so and Data is nil, and
// the caller reports it (one such file never fails the others).
type GitFile struct {
	Blob     string
	Symlink  bool
	TooLarge bool
	Data     []byte
}

// gitFile describes one tree or index entry, reading its bytes when data
// is set and it is neither a link nor too large.
func (r *Repo) gitFile(h plumbing.Hash, mode filemode.FileMode, data bool) (GitFile, error) {
	f := GitFile{Blob: h.String(), Symlink: mode == filemode.Symlink}
	if !data || f.Symlink {
		return f, nil
	}
	b, err := r.repo.BlobObject(h)
	if err != nil {
		return f, err
	}
	if b.Size > space.MaxItemSize {
		f.TooLarge = true
		return f, nil
	}
	rd, err := b.Reader()
	if err != nil {
		return f, err
	}
	defer rd.Close()
	f.Data, err = io.ReadAll(io.LimitReader(rd, space.MaxItemSize+1))
	if err == nil && len(f.Data) > space.MaxItemSize {
		f.Data, f.TooLarge = nil, true
	}
	return f, err
}

// TreeFiles returns the files of the commit named by ref (a branch, tag,
// commit id, HEAD~1, ...) below prefix, keyed by their path below prefix.
// With data, each file's bytes are read too.
func (r *Repo) TreeFiles(ref, prefix string, data bool) (map[string]GitFile, error) {
	hash, err := r.repo.ResolveRevision(plumbing.Revision(ref))
	if err != nil {
		return nil, fmt.Errorf("git ref %q: %v", ref, err)
	}
	commit, err := r.repo.CommitObject(*hash)
	if err != nil {
		return nil, fmt.Errorf("git ref %q is not a commit: %v", ref, err)
	}
	tree, err := commit.Tree()
	if err != nil {
		return nil, err
	}
	if prefix != "" {
		tree, err = tree.Tree(prefix)
		if errors.Is(err, object.ErrDirectoryNotFound) {
			return map[string]GitFile{}, nil
		}
		if err != nil {
			return nil, err
		}
	}
	out := map[string]GitFile{}
	walker := object.NewTreeWalker(tree, true, nil)
	defer walker.Close()
	for {
		name, entry, err := walker.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if entry.Mode == filemode.Dir || entry.Mode == filemode.Submodule {
			continue
		}
		f, err := r.gitFile(entry.Hash, entry.Mode, data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out[name] = f
	}
	return out, nil
}

// IndexFiles returns the staged files (the index) below prefix, with their
// bytes: what the next commit will contain.
func (r *Repo) IndexFiles(prefix string) (map[string]GitFile, error) {
	idx, err := r.repo.Storer.Index()
	if err != nil {
		return nil, fmt.Errorf("reading the git index: %v", err)
	}
	out := map[string]GitFile{}
	for _, e := range idx.Entries {
		name := e.Name
		if prefix != "" {
			if !strings.HasPrefix(name, prefix+"/") {
				continue
			}
			name = name[len(prefix)+1:]
		}
		f, err := r.gitFile(e.Hash, e.Mode, true)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.Name, err)
		}
		out[name] = f
	}
	return out, nil
}

// BlobID is the git object id of data as a blob: what git would store for
// it, so that a working-tree file can be compared with a commit without a
// status walk.
func BlobID(data []byte) string {
	return plumbing.ComputeHash(plumbing.BlobObject, data).String()
}

// TrustAtRef returns the project's trust tier as recorded in commit ref:
// the trusted_keys folder below prefix (the project root's path in the
// repository). A change under review cannot add its own key to it.
func (r *Repo) TrustAtRef(ref, prefix string) (TrustSource, error) {
	dir := path.Join(prefix, ".ai", TrustedKeysDir)
	files, err := r.TreeFiles(ref, dir, true)
	if err != nil {
		return TrustSource{}, err
	}
	return flatTrustSource("project@"+ref, ref+":"+dir, files), nil
}

// TrustInIndex returns the project's trust tier as staged in the index:
// what the commit being made will trust.
func (r *Repo) TrustInIndex(prefix string) (TrustSource, error) {
	dir := path.Join(prefix, ".ai", TrustedKeysDir)
	files, err := r.IndexFiles(dir)
	if err != nil {
		return TrustSource{}, err
	}
	return flatTrustSource("project (staged)", "index:"+dir, files), nil
}

// flatTrustSource keeps the files directly in the folder; links and
// subfolders are reported, not trusted.
func flatTrustSource(label, shown string, files map[string]GitFile) TrustSource {
	src := TrustSource{Label: label, Shown: shown}
	m := fstest.MapFS{}
	for name, f := range files {
		switch {
		case strings.Contains(name, "/"):
			src.Problems = append(src.Problems, TrustProblem{shown + "/" + name, "in a subfolder: ignored (the trust store is flat)"})
		case f.Symlink:
			src.Problems = append(src.Problems, TrustProblem{shown + "/" + name, "symbolic link: ignored"})
		case f.TooLarge:
			src.Problems = append(src.Problems, TrustProblem{shown + "/" + name, fmt.Sprintf("%v: ignored", space.ErrTooLarge)})
		default:
			m[name] = &fstest.MapFile{Data: f.Data, Mode: 0o444}
		}
	}
	src.Files = m
	return src
}
