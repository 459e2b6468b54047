package release

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/ryekit/rye/bundle"
	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/verify"
)

// InstalledPath is the record of an installed bundle, in the space it was
// installed into.
func InstalledPath(id item.ID) string { return ".ai/bundles/" + string(id) + "/installed.yaml" }

// Installed records what an installation wrote, so that rye bundle list
// can show it and the next install of the same bundle can replace it
// cleanly (removing files the new version no longer ships).
type Installed struct {
	Bundle struct {
		ID            string `yaml:"id"`
		Version       string `yaml:"version"`
		InstalledAt   string `yaml:"installed_at"`
		ArchiveSHA256 string `yaml:"archive_sha256"`
	} `yaml:"bundle"`
	// Files are the paths written (relative to the space's root, ".ai/…")
	// with the SHA-256 of what was written, so that a later install can
	// tell a file the user changed since from one it may replace.
	Files map[string]string `yaml:"files"`
	// TrustedKeys are keys installed into .ai/trusted_keys by --trust.
	TrustedKeys []string `yaml:"trusted_keys,omitempty"`
	// Space is where it was found (rye bundle list); not stored.
	Space string `yaml:"-"`
}

func (in *Installed) marshal() []byte {
	data, err := yaml.Marshal(in)
	if err != nil {
		panic(err) // strings only
	}
	return data
}

// InstallOptions say where and how to install.
type InstallOptions struct {
	Root  string // the space's root (the folder that holds .ai/)
	Force bool   // replace files that another bundle, or no bundle, installed
	// TrustKey is the shipped key file to add to .ai/trusted_keys (from
	// --trust FP, after ShippedKey checked it); nil for none.
	TrustKey   []byte
	TrustFP    string
	ArchiveSum string
	Now        time.Time

	// failAfter, when > 0 (tests), makes the commit fail after that many
	// file operations, to prove that the rollback restores everything.
	failAfter int
}

// ConflictError lists files an install would overwrite that are not its
// own.
type ConflictError struct {
	Conflicts []string
}

func (e *ConflictError) Error() string {
	return "the install would replace files it does not own (use --force to replace them):\n  " + strings.Join(e.Conflicts, "\n  ")
}

