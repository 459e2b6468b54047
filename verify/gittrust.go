package verify

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"testing/fstest"

	"github.com/ryekit/rye/config"
	"github.com/ryekit/rye/gitrepo"
	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/space"
)

// OpenRepo opens the git repository that holds a space's root and returns
// it with the '/'-separated path of the space's .ai/ folder in it, the
// form trustAtRef, trustInIndex, stagedSources and ChangedSince take.
func OpenRepo(root string) (*gitrepo.Repo, string, error) {
	repo, prefix, err := gitrepo.OpenAt(root)
	if err != nil {
		return nil, "", err
	}
	return repo, path.Join(prefix, space.AIDir), nil
}

// trustAtRef returns the project's trust tier as recorded in commit ref:
// the trusted_keys folder below prefix (the project root's path in the
// repository) and RYE OS's config/keys/trusted folder. A change under
// review cannot add its own key to it.
func trustAtRef(r *gitrepo.Repo, ref, prefix string) ([]TrustSource, error) {
	return gitTrust(ref+":", "project@"+ref, prefix, func(dir string) (map[string]gitrepo.File, error) {
		return r.Tree(ref, dir, space.MaxItemSize)
	})
}

// trustInIndex returns the project's trust tier as staged in the index:
// what the commit being made will trust.
func trustInIndex(r *gitrepo.Repo, prefix string) ([]TrustSource, error) {
	return gitTrust("index:", "project (staged)", prefix, func(dir string) (map[string]gitrepo.File, error) {
		return r.Index(dir, space.MaxItemSize)
	})
}

// gitTrust reads both trust folders of the project with read.
func gitTrust(where, label, prefix string, read func(dir string) (map[string]gitrepo.File, error)) ([]TrustSource, error) {
	dir := path.Join(prefix, space.AIDir, TrustedKeysDir)
	files, err := read(dir)
	if err != nil {
		return nil, err
	}
	out := []TrustSource{gitTrustSource(label, where+dir, files, false)}
	eraDir := path.Join(prefix, space.AIDir, ErasKeysDir)
	eraFiles, err := read(eraDir)
	if err != nil {
		return nil, err
	}
	if len(eraFiles) > 0 {
		out = append(out, gitTrustSource(label, where+eraDir, eraFiles, true))
	}
	return out, nil
}

// gitTrustSource is a trust folder read from git. rye's own store is flat:
// it keeps the files directly in the folder. A RYE OS trust folder (era)
// keeps every file, in subfolders too. Links, oversized files and (flat)
// files in subfolders are reported, not trusted.
func gitTrustSource(label, shown string, files map[string]gitrepo.File, era bool) TrustSource {
	src := TrustSource{Label: label, Shown: shown, Era: era}
	m := fstest.MapFS{}
	for name, f := range files {
		switch {
		case !era && strings.Contains(name, "/"):
			src.Problems = append(src.Problems, trustProblem{shown + "/" + name, "in a subfolder: ignored (the trust store is flat)"})
		case f.Symlink:
			src.Problems = append(src.Problems, trustProblem{shown + "/" + name, "symbolic link: ignored"})
		case f.TooLarge:
			src.Problems = append(src.Problems, trustProblem{shown + "/" + name, fmt.Sprintf("%v: ignored", space.ErrTooLarge)})
		default:
			m[name] = &fstest.MapFile{Data: f.Data, Mode: 0o444}
		}
	}
	src.Files = m
	return src
}

// Tracker answers whether git tracks a path (or anything below it) in the
// repository that holds dir: the executor refuses a project interpreter
// that a change could have committed. Outside a repository nothing is
// tracked; a repository rye cannot open is an error, never "not tracked".
// A path that is a symbolic link is asked about as itself (a tracked link
// to a folder elsewhere is tracked). The repository is opened on the first
// question only.
func Tracker(dir string) func(path string) (bool, error) {
	open := sync.OnceValues(func() (*gitrepo.Repo, error) {
		repo, err := gitrepo.Open(dir)
		if errors.Is(err, gitrepo.ErrNoRepository) {
			return nil, nil
		}
		return repo, err
	})
	return func(p string) (bool, error) {
		repo, err := open()
		if repo == nil || err != nil {
			return false, err
		}
		parent, err := repo.Prefix(filepath.Dir(p))
		if err != nil {
			return false, nil // outside the work tree: git cannot track it
		}
		rel := path.Join(parent, filepath.Base(p))
		tracked, err := repo.Tracks(rel)
		return tracked[rel], err
	}
}

