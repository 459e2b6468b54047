package verify

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ryekit/rye/config"
	"github.com/ryekit/rye/gitrepo"
	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/space"
)

// Projects is a run of the verify pipeline over one project or several
// (rye check -C a -C b, --all-projects, or file paths that lie in several
// projects, as pre-commit passes them from a repository's root): the same
// request for each project, with that project's spaces, its own settings
// (and so its own trust ref and policy), its trust read at its own place in
// its repository, and the patterns that concern it. The CLI, lint and the
// MCP server split a run with Parts; RunProjects runs the verification.
type Projects struct {
	// Request is the template: Spaces (the user and system spaces, and the
	// project of the working directory), kinds, patterns, what to verify
	// (staged, changed since), trust options and the policy the command
	// line asks for. Each part's configured trust ref and minimum signature
	// version are added to it.
	Request Request
	// Roots are the project roots to run over; none: the project of
	// Request.Spaces. A file path among the patterns always adds the project
	// that holds it.
	Roots []string
	// Settings say how each project's configuration is read (LoadSettings).
	Settings SettingsOptions
}

// Part is one project's share of a run: a request ready for Run, and the
// settings it was built from (their notes, and lint's settings, come from
// there too).
type Part struct {
	Request  Request
	Settings *config.Settings
}

// ProjectResults is one project's finished verification.
type ProjectResults struct {
	Part
	*Results
}

// RunProjects verifies each part of p in turn.
func RunProjects(p Projects) ([]ProjectResults, error) {
	parts, err := p.Parts()
	if err != nil {
		return nil, err
	}
	out := make([]ProjectResults, len(parts))
	for i, part := range parts {
		res, err := Run(part.Request)
		if err != nil {
			return nil, err
		}
		out[i] = ProjectResults{Part: part, Results: res}
	}
	return out, nil
}

// Parts splits p into one request per project, in the order of p.Roots
// (then the projects that file paths added). Patterns go where they
// concern: a file path to the project whose .ai/ folder holds it, an id or
// a glob to every project where it matches (it must match in one of them,
// as a pattern must match in one space). When patterns are given, a
// project that none of them concerns is left out. A run of the user or
// system tier has one part and takes no roots.
func (p Projects) Parts() ([]Part, error) {
	req := p.Request
	tier := req.Tier
	if tier == "" {
		tier = string(space.Project)
	}
	if tier != string(space.Project) && tier != "all" {
		if len(p.Roots) > 0 {
			return nil, requestError(FieldTier, fmt.Errorf("%q: several projects are checked in the project tier only", tier))
		}
		if req.Staged || req.ChangedSince != "" {
			if req.Spaces.Project == nil {
				return nil, ErrNoProject
			}
		}
		part, err := p.part(req.Spaces, req.Patterns)
		if err != nil {
			return nil, err
		}
		return []Part{part}, nil
	}
	routes, err := p.route()
	if err != nil {
		return nil, err
	}
	if tier == "all" && len(routes) > 1 {
		return nil, requestError(FieldTier, errors.New(`"all": the user and system tiers are verified once, with one project; several projects are checked in the project tier only`))
	}
	var parts []Part
	for _, r := range routes {
		ss := req.Spaces
		if ss.Project == nil || ss.Project.Root != r.root {
			if ss, err = req.Spaces.WithProject(r.root); err != nil {
				return nil, requestError(FieldPatterns, err)
			}
		}
		part, err := p.part(ss, r.patterns)
		if err != nil {
			return nil, err
		}
		parts = append(parts, part)
	}
	return parts, nil
}

// part is the request for one project's spaces and patterns.
func (p Projects) part(ss *space.Spaces, patterns []string) (Part, error) {
	s, g, err := loadSettings(ss, p.Settings)
	if err != nil {
		return Part{}, err
	}
	r := p.Request
	r.Spaces, r.Patterns = ss, patterns
	r.Trust.Ref, r.Trust.Repo = s.TrustRef, g
	r.Policy.RequireV2 = r.Policy.RequireV2 || s.MinSignatureVersion() == 2
	return Part{Request: r, Settings: s}, nil
}

// route is a project root and the patterns that concern it.
type route struct {
	root     string
	patterns []string
}

// route assigns the patterns to the projects (see Parts).
func (p Projects) route() ([]route, error) {
	ss, cwd := p.Request.Spaces, p.Request.WorkDir
	userRoot := ""
	if ss.User != nil {
		userRoot = ss.User.Root
	}
	var routes []*route
	index := map[string]*route{}
	add := func(root string) *route {
		if r := index[root]; r != nil {
			return r
		}
		r := &route{root: root}
		index[root] = r
		routes = append(routes, r)
		return r
	}
	for _, root := range p.Roots {
		abs, err := filepath.Abs(root)
		if err != nil {
			return nil, err
		}
		add(abs)
	}
	var paths, others []string
	for _, pat := range p.Request.Patterns {
		if space.IsPathPattern(pat, cwd) {
			paths = append(paths, pat)
		} else {
			others = append(others, pat)
		}
	}
	if len(p.Roots) == 0 && ss.Project != nil && (len(paths) == 0 || len(others) > 0) {
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
				return nil, requestError(FieldPatterns, err)
			}
			rootOf[dir] = root
		}
		if root == "" {
			if ss.Project != nil && len(p.Roots) == 0 {
				// Let the project's selection say why the path is not in it.
				root = ss.Project.Root
			} else {
				return nil, requestError(FieldPatterns, fmt.Errorf("%s is in no project: no folder above it has a %s/ folder", pat, space.AIDir))
			}
		}
		r := add(root)
		r.patterns = append(r.patterns, pat)
	}
	if len(routes) == 0 {
		return nil, ErrNoProject
	}
	if len(others) > 0 {
		if err := p.routeOthers(routes, others); err != nil {
			return nil, err
		}
	}
	var out []route
	for _, r := range routes {
		if len(p.Request.Patterns) > 0 && len(r.patterns) == 0 {
			continue // no pattern concerns this project
		}
		out = append(out, *r)
	}
	return out, nil
}

// routeOthers gives each id and glob to the projects where it matches; one
// that matches in none is the error selecting it in the first project
// gives. With one project there is nothing to decide: the pipeline's own
// selection reports what does not match.
func (p Projects) routeOthers(routes []*route, others []string) error {
	if len(routes) == 1 {
		routes[0].patterns = append(routes[0].patterns, others...)
		return nil
	}
	kinds := p.Request.Kinds
	if kinds == nil {
		kinds = item.Kinds
	}
	for _, pat := range others {
		var first error
		hit := false
		for _, r := range routes {
			sp := space.NewDiskSpace(space.Project, r.root, "")
			if _, err := space.Select(sp, kinds, []string{pat}, p.Request.WorkDir); err != nil {
				if first == nil {
					first = err
				}
				continue
			}
			r.patterns = append(r.patterns, pat)
			hit = true
		}
		if !hit {
			return requestError(FieldPatterns, first)
		}
	}
	return nil
}

// AllProjects returns every project of the repository that holds dir
// (rye check --all-projects): the folders above each ".ai" folder of the
// files git tracks (the index: what CI checked out, what a commit holds),
// shown from dir's side of any symbolic link. Outside a git repository it
// walks the folders under dir (space.FindProjects). The user space's root
// is never a project.
func AllProjects(dir, userRoot string) ([]string, error) {
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
