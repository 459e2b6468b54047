package gitrepo

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// rye reads git's index file itself rather than through go-git, for two
// reasons. go-git ignores GIT_INDEX_FILE, which git sets for the
// pre-commit hook when the commit is built in another index (git commit
// -a, git commit PATHS): a hook reading .git/index would check what was
// staged before, not what is being committed. And go-git decodes each
// entry field by field through reflection, which was most of a pre-commit
// check's time on a large repository.

// indexEntry is one entry of git's index, as rye uses it.
//
// It is kept small (32 bytes), and its name shares the memory of the index
// file as read (parseIndex): an index of a hundred thousand entries is
// held, not copied into a hundred thousand strings.
type indexEntry struct {
	Name string
	// raw is the entry's fixed part in the index file as read (times,
	// device, inode, mode, ids, size, blob id, flags), read by the methods
	// below when asked.
	raw          *[62]byte
	Mode         uint32
	Stage        uint8
	SkipWorktree bool
	IntentToAdd  bool
}

func (e *indexEntry) u32(off int) uint32 { return binary.BigEndian.Uint32(e.raw[off:]) }

// Hash is the entry's blob id (or a submodule's commit id).
func (e *indexEntry) Hash() (h plumbing.Hash) {
	copy(h[:], e.raw[40:60])
	return h
}

// Size is the file's size, truncated to 32 bits.
func (e *indexEntry) Size() uint32 { return e.u32(36) }

// CTime and MTime are the file's change and modification times, in
// nanoseconds since the epoch.
func (e *indexEntry) CTime() int64 { return int64(e.u32(0))*1e9 + int64(e.u32(4)) }
func (e *indexEntry) MTime() int64 { return int64(e.u32(8))*1e9 + int64(e.u32(12)) }

// Ino is the file's inode, truncated to 32 bits.
func (e *indexEntry) Ino() uint32 { return e.u32(20) }

// gitIndex is an index file as read: its entries, sorted by name and
// stage as git keeps them, when the file was last written (for the
// racy-timestamp rule), and its cache tree: for each folder ("" for the
// top) whose entries git has not changed since it last wrote trees, the
// id of the tree they make.
type gitIndex struct {
	Entries []indexEntry
	Written time.Time
	Trees   map[string]plumbing.Hash
}

// maxIndexSize bounds the index file rye reads: 100,000 entries take about
// 10 MiB; a file past this bound is an error, not an allocation.
const maxIndexSize = 1 << 30

const (
	modeSymlink = 0o120000
	modeGitlink = 0o160000
)

// splitIndex names the index git writes with core.splitIndex, and how to
// undo it.
const splitIndex = "a split index (core.splitIndex; undo with git config core.splitIndex false, then git update-index --no-split-index)"

