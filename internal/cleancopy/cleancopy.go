// Package cleancopy copies a folder of the repository as a fresh clone
// has it: without the files git ignores. Tests that copy the example
// project must not carry what a command run in it left behind (the
// quickstart writes examples/hello/.ai/lockfiles/, which .gitignore
// excludes): a test must see the same files on a developer's machine as
// on a fresh clone.
package cleancopy

import (
	"bufio"
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// Copy copies the tree src into dst (created as needed), leaving out what
// the .gitignore files of src, of its folders and of the folders above it
// up to the repository's top level exclude, and every .git folder. Modes
// keep their permission bits; symbolic links are copied as links.
func Copy(dst, src string) error {
	src, err := filepath.Abs(src)
	if err != nil {
		return err
	}
	top, below := repoTop(src)
	var patterns []gitignore.Pattern
	for i := 0; i <= len(below); i++ {
		ps, err := readIgnore(filepath.Join(append([]string{top}, below[:i]...)...), below[:i])
		if err != nil {
			return err
		}
		patterns = append(patterns, ps...)
	}
	return copyDir(dst, src, below, patterns)
}

// repoTop is the folder above src that holds .git, and src's path below
// it as parts; without one, src itself.
func repoTop(src string) (string, []string) {
	for dir := src; ; {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			rel, err := filepath.Rel(dir, src)
			if err != nil || rel == "." {
				return dir, nil
			}
			return dir, strings.Split(filepath.ToSlash(rel), "/")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return src, nil
		}
		dir = parent
	}
}

// readIgnore reads the patterns of dir's .gitignore, whose path below the
// top is domain.
func readIgnore(dir string, domain []string) ([]gitignore.Pattern, error) {
	data, err := os.ReadFile(filepath.Join(dir, ".gitignore"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var ps []gitignore.Pattern
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, append([]string(nil), domain...)))
	}
	return ps, sc.Err()
}

// copyDir copies the folder src (at path parts below the top) into dst.
func copyDir(dst, src string, parts []string, patterns []gitignore.Pattern) error {
	info, err := os.Stat(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dst, info.Mode().Perm()|0o700); err != nil {
		return err
	}
	own, err := readIgnore(src, parts)
	if err != nil {
		return err
	}
	patterns = append(patterns[:len(patterns):len(patterns)], own...)
	m := gitignore.NewMatcher(patterns)
	entries, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	for _, e := range entries {
		path := append(parts[:len(parts):len(parts)], e.Name())
		if e.Name() == ".git" || m.Match(path, e.IsDir()) {
			continue
		}
		from, to := filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())
		switch {
		case e.IsDir():
			err = copyDir(to, from, path, patterns)
		case e.Type()&fs.ModeSymlink != 0:
			var target string
			if target, err = os.Readlink(from); err == nil {
				err = os.Symlink(target, to)
			}
		default:
			err = copyFile(to, from)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func copyFile(dst, src string) error {
	info, err := os.Stat(src)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, data, info.Mode().Perm())
}
