package verify

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ryekit/rye/gitrepo"
	"github.com/ryekit/rye/internal/filestat"
	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/space"
)

// selectionSources turns a selection of a space's files into sources:
// symbolic links named like items become sources that fail to read, so
// that they get the verdict "unreadable" instead of being left out.
func selectionSources(sel *space.Selection) []Source {
	out := make([]Source, 0, len(sel.Items)+len(sel.Links))
	for _, f := range sel.Items {
		f := f
		// No Read: Bytes reads from In at Rel (a closure per item would be
		// a hundred bytes each, held for the whole run).
		embedded := f.Space.Embedded()
		out = append(out, Source{Kind: f.Kind, ID: f.ID, Space: f.Space.Label, Path: f.Path(), Embedded: embedded, In: f.Space, Rel: f.Rel, OnDisk: !embedded})
	}
	for _, l := range sel.Links {
		out = append(out, Source{Kind: l.Kind, ID: l.ID, Space: l.Space.Label, Path: l.Path(),
			Read: func() ([]byte, error) { return nil, space.ErrSymlink }, In: l.Space, Rel: l.Rel, Symlink: true})
	}
	return out
}

// walkCounting verifies every item of the spaces as their walks find
// them (space.WalkEach), a chunk at a time (chunkSize, 0: 4096), hands
// each chunk's results to sink (when set), keeps those that failed or
// carry warnings and counts the others (Request.CountPassed): nothing is
// held per item that passed, so a run over a hundred thousand items needs
// the memory of a few chunks. The walk runs ahead by one chunk while the
// workers verify the one before. The order is a whole selection's: each
// space's items in walk order, then its links named like items.
func (res *Results) walkCounting(v *verifier, spaces []*space.Space, kinds []item.Kind, chunkSize int, sink func([]Result) error) error {
	size := chunkSize
	if size <= 0 {
		size = 4096
	}
	chunks := make(chan []Source, 1)
	stop := make(chan struct{})
	var walkErr error
	total := 0 // items and links of the spaces
	go func() {
		defer close(chunks)
		send := func(srcs []Source) error {
			select {
			case chunks <- srcs:
				return nil
			case <-stop:
				return errStopped
			}
		}
		for _, sp := range spaces {
			links, err := sp.WalkEach(kinds, size, func(found []space.Found) error {
				total += len(found)
				return send(selectionSources(&space.Selection{Space: sp, Items: found}))
			})
			if err == nil && len(links) > 0 {
				total += len(links)
				err = send(selectionSources(&space.Selection{Space: sp, Links: links}))
			}
			if err != nil {
				walkErr = err
				return
			}
		}
	}()
	var sinkErr error
	for srcs := range chunks {
		items := v.Run(srcs)
		res.noteCopies(items)
		res.keep(items, true)
		if sink != nil {
			if sinkErr = sink(items); sinkErr != nil {
				break
			}
		}
	}
	close(stop)
	for range chunks { // the walk ends at its next chunk
	}
	if sinkErr != nil {
		return sinkErr
	}
	// The channel is closed: the walk is over, and its error and count
	// are this goroutine's to read.
	if walkErr != nil {
		return walkErr
	}
	if total == 0 && len(spaces) == 1 {
		res.Notes = append(res.Notes, noItemsYet(spaces[0], kinds))
	}
	return nil
}

var errStopped = errors.New("stopped")

