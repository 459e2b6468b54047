package release

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/space"
	"github.com/ryekit/rye/verify"
)

// installedPath is the record of an installed bundle, in the space it was
// installed into.
func installedPath(id item.ID) string { return ".ai/bundles/" + string(id) + "/installed.yaml" }

// trustedKeyPath is where --trust installs key fp in a space.
func trustedKeyPath(fp string) string {
	return ".ai/" + verify.TrustedKeysDir + "/" + fp + ".toml"
}

// installed records what an installation wrote, so that rye bundle list
// can show it and the next install of the same bundle can replace it
// cleanly (removing files the new version no longer ships).
type installed struct {
	Bundle struct {
		ID            string `yaml:"id" json:"id"`
		Version       string `yaml:"version" json:"version"`
		InstalledAt   string `yaml:"installed_at" json:"installed_at"`
		ArchiveSHA256 string `yaml:"archive_sha256" json:"archive_sha256"`
	} `yaml:"bundle" json:"bundle"`
	// Files are the paths written (relative to the space's root, ".ai/…")
	// with the SHA-256 of what was written, so that a later install can
	// tell a file the user changed since from one it may replace.
	Files map[string]string `yaml:"files" json:"files"`
	// TrustedKeys are keys installed into .ai/trusted_keys by --trust.
	TrustedKeys []string `yaml:"trusted_keys,omitempty" json:"trusted_keys,omitempty"`
	// Space is where it was found (rye bundle list); not stored.
	Space string `yaml:"-" json:"space,omitempty"`
}

// ListAll lists the bundles installed in each space given (nil ones are
// skipped), in order: rye bundle list, over the project and user spaces.
func ListAll(spaces ...*space.Space) ([]*installed, error) {
	var all []*installed
	for _, sp := range spaces {
		if sp == nil {
			continue
		}
		list, err := list(sp.Root, sp.Label)
		if err != nil {
			return nil, err
		}
		all = append(all, list...)
	}
	return all, nil
}

// Rows are installations as rye bundle list --json prints them.
func Rows(all []*installed) []map[string]any {
	rows := []map[string]any{}
	for _, in := range all {
		rows = append(rows, map[string]any{"id": in.Bundle.ID, "version": in.Bundle.Version, "space": in.Space, "installed_at": in.Bundle.InstalledAt, "files": len(in.Files), "archive_sha256": in.Bundle.ArchiveSHA256})
	}
	return rows
}

func (in *installed) marshal() []byte {
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
	// Trust are the shipped key files to add to .ai/trusted_keys, by
	// fingerprint (from --trust FP, repeatable, after shippedKey checked
	// each: CheckTrusting's shipped keys).
	Trust map[string][]byte
	// Archive is the bundle file as it was read and checked: the record
	// keeps its SHA-256 (archive_sha256), which names the download.
	Archive []byte
	Now     time.Time

	faults faults // tests only
}

// faults make an install fail on purpose (tests): to prove that the
// rollback restores everything, and that a rollback that fails too keeps
// the originals.
type faults struct {
	after   int  // when > 0, the commit fails after that many file operations
	restore bool // putting back a replaced file fails during the undo
}

// ConflictError lists what an install would clash with.
type ConflictError struct {
	Conflicts []string
}

func (e *ConflictError) Error() string {
	return "the install clashes with what is there:\n  " + strings.Join(e.Conflicts, "\n  ")
}