// runFile is a file or folder of the project, outside .ai/, that the
// executor would use without verifying it (it is not an item) and that git
// tracks: a change under review could have added or changed it. rye
// execute refuses each of them when git tracks it.
type runFile struct {
	Path string // relative to the project root
	Why  string
}

// runFiles are the project paths the executor may use unverified.
var runFiles = []runFile{
	{Path: ".venv", Why: "a Python environment that venv_python runtimes would run"},
	{Path: "node_modules", Why: "packages and programs that node runtimes would run"},
	{Path: ".env", Why: "values that dotenv runtimes would load into the tools' environment"},
}

// trackedRunFiles lists the runFiles that git tracks in the project whose
// .ai/ folder is at g.AIPrefix.
func trackedRunFiles(g *Git) ([]runFile, error) {
	prefix := path.Dir(g.AIPrefix)
	rels := make([]string, len(runFiles))
	for i, f := range runFiles {
		rels[i] = path.Join(prefix, f.Path)
	}
	tracked, err := g.Repo.Tracks(rels...)
	if err != nil {
		return nil, err
	}
	var out []runFile
	for i, f := range runFiles {
		if tracked[rels[i]] {
			out = append(out, f)
		}
	}
	return out, nil
}

// nested is a project git tracks below another one.
type nested struct {
	// Path is its root as shown (relative to the working directory).
	Path string
	// Added is a project the trusted ref does not have: the change under
	// review adds it.
	Added bool
	// Changed is a project the trusted ref has, whose .ai the change under
	// review alters (the index holds other files there than the ref).
	Changed bool
}

// nestedProjects lists the projects git tracks below sp (the project in
// g) that are not among inRun, each marked Added when ref (a trust ref,
// or "") does not have its .ai folder, Changed when the index holds other
// files there than ref.
func nestedProjects(g *Git, sp *space.Space, ref string, inRun []string) ([]nested, error) {
	prefix := path.Dir(g.AIPrefix)
	if prefix == "." {
		prefix = ""
	}
	dirs, err := g.Repo.Nested(prefix)
	if err != nil {
		return nil, err
	}
	var out []nested
	for _, dir := range dirs {
		rel := strings.TrimPrefix(strings.TrimPrefix(dir, prefix), "/")
		root := filepath.Join(sp.Root, filepath.FromSlash(rel))
		if checkedInRun(root, inRun) {
			continue
		}
		n := nested{Path: sp.ShownRootPath(rel)}
		if ref != "" {
			ai := path.Join(dir, space.AIDir)
			has, err := g.Repo.HasFolder(ref, ai)
			if err != nil {
				return nil, err
			}
			n.Added = !has
			if has {
				same, err := g.Repo.SameInIndex(ref, ai)
				if err != nil {
					return nil, err
				}
				n.Changed = !same
			}
		}
		out = append(out, n)
	}
	return out, nil
}

// checkedInRun reports whether root is one of the run's project roots
// (compared as folders: a root may be reached through a link).
func checkedInRun(root string, inRun []string) bool {
	info, err := os.Stat(root)
	for _, r := range inRun {
		if r == root {
			return true
		}
		if err == nil {
			if ri, rerr := os.Stat(r); rerr == nil && os.SameFile(info, ri) {
				return true
			}
		}
	}
	return false
}

// caseVariant is a path git tracks below a project that differs only in
// letter case from the project's .ai folder (its own, or a nested
// project's), or from a path rye reads in it (trusted_keys, config, the
// item folders): a file system that ignores case (macOS, and Windows by
// default) reads it as that path, and git checks it out there, so rye on
// such a machine trusts the keys and runs the items it holds, which a run
// on a file system that does not ignore case never looks at.
type caseVariant struct {
	Path string // the variant, as shown
	Of   string // the path it stands for, as shown
}