// stagedSources returns the items recorded in the git index below the
// project's .ai/ folder (aiPrefix, relative to the repository root) that
// match kinds and patterns: what a pre-commit hook must verify. sp is the
// project space, for paths as shown.
//
// With head, a staged item whose blob is the one HEAD already holds is left
// out (the commit does not change it; the caller says so), so that a
// pre-commit check reads only what the commit changes. The bytes of each
// item are read from git when the verifier asks for them, in parallel.
func stagedSources(repo *gitrepo.Repo, aiPrefix string, sp *space.Space, kinds []item.Kind, patterns []space.Pattern, head map[string]gitrepo.File) ([]Source, int, error) {
	// The .ai folder itself, or one above it, staged as a symbolic link
	// would hide every item from the listing below.
	if f, ok, err := repo.Entry(aiPrefix); err != nil {
		return nil, 0, err
	} else if ok && f.Symlink {
		return nil, 0, fmt.Errorf("the index holds %s as a symbolic link: rye refuses symbolic links for .ai/ and inside it; stage the folder itself", aiPrefix)
	}
	files, err := repo.Index(aiPrefix, 0)
	if err != nil {
		return nil, 0, err
	}
	for rel, f := range files {
		// A kind folder, or a folder below one, staged as a link: its items
		// would not be listed as items at all.
		k, _, ext, err := space.KindAndID(rel)
		if f.Symlink && inKindFolder(rel) && !space.Hidden(rel) && !(err == nil && k.HasExtension(ext)) {
			return nil, 0, fmt.Errorf("the index holds %s/%s as a symbolic link: rye refuses symbolic links inside .ai/; stage the folder itself", aiPrefix, rel)
		}
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	var out []Source
	same := 0
	kinds = kindsOf(sp, kinds)
	for _, rel := range names {
		k, id, ok := sp.ItemAt(rel)
		if !ok || !wanted(k, kinds) || space.Hidden(rel) || !matchAny(patterns, k, id, rel) {
			continue
		}
		f := files[rel]
		if h, ok := head[rel]; ok && h.Blob == f.Blob && h.Symlink == f.Symlink {
			same++
			continue
		}
		src := Source{Kind: k, ID: id, Space: sp.Label, Path: sp.DisplayPath(rel), In: sp, Rel: rel}
		switch {
		case f.Symlink:
			src.Read = func() ([]byte, error) { return nil, space.ErrSymlink }
			src.Symlink = true
		default:
			src.Read = func() ([]byte, error) {
				data, err := repo.Blob(f, space.MaxItemSize)
				if errors.Is(err, gitrepo.ErrTooLarge) {
					return nil, fmt.Errorf("staged file %w", space.ErrTooLarge)
				}
				return data, err
			}
		}
		out = append(out, src)
	}
	return out, same, nil
}

// inKindFolder reports a path that is an item kind's folder or below one.
func inKindFolder(rel string) bool {
	first, _, _ := strings.Cut(rel, "/")
	_, ok := item.KindOfFolder(first)
	return ok
}

func wanted(k item.Kind, kinds []item.Kind) bool {
	for _, w := range kinds {
		if w == k {
			return true
		}
	}
	return false
}

func matchAny(patterns []space.Pattern, k item.Kind, id item.ID, rel string) bool {
	if len(patterns) == 0 {
		return true
	}
	for _, p := range patterns {
		if p.Match(k, id, rel) {
			return true
		}
	}
	return false
}

// Deleted is an item that a ref has and the working tree does not.
type Deleted struct {
	Kind item.Kind
	ID   item.ID
	Rel  string
}

// Note is the line that tells the reader of a run about it.
func (d Deleted) Note(ref string, sp *space.Space) string {
	return fmt.Sprintf("deleted since %s: %s %s (%s)", ref, d.Kind, d.ID, sp.DisplayPath(d.Rel))
}

// ChangedSince keeps the sources whose bytes differ from the files of
// commit ref (gitrepo.ChangedSince: by blob id, with no status walk) and
// lists the items of ref that are gone from the project space sp, in
// order. Each kept source's bytes are read here, once, and handed on.
func ChangedSince(repo *gitrepo.Repo, ref, aiPrefix string, sources []Source, kinds []item.Kind, sp *space.Space, stat bool) ([]Source, []Deleted, error) {
	kinds = kindsOf(sp, kinds)
	exists := func(rel string) bool {
		_, err := os.Lstat(filepath.Join(sp.AI(), filepath.FromSlash(rel)))
		return err == nil
	}
	cands := gitrepo.Candidates{Rels: make([]string, len(sources)), Read: func(i int) ([]byte, error) { return sources[i].Bytes() }}
	for i, s := range sources {
		cands.Rels[i] = s.Rel
	}
	if stat {
		cands.File = func(i int) string { return sources[i].DiskFile() }
		cands.Stat = func(i int) (filestat.Stat, bool, bool, error) { return sources[i].In.StatData(sources[i].Rel) }
	}
	changes, gone, err := repo.ChangedSince(ref, aiPrefix, cands, stat)
	if err != nil {
		return nil, nil, err
	}
	changed := make([]Source, 0, len(changes))
	for _, c := range changes {
		s := sources[c.Index]
		s.Read = func() ([]byte, error) { return c.Data, c.Err }
		changed = append(changed, s)
	}
	// The files of ref that no source names: deleted when they are items
	// of the kinds asked for and are not on disk (an item the patterns did
	// not select is still there).
	var deleted []Deleted
	for _, rel := range gone {
		k, id, ok := sp.ItemAt(rel)
		if !ok || !wanted(k, kinds) || space.Hidden(rel) || exists(rel) {
			continue
		}
		deleted = append(deleted, Deleted{Kind: k, ID: id, Rel: rel})
	}
	return changed, deleted, nil
}