// Install writes a verified bundle into a space. Nothing is written unless
// the check passed. The files are first written to a staging folder
// inside .ai/ (same file system), then moved into place one by one; if any
// step fails, every move is undone, so the space is left exactly as it
// was. Files are never written through a symbolic link. A file that the
// same bundle installed before is replaced; one that another bundle or the
// user wrote is a conflict unless Force; identical files are left alone;
// files the previous version shipped and this one does not are removed.
func Install(r *Result, o InstallOptions) (*Installed, error) {
	if r.Failed() {
		return nil, fmt.Errorf("the bundle does not verify: %s: %s", r.Verdict, r.Reason)
	}
	ai := filepath.Join(o.Root, bundle.AIDir)
	if info, err := os.Lstat(ai); err != nil || !info.IsDir() {
		return nil, fmt.Errorf("%s is not a .ai folder (run rye init there first)", ai)
	}
	owners, err := readOwners(o.Root)
	if err != nil {
		return nil, err
	}
	previous := owners.records[string(r.ID)]

	rec := &Installed{}
	rec.Bundle.ID, rec.Bundle.Version = string(r.ID), r.Manifest.Bundle.Version
	rec.Bundle.InstalledAt = o.Now.UTC().Truncate(time.Second).Format(time.RFC3339)
	rec.Bundle.ArchiveSHA256 = o.ArchiveSum

	var ops []op
	var conflicts []string
	want := map[string]bool{}
	add := func(p string, data []byte, exec bool) error {
		want[p] = true
		target := filepath.Join(o.Root, filepath.FromSlash(p))
		if err := noSymlinkBelow(o.Root, p); err != nil {
			return err
		}
		old, err := os.ReadFile(target)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return err
		case bytes.Equal(old, data):
			return nil // already there, byte for byte
		default:
			owner := owners.owner(p)
			switch {
			case o.Force:
			case owner == "":
				conflicts = append(conflicts, p+" (a file no bundle installed)")
			case owner != string(r.ID):
				conflicts = append(conflicts, p+" (installed by bundle "+owner+")")
			case previous.Files[p] != sha256Hex(old):
				conflicts = append(conflicts, p+" (changed since bundle "+owner+" installed it)")
			}
		}
		ops = append(ops, op{path: p, target: target, data: data, exec: exec})
		return nil
	}
	rec.Files = map[string]string{}
	for _, f := range r.Archive.Files {
		if err := add(f.Path, f.Data, f.Exec); err != nil {
			return nil, err
		}
		rec.Files[f.Path] = sha256Hex(f.Data)
	}
	if o.TrustKey != nil {
		p := ".ai/" + verify.TrustedKeysDir + "/" + o.TrustFP + ".toml"
		target := filepath.Join(o.Root, filepath.FromSlash(p))
		if _, err := os.Lstat(target); errors.Is(err, fs.ErrNotExist) {
			if err := add(p, o.TrustKey, false); err != nil {
				return nil, err
			}
			rec.TrustedKeys = append(rec.TrustedKeys, o.TrustFP)
		} // an existing trust entry for the same key is the user's and wins
	}
	if previous != nil {
		// Files the previous version shipped and this one does not go,
		// unless the user changed them since.
		for _, p := range sortedKeys(previous.Files) {
			if want[p] || owners.owner(p) != string(r.ID) {
				continue
			}
			if err := noSymlinkBelow(o.Root, p); err != nil {
				return nil, err
			}
			target := filepath.Join(o.Root, filepath.FromSlash(p))
			old, err := os.ReadFile(target)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, err
			}
			if sha256Hex(old) != previous.Files[p] && !o.Force {
				conflicts = append(conflicts, p+" (no longer shipped, but changed since bundle "+previous.Bundle.ID+" installed it)")
				continue
			}
			ops = append(ops, op{path: p, target: target, remove: true})
		}
		rec.TrustedKeys = append(rec.TrustedKeys, previous.TrustedKeys...)
	}
	if len(conflicts) > 0 {
		return nil, &ConflictError{Conflicts: conflicts}
	}
	ip := InstalledPath(r.ID)
	if err := noSymlinkBelow(o.Root, ip); err != nil {
		return nil, err
	}
	ops = append(ops, op{path: ip, target: filepath.Join(o.Root, filepath.FromSlash(ip)), data: rec.marshal()})
	if err := commit(ai, ops, o.failAfter); err != nil {
		return nil, err
	}
	return rec, nil
}

// op is one change of an install: write data at target, or remove it.
type op struct {
	path, target string
	data         []byte
	exec, remove bool
	staged       string // the new file in the staging folder
	backup       string // where the file that was there went
	placed       bool
	madeDirs     []string
}

