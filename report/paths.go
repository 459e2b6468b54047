package report

import (
	"path"
	"path/filepath"
	"strings"
)

// Paths rewrite the paths findings are shown with in text (relative to
// the working directory, or absolute outside the project) into those of
// machine formats: relative to the repository's top level, so that GitHub
// places every annotation and SARIF names its base, from whatever folder
// rye ran in.
type Paths struct {
	work    string // the working directory, absolute
	workRel string // work relative to root ('/'-separated; "." for root itself)
	root    string // the folder paths are relative to; "" when unknown
	prefix  string // the caller's prefix, cleaned
	useDir  bool   // a prefix was given
}

// NewPaths says how machine formats name files when rye runs in work (an
// absolute folder, real is it with every link resolved): relative to top,
// the repository's top level ("" outside a repository: the working
// directory is the root). With a prefix (usePrefix, --path-prefix), the
// prefix joined to the path from the working directory (golangci-lint's
// flag), and the root is the working directory without the prefix when it
// ends with it (else unknown: SARIF then names no base).
func NewPaths(work, real, top, prefix string, usePrefix bool) Paths {
	m := Paths{work: work, workRel: ".", root: real}
	if usePrefix {
		m.useDir, m.prefix, m.root = true, path.Clean(filepath.ToSlash(prefix)), ""
		suffix := string(filepath.Separator) + filepath.FromSlash(m.prefix)
		switch {
		case m.prefix == ".":
			m.root = real
		case strings.HasSuffix(real, suffix):
			m.root = strings.TrimSuffix(real, suffix)
		}
		return m
	}
	if top != "" {
		if rel, err := filepath.Rel(top, real); err == nil && !outside(rel) {
			m.root, m.workRel = top, filepath.ToSlash(rel)
		}
	}
	return m
}

// Root is the folder machine paths are relative to ("" when unknown).
func (m Paths) Root() string { return m.root }

// Map is a display path as machine formats name it: relative to the
// root, or absolute for a file outside it.
func (m Paths) Map(p string) string {
	switch {
	case strings.HasPrefix(p, "<"):
		return p // the embedded system bundle: in no repository
	case filepath.IsAbs(p):
		if !m.useDir && m.root != "" {
			abs := p
			if real, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
				abs = filepath.Join(real, filepath.Base(p))
			}
			if rel, err := filepath.Rel(m.root, abs); err == nil && !outside(rel) {
				return filepath.ToSlash(rel)
			}
		}
		return filepath.ToSlash(p)
	case m.useDir:
		return path.Join(m.prefix, filepath.ToSlash(p))
	}
	rel := path.Join(m.workRel, filepath.ToSlash(p))
	if rel == ".." || strings.HasPrefix(rel, "../") {
		return filepath.ToSlash(filepath.Join(m.work, p)) // above the repository
	}
	return rel
}

// outside reports a relative path that leaves its base.
func outside(rel string) bool {
	return rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