// aiPaths are the paths below .ai/ that rye reads by name, in lower case:
// the item folders (RyeOS 0.2+'s kinds and bundle manifest included: rye
// verifies them in a RyeOS tree, and a folder of theirs decides that a
// tree is one), the trust store's folders, the configuration, and what
// rye writes there (lockfiles, bundles).
var aiPaths = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	add := func(p string) {
		for ; p != "." && p != ""; p = path.Dir(p) {
			m[strings.ToLower(p)] = p
		}
	}
	for _, k := range item.Kinds {
		add(k.Folder())
	}
	for _, k := range item.RyeOSKinds {
		if f := item.RyeOSFolder(k); f != "" {
			add(f)
		}
	}
	add(item.ManifestRel)
	add(TrustedKeysDir)
	add(ErasKeysDir)
	add(strings.TrimPrefix(config.Path, space.AIDir+"/"))
	add("lockfiles") // lockfile.Rel
	add("bundles")   // release.Install
	return m
})

// caseVariants lists the case variants (caseVariant) that the index
// tracks below the project sp (the project in g), each once.
func caseVariants(g *Git, sp *space.Space) ([]caseVariant, error) {
	prefix := path.Dir(g.AIPrefix)
	if prefix == "." {
		prefix = ""
	}
	known := aiPaths()
	seen := map[string]bool{}
	var out []caseVariant
	add := func(p, of string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, caseVariant{Path: sp.ShownRootPath(p), Of: sp.ShownRootPath(of)})
		}
	}
	err := g.Repo.EachPath(prefix, func(rel string) {
		start := 0
		for i := 0; i <= len(rel); i++ {
			if i < len(rel) && rel[i] != '/' {
				continue
			}
			if c := rel[start:i]; len(c) == len(space.AIDir) && c != space.AIDir && strings.EqualFold(c, space.AIDir) {
				add(rel[:i], rel[:start]+space.AIDir)
				return
			}
			start = i + 1
		}
		inner, ok := strings.CutPrefix(rel, space.AIDir+"/")
		if !ok {
			return
		}
		for i, depth := 0, 0; i <= len(inner) && depth < 3; i++ { // no name rye reads is deeper
			if i < len(inner) && inner[i] != '/' {
				continue
			}
			depth++
			p := inner[:i]
			if want, ok := known[strings.ToLower(p)]; ok && p != want {
				add(space.AIDir+"/"+p, space.AIDir+"/"+want)
				return
			}
		}
	})
	return out, err
}

// LayoutChange is a change that switches how the project is read: its
// tree shows one layout (rye's, or RyeOS 0.2+'s) and the trust ref shows
// the other. The layout decides which files the gate verifies (rye's
// walks shell tools and tools/**/lib/, RyeOS's walks config/, node/ and
// the other kinds), so a change that deletes what shows RyeOS (its node
// items, the manifest) would otherwise take config/ out of the gate, and
// one that adds it would take rye's shell tools out.
type LayoutChange struct {
	Ref      string
	Was, Now space.Layout
}

// layoutChange compares the layout of the project's tree with the one
// its .ai folder has at ref (nil when they agree, or when the ref has no
// .ai folder: a project the change adds).
func layoutChange(g *Git, ref string, sp *space.Space) (*LayoutChange, error) {
	if ok, err := g.Repo.HasFolder(ref, g.AIPrefix); err != nil || !ok {
		return nil, err
	}
	fsys, err := g.Repo.TreeFS(ref, g.AIPrefix, space.MaxItemSize)
	if err != nil {
		return nil, err
	}
	was, now := space.DetectLayout(fsys), sp.Layout()
	if was.RyeOS == now.RyeOS {
		return nil, nil
	}
	return &LayoutChange{Ref: ref, Was: was, Now: now}, nil
}