// commit stages every new file, then applies the operations in order,
// and undoes all of them if one fails.
func commit(ai string, ops []op, failAfter int) (err error) {
	staging, err := os.MkdirTemp(ai, ".rye-install-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(staging)
	for i := range ops {
		if ops[i].remove {
			continue
		}
		ops[i].staged = filepath.Join(staging, "new-"+strconv.Itoa(i))
		mode := os.FileMode(0o644)
		if ops[i].exec {
			mode = 0o755
		}
		if err := writeSynced(ops[i].staged, ops[i].data, mode); err != nil {
			return fmt.Errorf("staging %s: %v", ops[i].path, err)
		}
	}
	done := 0
	defer func() {
		if err != nil {
			for i := done - 1; i >= 0; i-- {
				undo(&ops[i])
			}
		}
	}()
	for i := range ops {
		if failAfter > 0 && done == failAfter {
			return fmt.Errorf("simulated failure after %d operations", done)
		}
		if err := apply(&ops[i], staging, i); err != nil {
			done = i + 1 // undo the partial step too
			return fmt.Errorf("installing %s: %v", ops[i].path, err)
		}
		done = i + 1
	}
	if failAfter > 0 && done == failAfter {
		return fmt.Errorf("simulated failure after %d operations", done)
	}
	return nil
}

// apply does one operation, recording what it did so that undo can
// reverse it.
func apply(o *op, staging string, i int) error {
	dirs, err := mkdirs(filepath.Dir(o.target))
	o.madeDirs = dirs
	if err != nil {
		return err
	}
	if _, err := os.Lstat(o.target); err == nil {
		o.backup = filepath.Join(staging, "old-"+strconv.Itoa(i))
		if err := os.Rename(o.target, o.backup); err != nil {
			o.backup = ""
			return err
		}
	}
	if o.remove {
		return nil
	}
	if err := os.Rename(o.staged, o.target); err != nil {
		return err
	}
	o.placed = true
	return nil
}

// undo reverses apply: the new file goes, the old one comes back, and the
// folders made for it are removed.
func undo(o *op) {
	if o.placed {
		os.Remove(o.target)
	}
	if o.backup != "" {
		os.Rename(o.backup, o.target)
	}
	for i := len(o.madeDirs) - 1; i >= 0; i-- {
		os.Remove(o.madeDirs[i]) // only when empty
	}
}

// mkdirs creates dir and the missing folders above it, returning the ones
// it made (outermost first).
func mkdirs(dir string) ([]string, error) {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil {
			break
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	var made []string
	for i := len(missing) - 1; i >= 0; i-- {
		if err := os.Mkdir(missing[i], 0o755); err != nil {
			return made, err
		}
		made = append(made, missing[i])
	}
	return made, nil
}

func writeSynced(p string, data []byte, mode os.FileMode) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// noSymlinkBelow refuses a path (relative to root, slash-separated) when
// any existing component below root is a symbolic link, or an existing
// folder on the way is not a folder.
func noSymlinkBelow(root, rel string) error {
	parts := strings.Split(rel, "/")
	p := root
	for i, part := range parts {
		p = filepath.Join(p, part)
		info, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s %v", p, bundle.ErrSymlink)
		}
		if i < len(parts)-1 && !info.IsDir() {
			return fmt.Errorf("%s is not a folder", p)
		}
		if i == len(parts)-1 && !info.Mode().IsRegular() {
			return fmt.Errorf("%s is not a regular file", p)
		}
	}
	return nil
}

// owners are the installed bundles of a space, and which owns each file.
type owners struct {
	records map[string]*Installed
	byPath  map[string]string
}

func (o *owners) owner(p string) string { return o.byPath[p] }

// readOwners reads every .ai/bundles/**/installed.yaml of a space.
func readOwners(root string) (*owners, error) {
	list, err := List(root, "")
	if err != nil {
		return nil, err
	}
	o := &owners{records: map[string]*Installed{}, byPath: map[string]string{}}
	for _, in := range list {
		o.records[in.Bundle.ID] = in
		for p := range in.Files {
			o.byPath[p] = in.Bundle.ID
		}
		for _, fp := range in.TrustedKeys {
			o.byPath[".ai/"+verify.TrustedKeysDir+"/"+fp+".toml"] = in.Bundle.ID
		}
	}
	return o, nil
}

// List reads the installed bundles of the space rooted at root (label
// names the space in the result), sorted by id. A record that does not
// parse is an error naming it: a broken record must not make files look
// unowned.
func List(root, label string) ([]*Installed, error) {
	base := filepath.Join(root, bundle.AIDir, "bundles")
	var out []*Installed
	err := filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && p == base {
			return fs.SkipAll
		}
		if err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s %v", p, bundle.ErrSymlink)
		}
		if d.IsDir() || d.Name() != "installed.yaml" {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var in Installed
		dec := yaml.NewDecoder(bytes.NewReader(data))
		dec.KnownFields(true)
		if err := dec.Decode(&in); err != nil {
			return fmt.Errorf("%s: %v", p, err)
		}
		rel, _ := filepath.Rel(filepath.Join(root, bundle.AIDir, "bundles"), filepath.Dir(p))
		if in.Bundle.ID != filepath.ToSlash(rel) {
			return fmt.Errorf("%s records bundle %q but sits in the folder of %s", p, in.Bundle.ID, filepath.ToSlash(rel))
		}
		in.Space = label
		out = append(out, &in)
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Bundle.ID < out[j].Bundle.ID })
	return out, err
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
