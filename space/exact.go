package space

import (
	"errors"
	"io/fs"
	"os"
	"slices"
	"strings"
	"syscall"

	"github.com/ryekit/rye/item"
)

// findExact lists what patterns that each name one item (ids and file
// paths) can select among kinds, as walkFor would, without listing a
// folder: each file an id can be (its folder, its name and every file form
// of its kind) and each path named is looked at with one lstat, and
// classified by the walk's own rules (walker.visit). Signing or verifying
// one item then reads that item, not its siblings: the cost does not grow
// with its folder, and a sibling that cannot be read changes nothing.
//
// ok is false when the answer needs a walk: a glob or a folder among the
// patterns, a RyeOS 0.2+ tree (whose ids are any text, and whose rules
// depend on the folders on the way), a kind that is not one of rye's
// three, a folder on the way that is a link or not a folder, a name that
// is not ASCII (a file system may store it in another normal form), a
// file system that ignores case (a file found under the name asked for may
// be stored under another, which a walk would report as that one), or an
// error other than "does not exist". The caller then walks (walkFor), so
// that whatever this cannot decide is decided as before.
func (s *Space) findExact(kinds []item.Kind, pats []Pattern) (found []Found, odd []Oddity, ok bool) {
	if s.Embedded() || len(pats) == 0 || s.Layout().RyeOS {
		return nil, nil, false
	}
	for _, p := range pats {
		if p.glob != "" || p.dir != "" {
			return nil, nil, false
		}
	}
	w := walker{}
	for _, k := range s.kindsFor(kinds) {
		if !k.Valid() {
			return nil, nil, false
		}
		var rels []string // candidate files of kind k, relative to .ai/
		for _, p := range pats {
			switch {
			case p.NotItem:
			case p.rel != "":
				if strings.HasPrefix(p.rel, k.Folder()+"/") {
					rels = append(rels, p.rel)
				}
			default:
				for _, ext := range k.Extensions() {
					rels = append(rels, k.Folder()+"/"+string(p.id)+ext)
				}
			}
		}
		slices.SortFunc(rels, byPath)
		rels = slices.Compact(rels) // a file named twice is listed once
		folders := map[string]bool{}
		for _, rel := range rels {
			dir := dirOf(rel)
			live, known := folders[dir]
			if !known {
				var ok bool
				if live, ok = s.plainFolders(dir); !ok {
					return nil, nil, false
				}
				folders[dir] = live
			}
			if !live {
				continue // a folder on the way is missing or hidden: a walk finds nothing there
			}
			name := rel[len(dir)+1:]
			if hiddenName(name) {
				continue
			}
			info, err := fs.Lstat(s.fsys, rel)
			switch {
			case missing(err):
				continue
			case err != nil:
				return nil, nil, false
			}
			if !s.caseSensitive(rel, info) {
				return nil, nil, false
			}
			if err := w.visit(s, k, rel, fs.FileInfoToDirEntry(info), dir, false); err != nil && !errors.Is(err, fs.SkipDir) {
				return nil, nil, false
			}
		}
	}
	return w.found, w.odd, true
}

// byPath orders paths as a walk meets them: folder by folder, each in
// lexical order.
func byPath(a, b string) int {
	return slices.Compare(strings.Split(a, "/"), strings.Split(b, "/"))
}

// plainFolders reports whether every folder from a kind folder down to dir
// (relative to .ai/, the kind folder first) is a real, visible folder:
// live, a walk lists dir's files; not live (ok still true), one of them is
// missing or hidden and a walk finds nothing there. ok is false when one
// is a link, a file or cannot be looked at, or a name is not ASCII: only a
// walk says what it holds.
func (s *Space) plainFolders(dir string) (live, ok bool) {
	at := ""
	for part := range strings.SplitSeq(dir, "/") {
		if !ascii(part) {
			return false, false
		}
		if at != "" && hiddenName(part) {
			return false, true
		}
		if at != "" {
			at += "/"
		}
		at += part
		info, err := fs.Lstat(s.fsys, at)
		switch {
		case missing(err):
			return false, true
		case err != nil, !info.IsDir(), info.Mode()&fs.ModeSymlink != 0:
			return false, false
		}
	}
	return true, true
}

// caseSensitive reports whether the file found at rel (info) is stored
// under that very name, as far as case goes: the same path with the case
// of every letter swapped must not be the same file. A file system that
// ignores case (macOS, Windows, an ext4 casefold folder) would also find
// "Greet.py" for "greet.py", where a walk lists "Greet.py". Names are ASCII
// here (plainFolders, findExact), so that swapping case is exact.
func (s *Space) caseSensitive(rel string, info fs.FileInfo) bool {
	if !ascii(rel) {
		return false
	}
	swapped := []byte(rel)
	for i, c := range swapped {
		switch {
		case 'a' <= c && c <= 'z':
			swapped[i] = c - 'a' + 'A'
		case 'A' <= c && c <= 'Z':
			swapped[i] = c - 'A' + 'a'
		}
	}
	other, err := fs.Lstat(s.fsys, string(swapped))
	switch {
	case missing(err):
		return true
	case err != nil:
		return false
	}
	return !os.SameFile(info, other)
}

// missing reports an error that says a path does not exist (or that a
// component on the way is not a folder, which a walk reports as nothing
// found there).
func missing(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
