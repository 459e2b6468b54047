package gitrepo

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"unicode"

	format "github.com/go-git/go-git/v5/plumbing/format/config"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// mayConvert reports whether git could keep a file's bytes in the work
// tree other than as its blob, which would make the index's stat data say
// nothing about the bytes on disk: line-ending conversion (core.autocrlf,
// in any configuration file git reads) or a gitattributes line that
// converts (text, eol, crlf, ident, filter, working-tree-encoding, or a
// macro), in a tracked .gitattributes file (its blob and its file), one in a
// folder above a candidate, the repository's info/attributes (the work
// tree's git folder and the common one) or the user's or system's. It errs
// on the side of yes (the cost is reading the files): configuration given
// on git's command line or in the environment, an include, a
// core.attributesFile, a file rye cannot read all count as yes. A file of
// only "-text" (what rye init writes) converts nothing.
func (r *Repo) mayConvert(idx *gitIndex, cands Candidates) bool {
	for _, v := range []string{"GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_ATTR_SOURCE"} {
		if os.Getenv(v) != "" {
			return true // git -c: settings that are in no file; attributes from another tree
		}
	}
	st, ok := r.repo.Storer.(*filesystem.Storage)
	if !ok {
		return true
	}
	gitDirs := withCommonDir(st.Filesystem().Root())
	var configs, attrs []string
	for _, d := range gitDirs {
		configs = append(configs, filepath.Join(d, "config"), filepath.Join(d, "config.worktree"))
		attrs = append(attrs, filepath.Join(d, "info", "attributes"))
	}
	home, _ := os.UserHomeDir()
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	// Every file git could read, whichever of them it reads: more files
	// can only say yes more often.
	for _, v := range []string{"GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM"} {
		if f := os.Getenv(v); f != "" {
			configs = append(configs, f)
		}
	}
	if home != "" {
		configs = append(configs, filepath.Join(home, ".gitconfig"), filepath.Join(home, ".config", "git", "config"))
		attrs = append(attrs, filepath.Join(home, ".config", "git", "attributes"))
	}
	if xdg != "" {
		configs = append(configs, filepath.Join(xdg, "git", "config"))
		attrs = append(attrs, filepath.Join(xdg, "git", "attributes"))
	}
	for _, prefix := range append([]string{"/etc", "/usr/local/etc", "/opt/homebrew/etc"}, gitEtc()...) {
		configs = append(configs, filepath.Join(prefix, "gitconfig"))
		attrs = append(attrs, filepath.Join(prefix, "gitattributes"))
	}
	for _, f := range distinct(configs) {
		data, err := readIfThere(f)
		if err != nil || data != nil && configMayConvert(data) {
			return true
		}
	}
	// Attributes files in the work tree: the tracked ones (git reads the
	// file, or the index's copy when the file is missing) and those in a
	// folder above a candidate.
	for i := range idx.Entries {
		e := &idx.Entries[i]
		if path.Base(e.Name) != ".gitattributes" {
			continue
		}
		data, err := r.Blob(File{Blob: e.Hash()}, maxAttributesSize)
		if err != nil || attributesMayConvert(data) {
			return true
		}
		attrs = append(attrs, filepath.Join(r.Root, filepath.FromSlash(e.Name)))
	}
	// Each candidate's folder, resolved once (Root is: a project reached
	// through a link would walk on above the work tree), and those above
	// it up to the work tree's top.
	seen, dirs := map[string]bool{}, map[string]bool{}
	lastDir, haveLast := "", false // the folder of the candidate before, in Rels' terms, when it had a file
	for i := range cands.Rels {
		// Candidates come folder by folder: one whose path is in the
		// folder of the one before (which had a file) is passed over
		// without making its path.
		if haveLast && relDir(cands.Rels[i]) == lastDir {
			continue
		}
		haveLast = false
		file := cands.file(i)
		if file == "" {
			continue
		}
		lastDir, haveLast = relDir(cands.Rels[i]), true
		if seen[filepath.Dir(file)] {
			continue
		}
		seen[filepath.Dir(file)] = true
		real, err := realPath(filepath.Dir(file))
		if err != nil {
			return true
		}
		for d := real; !dirs[d]; d = filepath.Dir(d) {
			dirs[d] = true
			attrs = append(attrs, filepath.Join(d, ".gitattributes"))
			if d == r.Root || d == filepath.Dir(d) {
				break
			}
		}
	}
	for _, f := range distinct(attrs) {
		data, err := readIfThere(f)
		if err != nil || data != nil && attributesMayConvert(data) {
			return true
		}
	}
	return false
}

