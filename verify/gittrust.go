package verify

import (
	"fmt"
	"path"
	"strings"
	"testing/fstest"

	"github.com/ryekit/rye/gitrepo"
	"github.com/ryekit/rye/space"
)

// OpenRepo opens the git repository that holds a space's root and returns
// it with the '/'-separated path of the space's .ai/ folder in it, the
// form TrustAtRef, TrustInIndex, StagedSources and ChangedSince take.
func OpenRepo(root string) (*gitrepo.Repo, string, error) {
	repo, prefix, err := gitrepo.OpenAt(root)
	if err != nil {
		return nil, "", err
	}
	return repo, path.Join(prefix, space.AIDir), nil
}

// TrustAtRef returns the project's trust tier as recorded in commit ref:
// the trusted_keys folder below prefix (the project root's path in the
// repository). A change under review cannot add its own key to it.
func TrustAtRef(r *gitrepo.Repo, ref, prefix string) (TrustSource, error) {
	dir := path.Join(prefix, space.AIDir, TrustedKeysDir)
	files, err := r.Tree(ref, dir, space.MaxItemSize)
	if err != nil {
		return TrustSource{}, err
	}
	return flatTrustSource("project@"+ref, ref+":"+dir, files), nil
}

// TrustInIndex returns the project's trust tier as staged in the index:
// what the commit being made will trust.
func TrustInIndex(r *gitrepo.Repo, prefix string) (TrustSource, error) {
	dir := path.Join(prefix, space.AIDir, TrustedKeysDir)
	files, err := r.Index(dir, space.MaxItemSize)
	if err != nil {
		return TrustSource{}, err
	}
	return flatTrustSource("project (staged)", "index:"+dir, files), nil
}

// flatTrustSource keeps the files directly in the folder; links and
// subfolders are reported, not trusted.
func flatTrustSource(label, shown string, files map[string]gitrepo.File) TrustSource {
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
