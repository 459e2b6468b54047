package space

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// WithProject returns the spaces with root as the project (the user and
// system spaces are shared), for a run over several projects. Like
// Discover, it refuses a RYE_SYSTEM_PATH root inside the project: a change
// to that project could write it.
func (ss *Spaces) WithProject(root string) (*Spaces, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	out := *ss
	out.Project = NewDiskSpace(Project, abs, "")
	out.Project.Shown = relativeTo(ss.WorkDir, abs)
	for _, sys := range ss.System {
		if !sys.Embedded() && Within(abs, sys.Root) {
			return nil, fmt.Errorf("RYE_SYSTEM_PATH entry %s is inside the project %s: a change to the project could write it; point RYE_SYSTEM_PATH outside the project", sys.Root, abs)
		}
	}
	return &out, nil
}

// ProjectOf returns the root of the project that holds the file path p
// (relative to cwd, or absolute): the nearest folder above it that has a
// .ai/ folder (FindProjectRoot from the file's folder), or "" when there is
// none.
func ProjectOf(p, cwd, userRoot string) (string, error) {
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(cwd, p)
	}
	return FindProjectRoot(filepath.Dir(filepath.Clean(abs)), userRoot)
}

// IsPathPattern reports whether a command-line pattern names a file (see
// Pattern) rather than an id or a glob.
func IsPathPattern(p, cwd string) bool { return isPathPattern(p, cwd) }

// FindProjects walks the folder tree under root and returns every folder
// that has a .ai/ folder, sorted: the projects of a tree that is not in a
// git repository (rye check --all-projects). It does not follow symbolic
// links, does not enter hidden folders, node_modules or a .ai/ folder, and
// leaves out the user space's root (userRoot), which is never a project.
func FindProjects(root, userRoot string) ([]string, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	if userRoot != "" {
		userRoot, _ = filepath.Abs(userRoot)
	}
	var out []string
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p != root && errors.Is(err, fs.ErrPermission) {
				return fs.SkipDir // a folder we may not read holds no project of ours
			}
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if p != root && hiddenName(d.Name()) {
			return fs.SkipDir
		}
		if info, err := os.Lstat(filepath.Join(p, AIDir)); err == nil && info.IsDir() && p != userRoot {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

// ProjectsFromPaths lists the project roots that hold the '/'-separated
// paths relative to top (a repository's files, from its index): the folder
// above each ".ai" component of each path, and above each path that is
// itself a ".ai" leading to a folder (a symbolic link git tracks, which
// rye follows as it would a folder). Every one counts, in hidden folders,
// node_modules or inside another .ai/ folder too: a gate must not let a
// change hide a project from --all-projects by where it puts it. Roots
// that are not folders on disk, and the user space's root, are left out;
// the result is sorted.
func ProjectsFromPaths(top string, paths []string, userRoot string) []string {
	if userRoot != "" {
		userRoot, _ = filepath.Abs(userRoot)
	}
	seen := map[string]bool{}
	var out []string
	for _, p := range paths {
		parts := strings.Split(p, "/")
		for i, part := range parts {
			if part != AIDir {
				continue
			}
			root := filepath.Join(top, filepath.FromSlash(strings.Join(parts[:i], "/")))
			if seen[root] {
				continue
			}
			if i == len(parts)-1 {
				// The path itself is a .ai: a project when it leads to a folder.
				if info, err := os.Stat(filepath.Join(root, AIDir)); err != nil || !info.IsDir() {
					continue
				}
			}
			seen[root] = true
			if info, err := os.Stat(root); err == nil && info.IsDir() && root != userRoot {
				out = append(out, root)
			}
		}
	}
	sort.Strings(out)
	return out
}
