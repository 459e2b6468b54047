package executor

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/ryekit/rye/chain"
	"github.com/ryekit/rye/space"
)

// runDir is the private directory of one execution. The verified bytes of
// the tool, its verify_deps files and its runtime_lib files are written
// there, and the process runs them from there: the paths in .ai/ are never
// opened again after verification, so a file swapped on disk between
// verification and start changes nothing.
//
// Layout: ai/<path under .ai/> for the tool and its dependencies (so that
// relative imports between them work as in the space), lib/ for library
// files. The directory is 0700 and the files read-only (the
// tool itself 0500, so that a runtime may execute it directly).
type runDir struct {
	root string
}

// runRoot makes (when needed) and returns the folder under which run
// directories are made: dir, private to the user (0700, not a symbolic
// link). Run directories must not sit in a world-writable folder such as
// /tmp: node, for one, looks for packages in node_modules of every folder
// above the tool, and anyone can create /tmp/node_modules.
func runRoot(dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	info, err := os.Lstat(dir)
	if err != nil {
		return "", err
	}
	if !info.IsDir() {
		return "", fmt.Errorf("%s is not a folder", dir)
	}
	if info.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return "", err
		}
	}
	if err := ownedByMe(info); err != nil {
		return "", fmt.Errorf("%s: %v", dir, err)
	}
	return dir, nil
}

func newRunDir(tmp string) (*runDir, error) {
	root, err := os.MkdirTemp(tmp, "rye-run-")
	if err != nil {
		return nil, err
	}
	// Absolute, so that what the run is given (and what an anchor may put
	// on a load path, inside) does not depend on the working directory.
	abs, err := filepath.Abs(root)
	if err != nil {
		os.RemoveAll(root)
		return nil, err
	}
	return &runDir{root: abs}, nil
}

// remove deletes the directory and everything in it.
func (d *runDir) remove() error { return os.RemoveAll(d.root) }

// itemPath is where a file of .ai/ (rel with '/') lives in the directory.
func (d *runDir) itemPath(rel string) string {
	return filepath.Join(d.root, "ai", filepath.FromSlash(rel))
}

// libDir holds the runtime_lib files.
func (d *runDir) libDir() string { return filepath.Join(d.root, "lib") }

// write creates a new file (never replacing one) with the given bytes and
// permissions, creating its folders 0700.
func (d *runDir) write(p string, data []byte, perm os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// materialised are the context values that point into the run directory.
type materialised struct {
	toolPath, toolDir, toolParent, anchorPath, runtimeLib string
}

// materialise writes the tool, its dependencies and library files: the
// dependencies at their paths under .ai/, so that {anchor_path} (the copy
// of rf.anchorRel, or of the tool's folder) holds exactly the verified
// files of the package; library files below lib/, at their paths below
// the anchor's lib folder, or by file name for runtime_lib items. lib/ is
// made whenever the chain declares a library, even an empty one, so that
// {runtime_lib} always names a folder of this run.
func (d *runDir) materialise(tool *chain.Element, rf *runFiles) (*materialised, error) {
	m := &materialised{toolPath: d.itemPath(tool.Loc.Rel)}
	if err := d.write(m.toolPath, tool.Item.Bytes, 0o500); err != nil {
		return nil, err
	}
	for _, f := range rf.deps {
		if err := d.write(d.itemPath(f.Loc.Rel), f.Item.Bytes, 0o400); err != nil {
			return nil, err
		}
	}
	m.toolDir = filepath.Dir(m.toolPath)
	m.toolParent = filepath.Dir(m.toolDir)
	m.anchorPath = m.toolDir
	if rf.anchorRel != "" {
		m.anchorPath = d.itemPath(rf.anchorRel)
	}
	if rf.hasLib {
		m.runtimeLib = d.libDir()
		if err := os.MkdirAll(m.runtimeLib, 0o700); err != nil {
			return nil, err
		}
		for _, f := range rf.libs {
			name := path.Base(f.Loc.Rel)
			if rf.libDir != "" {
				name = strings.TrimPrefix(f.Loc.Rel, rf.libDir+"/")
			}
			if err := d.write(filepath.Join(m.runtimeLib, filepath.FromSlash(name)), f.Item.Bytes, 0o400); err != nil {
				return nil, err
			}
		}
	}
	return m, nil
}

// inside reports whether p (absolute) is the run directory or below it.
func (d *runDir) inside(p string) bool {
	return filepath.IsAbs(p) && space.Within(d.root, filepath.Clean(p))
}
