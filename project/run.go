package project

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ryekit/rye/gitrepo"
	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/report"
	"github.com/ryekit/rye/space"
	"github.com/ryekit/rye/verify"
)

// Run names the projects of one run of verify, check, lint or sign: the
// project of the working directory, the folders the caller names (rye -C
// a -C b, --all-projects), and the projects that hold the file paths among
// the patterns (pre-commit passes the staged files of every project of a
// repository, from its root).
type Run struct {
	// Dir is where the run acts: the working directory, or -C DIR.
	Dir string
	// Dirs are folders that each name their project, found upwards as
	// for Dir (rye -C a -C b); All is every project of the repository
	// (--all-projects). Neither: the project of Dir (Options.Root when
	// set). A file path among the patterns always adds the project that
	// holds it.
	Dirs  []string
	All   bool
	Kinds []item.Kind // nil: every kind
	// Patterns are ids, globs and file paths (relative to Dir); none:
	// every item.
	Patterns []string
	// Tier is the tier the run acts on: "project" (""), "user", "system"
	// or "all". Only the project tier spans several projects.
	Tier string
	// Options open each project.
	Options Options
}

// Part is one project's share of a run: the project, opened with the
// run's options, and the patterns that concern it.
type Part struct {
	*Project
	Patterns []string
}

// OpenRun opens each project of r, in the order of r.Roots (then the
// projects that file paths added). Patterns go where they concern: a file
// path to the project whose .ai/ folder holds it, an id or a glob to every
// project where it matches (it must match in one of them, as a pattern
// must match in one space). When patterns are given, a project that none
// of them concerns is left out. A run of the user or system tier has one
// part and takes no roots.
func OpenRun(r Run) ([]Part, error) {
	base, err := Open(r.Dir, Options{Root: r.Options.Root, Held: r.Options.Held, Getenv: r.Options.Getenv, SpacesOnly: true})
	if err != nil {
		return nil, err
	}
	roots, err := r.roots(base)
	if err != nil {
		return nil, err
	}
	tier := r.Tier
	if tier == "" {
		tier = string(space.Project)
	}
	if tier != string(space.Project) && tier != "all" {
		if len(roots) > 0 {
			return nil, verify.RequestErrorOf(verify.FieldTier, fmt.Errorf("%q: several projects are checked in the project tier only", tier))
		}
		p, err := open(base.Spaces, base.WorkDir, r.options())
		if err != nil {
			return nil, err
		}
		return []Part{{Project: p, Patterns: r.Patterns}}, nil
	}
	routes, err := r.route(base, roots)
	if err != nil {
		return nil, err
	}
	if tier == "all" && len(routes) > 1 {
		return nil, verify.RequestErrorOf(verify.FieldTier, errors.New(`"all": the user and system tiers are verified once, with one project; several projects are checked in the project tier only`))
	}
	o := r.options()
	parts := make([]Part, 0, len(routes))
	for _, rt := range routes {
		ss := base.Spaces
		if ss.Project == nil || ss.Project.Root != rt.root {
			if ss, err = base.Spaces.WithProject(rt.root); err != nil {
				return nil, verify.RequestErrorOf(verify.FieldPatterns, err)
			}
		}
		p, err := open(ss, base.WorkDir, o)
		if err != nil {
			return nil, err
		}
		parts = append(parts, Part{Project: p, Patterns: rt.patterns})
	}
	return parts, nil
}

// options are the options each project is opened with.
func (r Run) options() Options {
	return r.Options.defaults()
}

// route is a project root and the patterns that concern it.
type route struct {
	root     string
	patterns []string
}

// Fields of a Run, as a verify.RequestError names them.
const (
	FieldDirs = "dirs"
	FieldAll  = "all projects"
)

// roots are the projects Dirs or All name (none for neither).
func (r Run) roots(base *Project) ([]string, error) {
	if r.All {
		roots, err := all(base.WorkDir, base.UserRoot())
		if err != nil {
			return nil, verify.RequestErrorOf(FieldAll, err)
		}
		if len(roots) == 0 {
			return nil, verify.RequestErrorOf(FieldAll, fmt.Errorf("no project in %s: no folder has a %s/ folder that git tracks (git add it, or run 'rye init')", base.WorkDir, space.AIDir))
		}
		return roots, nil
	}
	var roots []string
	for _, dir := range r.Dirs {
		root, err := space.FindProjectRoot(dir, base.UserRoot())
		if err != nil {
			return nil, verify.RequestErrorOf(FieldDirs, fmt.Errorf("%s: %w", dir, err))
		}
		if root == "" {
			return nil, verify.RequestErrorOf(FieldDirs, fmt.Errorf("%s: %v", dir, &NoProjectError{Dir: dir}))
		}
		roots = append(roots, root)
	}
	return roots, nil
}