// readIndex reads and parses the repository's index: GIT_INDEX_FILE when
// git set it (in a hook) for this repository, else the index of the work
// tree's git folder.
func (r *Repo) readIndex() (*gitIndex, error) {
	st, ok := r.repo.Storer.(*filesystem.Storage)
	if !ok {
		return nil, errors.New("the repository has no git folder on disk")
	}
	gitDir := st.Filesystem().Root()
	file := filepath.Join(gitDir, "index")
	if env := os.Getenv("GIT_INDEX_FILE"); env != "" {
		abs, err := filepath.Abs(env)
		if err != nil {
			return nil, err
		}
		real := abs
		if p, err := realPath(filepath.Dir(abs)); err == nil {
			real = filepath.Join(p, filepath.Base(abs))
		}
		realGitDir, err := realPath(gitDir)
		if err != nil {
			return nil, err
		}
		// git's own indexes (index, index.lock, next-index-*.lock of a
		// commit) are files of the work tree's git folder itself; one in
		// a folder below it is a linked work tree's or a submodule's.
		if filepath.Dir(real) != realGitDir {
			return nil, fmt.Errorf("GIT_INDEX_FILE is %s, not a file of the git folder %s of this repository: rye cannot tell which index to check; unset it, or run rye from the work tree the hook runs in", env, gitDir)
		}
		file = abs
	}
	f, err := os.Open(file)
	if errors.Is(err, os.ErrNotExist) {
		return &gitIndex{}, nil // a repository with nothing staged yet
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() > maxIndexSize {
		return nil, fmt.Errorf("%s is %d bytes, over rye's bound of %d", file, fi.Size(), maxIndexSize)
	}
	// One buffer of the file's size (io.ReadAll would grow and copy ten
	// megabytes at 100,000 files); a file that grew since is not whole.
	data := make([]byte, fi.Size())
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	entries, trees, err := parseIndex(data)
	if err != nil {
		// A split index's entries are a diff against a shared index
		// (sharedindex.<id> beside it): they do not parse on their own,
		// and its "link" extension, which says so, comes after them.
		if shared, _ := filepath.Glob(filepath.Join(filepath.Dir(file), "sharedindex.*")); len(shared) > 0 {
			return nil, fmt.Errorf("%s: the index is %s, which rye does not read", file, splitIndex)
		}
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	return &gitIndex{Entries: entries, Written: fi.ModTime(), Trees: trees}, nil
}

// below returns the entries whose names are below the folder prefix (all
// of them for ""): the entries are sorted by name, so they are one run,
// found by binary search.
func (x *gitIndex) below(prefix string) []indexEntry {
	lo, hi := x.span(prefix)
	return x.Entries[lo:hi]
}

// span is where below's entries are in x.Entries.
func (x *gitIndex) span(prefix string) (lo, hi int) {
	entries := x.Entries
	if prefix == "" {
		return 0, len(entries)
	}
	dir := prefix + "/"
	lo = sort.Search(len(entries), func(i int) bool { return entries[i].Name >= dir })
	hi = lo + sort.Search(len(entries)-lo, func(i int) bool { return !strings.HasPrefix(entries[lo+i].Name, dir) })
	return lo, hi
}

// parseIndex decodes an index file of version 2, 3 or 4 (git's
// Documentation/gitformat-index.txt), checking its trailing SHA-1 (all
// zeros when git was told not to write it: index.skipHash). Optional
// extensions (an upper-case signature: the cache tree, resolve-undo, ...)
// are skipped, but for the cache tree (TREE), which is returned (nil when
// there is none, or it does not read); a required extension rye does not
// know (a split or sparse index) is an error, as it is for git.
//
// The entries' names of a version 2 or 3 index are strings over data
// itself, not copies (unsafe.String): data must not change afterwards.
// readIndex reads the file into a buffer of its own and never writes it
// again.
func parseIndex(data []byte) ([]indexEntry, map[string]plumbing.Hash, error) {
	const hashLen = sha1.Size
	if len(data) < 12+hashLen {
		return nil, nil, errors.New("not a git index: too short")
	}
	body, trailer := data[:len(data)-hashLen], data[len(data)-hashLen:]
	if !bytes.Equal(trailer, make([]byte, hashLen)) {
		if sum := sha1.Sum(body); !bytes.Equal(sum[:], trailer) {
			return nil, nil, errors.New("the index's checksum does not match its content (a damaged index: git status would say so too)")
		}
	}
	if string(body[:4]) != "DIRC" {
		return nil, nil, errors.New("not a git index: no DIRC signature")
	}
	version := binary.BigEndian.Uint32(body[4:8])
	if version < 2 || version > 4 {
		return nil, nil, fmt.Errorf("index version %d: rye reads versions 2 to 4", version)
	}
	count := binary.BigEndian.Uint32(body[8:12])
	// The smallest entry is 62 bytes and a name, so a count the file cannot
	// hold is refused before anything is allocated for it.
	if uint64(count)*63 > uint64(len(body)) {
		return nil, nil, fmt.Errorf("the index claims %d entries in %d bytes", count, len(body))
	}
	entries := make([]indexEntry, 0, count)
	var trees map[string]plumbing.Hash
	pos := 12
	prev := ""
	for i := uint32(0); i < count; i++ {
		e, next, err := parseEntry(body, pos, version, prev)
		if err != nil {
			return nil, nil, fmt.Errorf("entry %d (byte %d): %v", i, pos, err)
		}
		if i > 0 {
			last := entries[len(entries)-1]
			if c := strings.Compare(last.Name, e.Name); c > 0 || c == 0 && last.Stage >= e.Stage {
				return nil, nil, fmt.Errorf("entry %d (byte %d): %q is out of order after %q", i, pos, e.Name, last.Name)
			}
		}
		entries = append(entries, e)
		prev, pos = e.Name, next
	}
	for pos < len(body) {
		if len(body)-pos < 8 {
			return nil, nil, fmt.Errorf("byte %d: a truncated extension", pos)
		}
		sig := string(body[pos : pos+4])
		size := binary.BigEndian.Uint32(body[pos+4 : pos+8])
		if uint64(size) > uint64(len(body)-pos-8) {
			return nil, nil, fmt.Errorf("byte %d: extension %q runs past the end", pos, sig)
		}
		if sig[0] < 'A' || sig[0] > 'Z' {
			what := map[string]string{"link": splitIndex, "sdir": "a sparse index (index.sparse; undo with git sparse-checkout init --no-sparse-index)"}[sig]
			if what == "" {
				what = fmt.Sprintf("the required extension %q", sig)
			}
			return nil, nil, fmt.Errorf("the index is %s, which rye does not read", what)
		}
		if sig == "TREE" {
			trees = cacheTree(body[pos+8 : pos+8+int(size)])
		}
		pos += 8 + int(size)
	}
	return entries, trees, nil
}

// cacheTree reads the TREE extension: entries in pre-order, each a path
// component, NUL, the number of index entries it covers (-1 when git has
// invalidated it) and of subtrees in ASCII, LF, then the tree id when
// valid. Only valid entries are kept, keyed by their folder's path. A
// malformed extension is no cache tree: it only ever saves reading trees.
func cacheTree(b []byte) map[string]plumbing.Hash {
	trees := map[string]plumbing.Hash{}
	pos := 0
	var read func(dir string, depth int) bool
	read = func(dir string, depth int) bool {
		nul := bytes.IndexByte(b[pos:], 0)
		if nul < 0 || depth > 1000 {
			return false
		}
		name := string(b[pos : pos+nul])
		pos += nul + 1
		lf := bytes.IndexByte(b[pos:], '\n')
		if lf < 0 {
			return false
		}
		counts := strings.Fields(string(b[pos : pos+lf]))
		pos += lf + 1
		if len(counts) != 2 {
			return false
		}
		entries, err1 := strconv.Atoi(counts[0])
		subtrees, err2 := strconv.Atoi(counts[1])
		if err1 != nil || err2 != nil || subtrees < 0 || subtrees > len(b) {
			return false
		}
		path := name
		if depth == 0 {
			path = ""
		} else if dir != "" {
			path = dir + "/" + name
		}
		if entries >= 0 {
			if len(b)-pos < sha1.Size {
				return false
			}
			var h plumbing.Hash
			copy(h[:], b[pos:pos+sha1.Size])
			trees[path] = h
			pos += sha1.Size
		}
		for range subtrees {
			if !read(path, depth+1) {
				return false
			}
		}
		return true
	}
	if !read("", 0) || pos != len(b) {
		return nil
	}
	return trees
}

// parseEntry decodes the entry at pos; prev is the previous entry's name
// (version 4 names are stored as a change of it). It returns the entry and
// where the next one starts.
func parseEntry(b []byte, pos int, version uint32, prev string) (indexEntry, int, error) {
	const fixed = 62 // times, dev, ino, mode, uid, gid, size, id, flags
	if len(b)-pos < fixed {
		return indexEntry{}, 0, errors.New("truncated")
	}
	u32 := func(off int) uint32 { return binary.BigEndian.Uint32(b[pos+off:]) }
	e := indexEntry{raw: (*[62]byte)(b[pos : pos+fixed]), Mode: u32(24)}
	flags := binary.BigEndian.Uint16(b[pos+60:])
	e.Stage = uint8(flags>>12) & 3
	nameLen := int(flags & 0xfff)
	p := pos + fixed
	if flags&0x4000 != 0 { // extended
		if version < 3 {
			return indexEntry{}, 0, errors.New("an extended entry in a version 2 index")
		}
		if len(b)-p < 2 {
			return indexEntry{}, 0, errors.New("truncated")
		}
		ext := binary.BigEndian.Uint16(b[p:])
		e.SkipWorktree, e.IntentToAdd = ext&0x4000 != 0, ext&0x2000 != 0
		p += 2
	}
	if version == 4 {
		strip, n := indexVarint(b[p:])
		if n == 0 || strip > uint64(len(prev)) {
			return indexEntry{}, 0, errors.New("a bad name prefix")
		}
		p += n
		end := bytes.IndexByte(b[p:], 0)
		if end < 0 {
			return indexEntry{}, 0, errors.New("a name without its end")
		}
		e.Name = prev[:len(prev)-int(strip)] + string(b[p:p+end])
		p += end + 1
	} else {
		end := bytes.IndexByte(b[p:], 0)
		if end < 0 {
			return indexEntry{}, 0, errors.New("a name without its end")
		}
		if end > 0 {
			e.Name = unsafe.String(&b[p], end) // data is not written again (parseIndex)
		}
		// One to eight NULs pad the entry to a multiple of eight bytes.
		next := pos + (p-pos+end+8)&^7
		if next > len(b) {
			return indexEntry{}, 0, errors.New("truncated padding")
		}
		if len(bytes.TrimLeft(b[p+end:next], "\x00")) != 0 {
			return indexEntry{}, 0, errors.New("padding that is not NUL bytes")
		}
		p = next
	}
	if len(e.Name) == 0 || nameLen != 0xfff && nameLen != len(e.Name) {
		return indexEntry{}, 0, fmt.Errorf("the name %q does not have the length its flags give (%d)", e.Name, nameLen)
	}
	return e, p, nil
}

// indexVarint decodes git's offset varint (not LEB128: each continuation
// adds one before shifting, so every value has one encoding); n is 0 when
// it is truncated or overflows.
func indexVarint(b []byte) (v uint64, n int) {
	for i, c := range b {
		if i > 0 {
			if v >= 1<<56 {
				return 0, 0
			}
			v = (v + 1) << 7
		}
		v |= uint64(c & 0x7f)
		if c&0x80 == 0 {
			return v, i + 1
		}
	}
	return 0, 0
}