// relDir is the folder part of a '/'-separated path with its slash (""
// for none), as a substring: no allocation.
func relDir(rel string) string { return rel[:strings.LastIndexByte(rel, '/')+1] }

// gitEtc is the etc folder of the git on PATH (its prefix's, where a git
// built with another prefix, Linuxbrew's or conda's, keeps its system
// gitconfig and gitattributes), when there is one.
func gitEtc() []string {
	exe, err := exec.LookPath("git")
	if err != nil {
		return nil
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	return []string{filepath.Join(filepath.Dir(filepath.Dir(exe)), "etc")}
}

// distinct is paths without repeats, in their first order (the user's
// XDG folder is also ~/.config; a tracked .gitattributes is also in a
// candidate's folder).
func distinct(paths []string) []string {
	seen := make(map[string]bool, len(paths))
	out := paths[:0:0]
	for _, p := range paths {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// maxAttributesSize bounds the configuration and attributes files
// mayConvert reads; a larger one counts as converting.
const maxAttributesSize = 1 << 20

// readIfThere reads a file: nil and no error when it does not exist, an
// error when it is there but not a regular file rye can read whole.
func readIfThere(f string) ([]byte, error) {
	fi, err := os.Stat(f)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > maxAttributesSize {
		return nil, errors.New("not a regular file of a size rye reads")
	}
	data, err := os.ReadFile(f)
	if err == nil && data == nil {
		data = []byte{}
	}
	return data, err
}

// withCommonDir is a git folder and, for a linked work tree's, the common
// folder its commondir file names (where git reads info/attributes and
// the shared configuration).
func withCommonDir(gitDir string) []string {
	dirs := []string{gitDir}
	if data, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		common := strings.TrimSpace(string(data))
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitDir, common)
		}
		dirs = append(dirs, filepath.Clean(common))
	}
	return dirs
}

// configMayConvert reports whether a git configuration file could make
// git convert line endings: core.autocrlf set to anything but false (a key
// without a value is true), or what rye does not follow (an include, a
// core.attributesFile). A file that does not parse counts as yes.
func configMayConvert(data []byte) bool {
	cfg := format.New()
	if err := format.NewDecoder(bytes.NewReader(data)).Decode(cfg); err != nil {
		return true
	}
	for _, s := range cfg.Sections {
		if s.IsName("include") || s.IsName("includeIf") {
			return true
		}
		if s.IsName("attr") && s.HasOption("tree") {
			return true // attributes read from another tree (git 2.40+)
		}
		if !s.IsName("core") {
			continue
		}
		for _, o := range s.Options {
			switch strings.ToLower(o.Key) {
			case "attributesfile":
				return true
			case "autocrlf":
				switch strings.ToLower(o.Value) {
				case "false", "no", "off", "0":
				default:
					return true
				}
			}
		}
	}
	return false
}

// convertingAttributes are the attributes that change bytes between the
// index and the work tree; "-name" (unset) is the only setting of them
// that converts nothing.
var convertingAttributes = map[string]bool{"text": true, "eol": true, "crlf": true, "ident": true, "filter": true, "working-tree-encoding": true}

// attributesMayConvert reports whether a gitattributes file has a line that
// could convert a file's bytes: a converting attribute set, set to a value
// or made unspecified (it then falls back to the configuration), or a macro
// definition (which could stand for any of them). "binary" and "-text" are
// git's ways of saying no conversion; other attributes (diff, merge,
// linguist-…) do not touch the bytes.
//
// Every field of a line is looked at, the pattern's too, split at blanks
// and quotes: git unquotes a "quoted pattern" or, when it cannot, splits
// at the first blank, and either reading must be covered; a pattern that
// happens to be named like an attribute only costs a shortcut. A file with
// a NUL byte (git stops reading a line there) counts as converting; a UTF-8
// byte order mark is skipped, as git skips it.
func attributesMayConvert(data []byte) bool {
	if bytes.IndexByte(data, 0) >= 0 {
		return true
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	for line := range strings.SplitSeq(string(data), "\n") {
		line = strings.TrimLeft(line, " \t\r")
		if line == "" || line[0] == '#' {
			continue
		}
		if strings.HasPrefix(line, "[attr]") {
			return true
		}
		fields := strings.FieldsFunc(line, func(r rune) bool { return r == '"' || unicode.IsSpace(r) })
		for _, tok := range fields {
			name, _, _ := strings.Cut(strings.TrimLeft(tok, "-!"), "=")
			if convertingAttributes[name] && tok != "-"+name {
				return true
			}
		}
	}
	return false
}