// route assigns the patterns to the projects (see OpenRun).
func (r Run) route(base *Project, roots []string) ([]route, error) {
	ss, cwd := base.Spaces, base.WorkDir
	userRoot := base.UserRoot()
	var routes []*route
	index := map[string]*route{}
	add := func(root string) *route {
		if rt := index[root]; rt != nil {
			return rt
		}
		rt := &route{root: root}
		index[root] = rt
		routes = append(routes, rt)
		return rt
	}
	for _, root := range roots {
		abs, err := filepath.Abs(root)
		if err != nil {
			return nil, err
		}
		add(abs)
	}
	var paths, others []string
	for _, pat := range r.Patterns {
		switch {
		case space.IsFolderPattern(pat, cwd):
			found, err := projectsOfFolder(pat, cwd, userRoot)
			if err != nil {
				return nil, verify.RequestErrorOf(verify.FieldPatterns, err)
			}
			for _, f := range found {
				rt := add(f.root)
				rt.patterns = append(rt.patterns, f.pattern)
			}
		case space.IsPathPattern(pat, cwd):
			paths = append(paths, pat)
		case strings.HasSuffix(filepath.ToSlash(pat), "/"):
			return nil, verify.RequestErrorOf(verify.FieldPatterns, fmt.Errorf("%s: no such folder", pat))
		default:
			others = append(others, pat)
		}
	}
	if len(roots) == 0 && ss.Project != nil && (len(routes) == 0 && len(paths) == 0 || len(others) > 0) {
		add(ss.Project.Root)
	}
	rootOf := map[string]string{} // a folder's project: pre-commit passes many files of few folders
	for _, pat := range paths {
		dir := filepath.Dir(filepath.Join(cwd, pat))
		if filepath.IsAbs(pat) {
			dir = filepath.Dir(filepath.Clean(pat))
		}
		root, ok := rootOf[dir]
		if !ok {
			var err error
			if root, err = space.ProjectOf(pat, cwd, userRoot); err != nil {
				return nil, verify.RequestErrorOf(verify.FieldPatterns, err)
			}
			rootOf[dir] = root
		}
		if root == "" {
			if ss.Project != nil && len(roots) == 0 {
				// Let the project's selection say why the path is not in it.
				root = ss.Project.Root
			} else {
				return nil, verify.RequestErrorOf(verify.FieldPatterns, fmt.Errorf("%s is in no project: no folder above it has a %s/ folder", pat, space.AIDir))
			}
		}
		rt := add(root)
		rt.patterns = append(rt.patterns, pat)
	}
	if len(routes) == 0 {
		below, _ := all(cwd, userRoot)
		return nil, &NoProjectError{Dir: cwd, Below: below}
	}
	if len(others) > 0 {
		if err := r.routeOthers(routes, others, cwd); err != nil {
			return nil, err
		}
	}
	var out []route
	for _, rt := range routes {
		if len(r.Patterns) > 0 && len(rt.patterns) == 0 {
			continue // no pattern concerns this project
		}
		if slices.Contains(rt.patterns, filepath.Join(rt.root, space.AIDir)) && (r.Kinds == nil || len(r.Kinds) == len(item.Kinds)) {
			// The whole project: as if no pattern were given. With a kind,
			// the folder stays a pattern, which must select an item of it.
			rt.patterns = nil
		}
		out = append(out, *rt)
	}
	return out, nil
}

// folderRoute is a project that a folder pattern selects items of, with
// the folder as that project's pattern: the folder itself when it lies in
// the project's .ai/, else the .ai/ folder (every item).
type folderRoute struct {
	root, pattern string
}