// Install writes a verified bundle into a space. Nothing is written unless
// the check passed. The files are first written to a staging folder
// inside .ai/ (same file system), then moved into place one by one; if any
// step fails, every move is undone, so the space is left exactly as it
// was. Files are never written through a symbolic link.
//
// Unless Force, these are conflicts: replacing a file that another bundle
// installed, that no bundle installed (the user's), or that the user
// changed since this bundle installed it; an item outside the bundle's
// namespace (a bundle "acme" that ships rye/core/runtimes/... would shadow
// the system's); an item that exists under another file form (acme/x.py
// next to an existing acme/x.sh: one would shadow the other). A file that
// is already there byte for byte is left alone, and only claimed when this
// bundle installed it before. Files the previous version shipped and this
// one does not are removed, unless the user changed them or another
// bundle also claims them.
func Install(r *Result, o InstallOptions) (*installed, error) {
	if r.Failed() {
		return nil, fmt.Errorf("the bundle does not verify: %s: %s", r.Verdict, r.Reason)
	}
	ai := filepath.Join(o.Root, space.AIDir)
	if info, err := os.Lstat(ai); err != nil || !info.IsDir() {
		return nil, fmt.Errorf("%s is not a .ai folder (run rye init there first)", ai)
	}
	owners, err := readOwners(o.Root)
	if err != nil {
		return nil, err
	}
	id := string(r.ID)
	previous := owners.records[id]

	rec := &installed{Files: map[string]string{}}
	rec.Bundle.ID, rec.Bundle.Version = id, r.Manifest.Bundle.Version
	rec.Bundle.InstalledAt = o.Now.UTC().Truncate(time.Second).Format(time.RFC3339)
	if o.Archive != nil {
		rec.Bundle.ArchiveSHA256 = sha256Hex(o.Archive)
	}

	var ops []op
	var conflicts []string
	conflict := func(p, why string) {
		if !o.Force {
			conflicts = append(conflicts, p+" ("+why+")")
		}
	}
	want := map[string]bool{}
	wantFolded := map[string]bool{}
	add := func(p string, data []byte, exec bool) error {
		want[p], wantFolded[strings.ToLower(p)] = true, true
		target := filepath.Join(o.Root, filepath.FromSlash(p))
		if err := space.CheckNoSymlinks(o.Root, p); err != nil {
			return err
		}
		old, err := space.ReadRegularFile(target)
		tooLarge := errors.Is(err, space.ErrTooLarge) // then it differs from every bundle file
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil && !tooLarge:
			return err
		case !tooLarge && bytes.Equal(old, data):
			if owners.claims(p, id) {
				rec.Files[p] = sha256Hex(data)
			}
			return nil // already there, byte for byte
		case owners.claims(p, id) && (tooLarge || previous.Files[p] != sha256Hex(old)):
			conflict(p, "changed since bundle "+id+" installed it")
		case owners.claims(p, id):
		case len(owners.byPath[p]) > 0:
			conflict(p, "installed by bundle "+strings.Join(owners.byPath[p], ", "))
		default:
			conflict(p, "a file no bundle installed")
		}
		ops = append(ops, op{path: p, target: target, data: data, exec: exec})
		rec.Files[p] = sha256Hex(data)
		return nil
	}
	for _, f := range r.Archive.Files {
		if err := add(f.Path, f.Data, f.Exec); err != nil {
			return nil, err
		}
	}
	// Items: inside the namespace, and not another form of an existing item.
	for _, f := range r.Archive.Files {
		k, itemID, ext, err := space.KindAndID(strings.TrimPrefix(f.Path, ".ai/"))
		if err != nil {
			continue
		}
		if string(itemID) != id && !strings.HasPrefix(string(itemID), id+"/") {
			conflict(f.Path, "outside the bundle's namespace "+id+"/")
		}
		for _, other := range k.Extensions() {
			sibling := ".ai/" + space.Rel(k, itemID, other)
			if other == ext || want[sibling] {
				continue
			}
			if _, err := os.Lstat(filepath.Join(o.Root, filepath.FromSlash(sibling))); err != nil {
				continue
			}
			if owners.claims(sibling, id) && len(owners.byPath[sibling]) == 1 {
				continue // the previous version's form of it: removed below
			}
			conflict(f.Path, "the item already exists as "+sibling+"; one would shadow the other")
		}
	}
	for _, fp := range slices.Sorted(maps.Keys(o.Trust)) {
		p := trustedKeyPath(fp)
		target := filepath.Join(o.Root, filepath.FromSlash(p))
		if _, err := os.Lstat(target); errors.Is(err, fs.ErrNotExist) {
			if err := add(p, o.Trust[fp], false); err != nil {
				return nil, err
			}
			delete(rec.Files, p) // recorded as a key, not as a shipped file
			rec.TrustedKeys = append(rec.TrustedKeys, fp)
		} // an existing trust entry for the same key is the user's and wins
	}
	if previous != nil {
		// Files the previous version shipped and this one does not go,
		// unless the user changed them since or another bundle claims them
		// too. A path that differs from a new one only in case is kept: on
		// a case-insensitive file system it is the new file.
		for _, p := range slices.Sorted(maps.Keys(previous.Files)) {
			if want[p] || wantFolded[strings.ToLower(p)] || len(owners.byPath[p]) > 1 {
				continue
			}
			if err := space.CheckNoSymlinks(o.Root, p); err != nil {
				return nil, err
			}
			target := filepath.Join(o.Root, filepath.FromSlash(p))
			old, err := space.ReadRegularFile(target)
			tooLarge := errors.Is(err, space.ErrTooLarge)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil && !tooLarge {
				return nil, err
			}
			if tooLarge || sha256Hex(old) != previous.Files[p] {
				conflict(p, "no longer shipped, but changed since bundle "+id+" installed it")
				continue
			}
			ops = append(ops, op{path: p, target: target, remove: true})
		}
		rec.TrustedKeys = append(rec.TrustedKeys, previous.TrustedKeys...)
	}
	if len(conflicts) > 0 {
		return nil, &ConflictError{Conflicts: conflicts}
	}
	ip := installedPath(r.ID)
	if err := space.CheckNoSymlinks(o.Root, ip); err != nil {
		return nil, err
	}
	ops = append(ops, op{path: ip, target: filepath.Join(o.Root, filepath.FromSlash(ip)), data: rec.marshal()})
	if err := commit(o.Root, ops, o.faults); err != nil {
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
func commit(root string, ops []op, f faults) (err error) {
	keep := false // set when a failed undo leaves originals in staging
	staging, err := os.MkdirTemp(filepath.Join(root, space.AIDir), ".rye-install-")
	if err != nil {
		return err
	}
	defer func() {
		if !keep {
			os.RemoveAll(staging)
		}
	}()
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
			var failed []string
			for i := done - 1; i >= 0; i-- {
				if uerr := undo(&ops[i], f); uerr != nil {
					failed = append(failed, uerr.Error())
				}
			}
			if len(failed) > 0 {
				// The originals that could not be put back are still in
				// the staging folder: keep it, and say so.
				keep = true
				err = fmt.Errorf("%v; undoing it failed too (%s): the original files are kept in %s", err, strings.Join(failed, "; "), staging)
			}
		}
	}()
	for i := range ops {
		if f.after > 0 && done == f.after {
			return fmt.Errorf("simulated failure after %d operations", done)
		}
		if err := apply(root, &ops[i], staging, i); err != nil {
			done = i + 1 // undo the partial step too
			return fmt.Errorf("installing %s: %w", ops[i].path, err)
		}
		done = i + 1
	}
	if f.after > 0 && done == f.after {
		return fmt.Errorf("simulated failure after %d operations", done)
	}
	return nil
}