// projectsOfFolder are the projects whose items a folder pattern selects:
// the project that holds the folder, when the folder is its root or lies in
// its .ai/ folder, and every project below the folder (a monorepo's
// folder of projects; a project nested in another's). A folder that holds
// no item names nothing: an error, so that a gate asked about a folder
// never checks nothing.
func projectsOfFolder(pat, cwd, userRoot string) ([]folderRoute, error) {
	dir := pat
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(cwd, pat)
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	var out []folderRoute
	root, err := space.FindProjectRoot(dir, userRoot)
	if err != nil {
		return nil, err
	}
	if root != "" {
		switch ai := filepath.Join(root, space.AIDir); {
		case dir == root:
			return []folderRoute{{root, ai}}, nil // the project, and nothing nested below it counts twice
		case space.Within(ai, dir):
			return []folderRoute{{root, pat}}, nil
		}
	}
	below, err := all(dir, userRoot)
	if err != nil {
		return nil, err
	}
	for _, b := range below {
		if b != root && b != dir && space.Within(dir, b) {
			out = append(out, folderRoute{b, filepath.Join(b, space.AIDir)})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the folder %s holds no item: it is not a project's .ai/ folder or in one, and no project is below it", pat)
	}
	return out, nil
}

// routeOthers gives each id and glob to the projects where it matches; one
// that matches in none is the error selecting it in the first project
// gives. With one project there is nothing to decide: the pipeline's own
// selection reports what does not match.
func (r Run) routeOthers(routes []*route, others []string, cwd string) error {
	if len(routes) == 1 {
		routes[0].patterns = append(routes[0].patterns, others...)
		return nil
	}
	kinds := r.Kinds // nil: every kind of each project's layout
	for _, pat := range others {
		var first error
		hit := false
		for _, rt := range routes {
			sp := space.NewDiskSpace(space.Project, rt.root, "")
			if _, err := space.Select(sp, kinds, []string{pat}, cwd); err != nil {
				if first == nil {
					first = err
				}
				continue
			}
			rt.patterns = append(rt.patterns, pat)
			hit = true
		}
		if !hit {
			return verify.RequestErrorOf(verify.FieldPatterns, first)
		}
	}
	return nil
}

// all returns every project of the repository that holds dir (rye check
// --all-projects): the folders above each .ai folder of the files git
// tracks (the index: what CI checked out, what a commit holds), shown from
// dir's side of any symbolic link. Outside a git repository it walks the
// folders under dir (space.FindProjects). The user space's root is never a
// project.
func all(dir, userRoot string) ([]string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	repo, prefix, err := gitrepo.OpenAt(abs)
	if err != nil {
		return space.FindProjects(abs, userRoot)
	}
	files, err := repo.Index("", 0)
	if err != nil {
		return nil, err
	}
	paths := make([]string, 0, len(files))
	for name := range files {
		paths = append(paths, name)
	}
	return space.ProjectsFromPaths(topAsSeen(abs, prefix, repo.Root), paths, userRoot), nil
}

// topAsSeen is the repository's top level as reached from dir (whose path
// in the repository is prefix): dir without its last components, so that
// paths shown relative to dir stay short when dir was reached through a
// symbolic link; the resolved root otherwise.
func topAsSeen(dir, prefix, root string) string {
	if prefix == "" {
		return dir
	}
	suffix := string(filepath.Separator) + filepath.FromSlash(prefix)
	if strings.HasSuffix(dir, suffix) {
		return strings.TrimSuffix(dir, suffix)
	}
	return root
}

// Merge runs one project's pipeline for each part and merges their reports
// into one of tool. The commands of a project's report run in it ("rye -C
// b/c sign tool x") when it is not the working directory's own (found at
// or above it): a run over several projects, or a file path in another
// project. With several parts, each note names its project.
func Merge(tool string, parts []Part, run func(Part) (*report.Report, error)) (*report.Report, error) {
	reps := make([]*report.Report, len(parts))
	for i, p := range parts {
		rep, err := run(p)
		if err != nil {
			return nil, err
		}
		if sp := p.Spaces.Project; sp != nil && report.Descends(sp.Shown) {
			rep.InDir(report.ShellWord(sp.Shown))
		}
		for j, n := range rep.Notes {
			if len(parts) > 1 && p.Spaces.Project != nil {
				rep.Notes[j] = p.Spaces.Project.Shown + ": " + n
			}
		}
		reps[i] = rep
	}
	return report.Merge(tool, reps...), nil
}

// Paths says how machine formats name the files of a run in dir
// (report.Paths): relative to the repository's top level (git's) when dir
// is in a repository, else to dir, or joined to prefix when set (a
// --path-prefix, "" included).
func Paths(dir, prefix string, set bool) report.Paths {
	work, err := filepath.Abs(dir)
	if err != nil {
		work = dir
	}
	real := work
	if r, err := filepath.EvalSymlinks(work); err == nil {
		real = r
	}
	top := ""
	if repo, err := gitrepo.Open(real); err == nil && !set {
		top = repo.Root
	}
	return report.NewPaths(work, real, top, prefix, set)
}