// apply does one operation, recording what it did so that undo can
// reverse it. The folders above the target are checked again as they are
// made: a symbolic link planted since the install was planned is refused.
func apply(root string, o *op, staging string, i int) error {
	dirs, err := space.MkdirNoSymlinks(root, path.Dir(o.path))
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
// folders made for it are removed (only when empty).
func undo(o *op, f faults) error {
	var err error
	if o.placed {
		if e := os.Remove(o.target); e != nil && !errors.Is(e, fs.ErrNotExist) {
			err = e
		}
	}
	if o.backup != "" {
		e := errors.New("simulated failure")
		if !f.restore {
			e = os.Rename(o.backup, o.target)
		}
		if e != nil {
			err = fmt.Errorf("restoring %s: %v", o.path, e)
		}
	}
	for i := len(o.madeDirs) - 1; i >= 0; i-- {
		os.Remove(o.madeDirs[i])
	}
	return err
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

// owners are the installed bundles of a space, and which claim each file.
type owners struct {
	records map[string]*installed
	byPath  map[string][]string
}

// claims reports whether bundle id's record lists path p.
func (o *owners) claims(p, id string) bool { return slices.Contains(o.byPath[p], id) }

// readOwners reads every .ai/bundles/**/installed.yaml of a space.
func readOwners(root string) (*owners, error) {
	list, err := list(root, "")
	if err != nil {
		return nil, err
	}
	o := &owners{records: map[string]*installed{}, byPath: map[string][]string{}}
	for _, in := range list {
		o.records[in.Bundle.ID] = in
		for p := range in.Files {
			o.byPath[p] = append(o.byPath[p], in.Bundle.ID)
		}
		for _, fp := range in.TrustedKeys {
			p := trustedKeyPath(fp)
			o.byPath[p] = append(o.byPath[p], in.Bundle.ID)
		}
	}
	return o, nil
}

// list reads the installed bundles of the space rooted at root (label
// names the space in the result), sorted by id. A record that does not
// parse is an error naming it: a broken record must not make files look
// unowned.
func list(root, label string) ([]*installed, error) {
	base := filepath.Join(root, space.AIDir, "bundles")
	var out []*installed
	err := filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && p == base {
			return fs.SkipAll
		}
		if err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s %v", p, space.ErrSymlink)
		}
		if d.IsDir() || d.Name() != "installed.yaml" {
			return nil
		}
		data, err := space.ReadRegularFile(p)
		if err != nil {
			return err
		}
		var in installed
		dec := yaml.NewDecoder(bytes.NewReader(data))
		dec.KnownFields(true)
		if err := dec.Decode(&in); err != nil {
			return fmt.Errorf("%s: %v", p, err)
		}
		if err := in.check(); err != nil {
			return fmt.Errorf("%s: %v", p, err)
		}
		rel, _ := filepath.Rel(filepath.Join(root, space.AIDir, "bundles"), filepath.Dir(p))
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

// check refuses a record whose paths could lead out of .ai/: the record is
// a plain file of the space, and an upgrade removes the paths it lists.
// bundleFile reports a path a bundle may have installed: an item file, or a
// file of the bundle's own folder .ai/bundles/<id>/.
func bundleFile(p, id string) bool {
	if id != "" && strings.HasPrefix(p, ".ai/bundles/"+id+"/") {
		return true
	}
	k, _, ext, err := space.KindAndID(strings.TrimPrefix(p, ".ai/"))
	return strings.HasPrefix(p, ".ai/") && err == nil && k.HasExtension(ext)
}

func (in *installed) check() error {
	for p, sum := range in.Files {
		if reason := checkEntryName(p); reason != "" {
			return fmt.Errorf("file %q: %s", p, reason)
		}
		// A bundle writes items and its own records, never configuration,
		// trusted keys or lockfiles: a forged record listing one must not
		// make an upgrade delete it.
		if !bundleFile(p, in.Bundle.ID) {
			return fmt.Errorf("file %q is not an item or a file of bundle %s: a bundle never installs it", p, in.Bundle.ID)
		}
		if !hexSHA256().MatchString(sum) {
			return fmt.Errorf("file %s: %q is not a sha256", p, sum)
		}
	}
	for _, fp := range in.TrustedKeys {
		if !hexFP().MatchString(fp) {
			return fmt.Errorf("trusted key %q is not a fingerprint", fp)
		}
	}
	return nil
}
