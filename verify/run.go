package verify

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ryekit/rye/config"
	"github.com/ryekit/rye/gitrepo"
	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/report"
	"github.com/ryekit/rye/sign"
	"github.com/ryekit/rye/space"
)

// Fields of a Request, as RequestError names them.
const (
	FieldTier         = "tier"
	FieldPatterns     = "patterns"
	FieldTrustRef     = "trust ref"
	FieldTrustUser    = "trust user"
	FieldStaged       = "staged"
	FieldChangedSince = "changed since"
)

// RequestError is a request that cannot run: a field's value is wrong or
// names something that does not exist (a git ref, a pattern that matches
// nothing). Callers turn it into a usage error that names their own
// spelling of the field.
type RequestError struct {
	Field string
	Err   error
}

func (e *RequestError) Error() string { return e.Field + ": " + e.Err.Error() }
func (e *RequestError) Unwrap() error { return e.Err }

func requestError(field string, err error) error {
	if err == nil {
		return nil
	}
	return &RequestError{Field: field, Err: err}
}

// TrustOptions say where the project's tier of the trust store comes from:
// the working tree (the zero value), a commit, or the index.
type TrustOptions struct {
	// Ref reads the project's trusted keys from this git commit (the base of
	// a change under review), so that a change cannot trust itself.
	Ref string
	// User keeps the user space's keys when Ref is set (they are left out
	// by default: a change must not pass on keys only the runner holds).
	User bool
	// Staged reads the project's trusted keys from the git index.
	Staged bool
	// Repo is the project's repository when the caller has opened it
	// already (for the settings), so that a run reads the index once.
	Repo *Git
}

// Git is the repository that holds the project, for the requests that
// read git, with the path of the project's .ai/ folder in it.
type Git struct {
	Repo     *gitrepo.Repo
	AIPrefix string
}

// LoadTrust assembles the trust store (TrustTiers) for o, opening the
// project's repository when o reads git (o.Repo when the caller has it).
// Problems with trusted-key files are left in the store for the caller to
// report. package project calls it when it opens a project.
func LoadTrust(ss *space.Spaces, o TrustOptions) (*TrustStore, *Git, error) {
	if o.User && o.Ref == "" {
		return nil, nil, requestError(FieldTrustUser, errors.New("only makes sense with a trust ref"))
	}
	g := o.Repo
	var project []TrustSource
	if o.Ref != "" || o.Staged {
		field := FieldStaged
		if o.Ref != "" {
			field = FieldTrustRef
		}
		if g == nil {
			var err error
			if g, err = openGit(ss, field); err != nil {
				return nil, nil, err
			}
		}
		var err error
		if o.Ref != "" {
			project, err = trustAtRef(g.Repo, o.Ref, path.Dir(g.AIPrefix))
		} else {
			project, err = trustInIndex(g.Repo, path.Dir(g.AIPrefix))
		}
		if err != nil {
			return nil, nil, requestError(field, err)
		}
	}
	ts, err := LoadTrustStore(TrustTiers(ss, project, o.Ref == "" || o.User))
	if err != nil {
		return nil, nil, err
	}
	if o.Ref == "" {
		ts.staged = o.Staged
		return ts, g, nil
	}
	// What the tree under check (the index, for staged) would add to the
	// project's keys is reported, never trusted.
	tree := projectTrust(ss.Project)
	if o.Staged {
		if tree, err = trustInIndex(g.Repo, path.Dir(g.AIPrefix)); err != nil {
			return nil, nil, requestError(FieldStaged, err)
		}
	}
	if err := ts.withAdded(o.Ref, tree); err != nil {
		return nil, nil, err
	}
	return ts, g, nil
}

// openGit opens the repository of the project of ss; an error is one of
// the request's field.
func openGit(ss *space.Spaces, field string) (*Git, error) {
	if ss.Project == nil {
		return nil, ErrNoProject
	}
	repo, aiPrefix, err := OpenRepo(ss.Project.Root)
	if err != nil {
		return nil, requestError(field, err)
	}
	return &Git{Repo: repo, AIPrefix: aiPrefix}, nil
}

// ErrNoProject is a request that needs the project space (git, --staged)
// where there is none.
var ErrNoProject = errors.New("no project")

// Request is one run of the verify pipeline: which items, against which
// trust, under which policy. The CLI's rye verify and rye check, lint's
// check and the MCP server all run it, with the trust store and the
// repository of the project they opened (package project).
type Request struct {
	Spaces *space.Spaces
	// Tier is "project" (the default), "user", "system" or "all".
	Tier     string
	Kinds    []item.Kind // nil: every kind
	Patterns []string    // ids, globs or file paths; none: every item
	WorkDir  string      // path patterns are relative to it
	// Trust is the store the items are verified against (LoadTrust): the
	// project's keys of the working tree, of the index (Staged), or of a
	// git commit (its Ref), which makes this a run under a trust ref.
	Trust *TrustStore
	// Git is the project's repository when the caller has opened it; Run
	// opens it itself when it needs it (staged, changed since, a trust
	// ref, tracked run files).
	Git *Git
	// Staged verifies the content of the git index (a pre-commit hook),
	// with a trust store read from the index or a trust ref.
	Staged bool
	// ChangedSince verifies only the project items whose bytes differ from
	// this git commit's, and lists those it deleted.
	ChangedSince string
	// FromChange says the patterns are a change's file list (a pre-commit
	// hook's): a path that is not an item is skipped, as with Staged and
	// ChangedSince; otherwise it is an error (Selection.NotItems).
	FromChange bool
	Policy     Policy
	// KeepBytes keeps every item's bytes after verification, for a caller
	// that reads them again and must get the very bytes verified.
	KeepBytes bool
	// Each, when set, is called with each chunk of the sources (at most
	// ChunkSize of them: sources[first:first+n]) as soon as it is
	// verified, in order, with its results. Until it returns, each of the
	// chunk's sources reads the very bytes its verdict is about (read
	// once); after, they are let go. rye check lints there: a tree is
	// read once, and never held whole. An error from Each ends the run.
	Each func(sources []Source, first, n int, results []Result) error
	// ChunkSize is how many sources a chunked run verifies at a time (Each,
	// CountPassed); 0: 2048 for Each, 4096 for CountPassed.
	ChunkSize int
	// CountPassed keeps in Items only the results that failed or carry
	// warnings, and counts the others in Results.Passed, for a report
	// that shows only problems (its findings), while a caller that lists
	// every item takes them from Sink: a run over a hundred thousand items
	// then holds no record for each. It does not apply with KeepBytes or a
	// trust ref (they look at every result). With Each, the sources stay
	// (Each's caller reads them) but Items are no longer aligned with them.
	CountPassed bool
	// Sink, when set, is handed every result, in the order of the sources,
	// as soon as its verdict is final: a chunk at a time as it is verified
	// (ChunkSize), or all of them at the end under a trust ref, whose
	// rollback check may still fail an item, and with KeepBytes. It may
	// keep none of them: the run keeps what Items hold. rye verify --format
	// json writes each item there as it comes. An error from Sink ends the
	// run.
	Sink func(results []Result) error
	// RunFiles reports the files outside .ai/ that the executor could use
	// unverified and that git tracks (trackedRunFiles), when the project is
	// in a git repository.
	RunFiles bool
	// NestedProjects reports the other projects git tracks below the
	// project (Results.Nested) that InRun does not name, and the tracked
	// paths that stand for the project's .ai, or a folder rye reads in it,
	// on a file system that ignores case (Results.CaseVariants): a run over
	// one project must not let a project nested in it, or hidden in it by
	// letter case, pass unseen.
	NestedProjects bool
	// InRun are the roots of the projects checked in the same run (rye
	// check --all-projects, -C a -C b): not reported as nested.
	InRun []string
	// Copies, when set, remembers the items of every project of a run
	// (rye check --all-projects, -C a -C b) by copy key: an item of one
	// project copied over an item of another is a copy too. nil: the
	// items of this run alone.
	Copies *SeenCopies
	// Cache is the path of the verdict cache file and CacheSecret the key
	// that authenticates its entries (internal/cachedir.Secret); without
	// both, everything is verified.
	Cache       string
	CacheSecret []byte
	// cacheLimits are the cache's bounds (zero: the defaults).
	CacheLimits cacheLimits
	// Progress, when set, is told how many of the selected items have been
	// verified (a progress line on a terminal).
	Progress func(done, total int)
}

// Results is a finished verification.
type Results struct {
	// Items are the results, in the order of Sources; with
	// Request.CountPassed only those that failed or carry warnings.
	Items []Result
	// Sources are the items verified, in the order of Items (but with
	// CountPassed, which lets them go, or keeps them all with Each). With
	// Request.KeepBytes (or a trust ref) each reads its bytes once, so a
	// later reader (lint in rye check) gets the very bytes that were
	// verified.
	Sources []Source
	// Notes are lines for the reader: what changed since a commit, what it
	// deleted.
	Notes []string
	// Trust is the store the items were verified against; its Problems are
	// the trusted-key files that were ignored.
	Trust *TrustStore
	// RunFiles are the tracked files of trackedRunFiles (with
	// Request.RunFiles).
	RunFiles []runFile
	// Nested are the projects git tracks below this one that the run does
	// not check (Request.NestedProjects).
	Nested []nested
	// LayoutChange is set when the project's tree is read with another
	// layout than its .ai folder at the trust ref shows (an error: it
	// changes which files the gate verifies).
	LayoutChange *LayoutChange
	// CaseVariants are the tracked paths that differ from the project's
	// .ai, or a path rye reads in it, only in letter case
	// (Request.NestedProjects).
	CaseVariants []caseVariant
	// Copies are items whose signature, in a format that does not bind the
	// item's location, is another item's of the run, or whose bytes are
	// another path's at the trust ref: a signed file copied under another
	// name verifies, and runs the other file's content.
	Copies []Copy
	// seen is the first path of each copy key seen (Request.Copies, or
	// this run's own).
	seen *SeenCopies
	// CacheErr is set when the verdict cache could not be saved (the
	// results are complete; only the next run is slower).
	CacheErr error
	// Passed counts the items verified without warnings that Items leave
	// out (Request.CountPassed).
	Passed int
}

// Run verifies what req selects.
func Run(req Request) (*Results, error) {
	if req.Staged && req.ChangedSince != "" {
		return nil, requestError(FieldChangedSince, errors.New("a run verifies the index (staged) or what changed since a commit, not both"))
	}
	// nil is every kind of each space's layout (space.Walk); the index
	// and what changed since a commit are read for the kinds named.
	kinds := req.Kinds
	tier := req.Tier
	if tier == "" {
		tier = string(space.Project)
	}
	spaces, err := req.Spaces.Named(tier)
	if err != nil {
		return nil, requestError(FieldTier, err)
	}
	if req.Trust == nil {
		return nil, errors.New("verify.Run: no trust store (LoadTrust, or package project, makes one)")
	}
	ts, ref := req.Trust, req.Trust.Ref()
	if req.Staged && ref == "" && !ts.staged {
		// The tree's keys must not judge what is about to be committed.
		return nil, requestError(FieldStaged, errors.New("the trust store was read from the working tree: a staged run trusts the index's keys or a trust ref's"))
	}
	g := req.Git
	if g == nil && (req.Staged || req.ChangedSince != "" || ref != "") {
		field := FieldChangedSince
		switch {
		case ref != "":
			field = FieldTrustRef
		case req.Staged:
			field = FieldStaged
		}
		if g, err = openGit(req.Spaces, field); err != nil {
			return nil, err
		}
	}
	res := &Results{Trust: ts, seen: req.Copies}
	if res.seen == nil {
		res.seen = &SeenCopies{}
	}
	// Every item of the spaces, for a report of the problems: verified as
	// the walk finds them, never all listed at once (walkCounting). A
	// progress line needs the total first.
	whole := !req.Staged && len(req.Patterns) == 0 && req.ChangedSince == "" && req.CountPassed && !req.KeepBytes && ref == "" && req.Each == nil && req.Progress == nil
	if req.Staged {
		p := req.Spaces.Project
		pats, err := space.ParsePatterns(p, req.Patterns, req.WorkDir)
		if err != nil {
			return nil, requestError(FieldPatterns, err)
		}
		// An id, a glob or a folder is the user's, not a hook's (a hook
		// passes files): it must name an item of the project (staged or
		// not), as in every other run.
		var named []string
		for _, pat := range pats {
			if pat.IsName() || pat.IsFolder() {
				named = append(named, pat.Text)
			}
		}
		if len(named) > 0 {
			if _, err := space.Select(p, kinds, named, req.WorkDir); err != nil {
				return nil, requestError(FieldPatterns, err)
			}
		}
		var head map[string]gitrepo.File
		if ref == "" { // under a trust ref, the whole index is judged by the ref's keys
			if head, err = stagedBase(g, req.Cache != ""); err != nil {
				return nil, requestError(FieldStaged, err)
			}
		}
		var same int
		if res.Sources, same, err = stagedSources(g.Repo, g.AIPrefix, p, req.Kinds, pats, head); err != nil {
			return nil, requestError(FieldStaged, err)
		}
		switch {
		case same > 0:
			res.Notes = append(res.Notes, fmt.Sprintf("%s staged as HEAD has %s, with the same trusted keys and configuration: not verified again", report.Plural(same, "item"), map[bool]string{true: "it", false: "them"}[same == 1]))
		case len(res.Sources) == 0:
			res.Notes = append(res.Notes, "no item is staged: nothing to verify")
		}
	} else if !whole {
		// A pattern need only match in one of the spaces.
		sels, err := space.SelectAll(spaces, kinds, req.Patterns, req.WorkDir)
		if err != nil {
			return nil, requestError(FieldPatterns, err)
		}
		if !req.FromChange && req.ChangedSince == "" && len(sels) > 0 {
			if err := sels[0].NotItems(); err != nil {
				return nil, requestError(FieldPatterns, err)
			}
		}
		if len(req.Patterns) == 0 && req.ChangedSince == "" && len(sels) == 1 && len(sels[0].Items)+len(sels[0].Links) == 0 {
			res.Notes = append(res.Notes, noItemsYet(sels[0].Space, kinds))
		}
		for _, sel := range sels {
			srcs := selectionSources(sel)
			if req.ChangedSince != "" && sel.Space.Name == space.Project {
				if srcs, err = res.changedSince(g, req.ChangedSince, sel.Space, srcs, kindsOf(sel.Space, kinds), req.Cache != ""); err != nil {
					return nil, err
				}
			}
			if res.Sources == nil {
				res.Sources = srcs // one space, as usual: no copy
			} else {
				res.Sources = append(res.Sources, srcs...)
			}
		}
	}
	// Bytes are kept only when a later stage reads them again (lint in rye
	// check, the rollback comparison under a trust ref): then it gets the
	// very bytes that were verified. Otherwise each is dropped as soon as
	// its item is verified, so memory does not grow with the tree.
	if req.KeepBytes || ref != "" {
		for i := range res.Sources {
			res.Sources[i].Read = readOnce(res.Sources[i].Bytes)
		}
	}
	v := &verifier{Trust: ts, Policy: req.Policy, Progress: req.Progress, ReadEvery: req.KeepBytes || ref != "" || req.Each != nil}
	if req.Cache != "" && len(req.CacheSecret) >= 32 {
		v.Cache = openCacheWith(req.Cache, req.CacheSecret, req.CacheLimits)
	}
	// Chunked runs hand each chunk's results on as they come, unless a
	// trust ref's rollback check may still change them.
	count := req.CountPassed && !req.KeepBytes && ref == ""
	var sink func([]Result) error
	if ref == "" {
		sink = req.Sink
	}
	switch {
	case whole:
		if err := res.walkCounting(v, spaces, kinds, req.ChunkSize, sink); err != nil {
			return nil, err
		}
	case req.Each != nil:
		if err := res.inChunks(v, req, count, sink); err != nil {
			return nil, err
		}
	case count:
		if err := res.countPassed(v, req.ChunkSize, sink); err != nil {
			return nil, err
		}
	default:
		res.Items = v.Run(res.Sources)
		res.noteCopies(res.Items)
		sink = nil
	}
	if v.Cache != nil {
		res.CacheErr = v.Cache.Save()
	}
	if req.RunFiles && req.Spaces.Project != nil {
		if g == nil {
			if repo, aiPrefix, err := OpenRepo(req.Spaces.Project.Root); err == nil {
				g = &Git{Repo: repo, AIPrefix: aiPrefix}
			}
		}
		if g != nil {
			if res.RunFiles, err = trackedRunFiles(g); err != nil {
				return nil, err
			}
		}
	}
	if req.NestedProjects && req.Spaces.Project != nil {
		if g == nil {
			if repo, aiPrefix, err := OpenRepo(req.Spaces.Project.Root); err == nil {
				g = &Git{Repo: repo, AIPrefix: aiPrefix}
			}
		}
		if g != nil {
			if res.Nested, err = nestedProjects(g, req.Spaces.Project, ref, req.InRun); err != nil {
				return nil, err
			}
			if res.CaseVariants, err = caseVariants(g, req.Spaces.Project); err != nil {
				return nil, err
			}
		}
	}
	if ref != "" {
		if err := res.rollbacks(g, ref); err != nil {
			return nil, requestError(FieldTrustRef, err)
		}
		if req.Spaces.Project != nil && g != nil {
			if res.LayoutChange, err = layoutChange(g, ref, req.Spaces.Project); err != nil {
				return nil, requestError(FieldTrustRef, err)
			}
		}
	}
	if req.Sink != nil && sink == nil { // not handed on chunk by chunk
		if err := req.Sink(res.Items); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// noItemsYet is the note of a run over every item of one space that has
// none.
func noItemsYet(sp *space.Space, kinds []item.Kind) string {
	what := "items"
	if len(kinds) == 1 {
		what = kinds[0].Folder() // tools, directives, knowledge
	}
	whose := "the project"
	if sp.Name == space.User {
		whose = "your user space (" + sp.DisplayPath("") + ")"
	}
	return whose + " has no " + what + " yet: nothing to verify"
}

// inChunks verifies the sources a chunk at a time and hands each chunk to
// req.Each while its bytes are held (see Request.Each), then to sink
// (when set); count keeps only the problems in Items (Request.CountPassed).
func (res *Results) inChunks(v *verifier, req Request, count bool, sink func([]Result) error) error {
	size := req.ChunkSize
	if size <= 0 {
		size = 2048
	}
	if !count {
		res.Items = make([]Result, 0, len(res.Sources))
	}
	var reads []func() ([]byte, error)
	return v.runChunks(res.Sources, size, func(chunk []Source) {
		reads = reads[:0]
		for i := range chunk {
			reads = append(reads, chunk[i].Read)
			chunk[i].Read = readOnce(chunk[i].Bytes)
		}
	}, func(first int, chunk []Source, items []Result) error {
		res.keep(items, count)
		res.noteCopies(items)
		if err := req.Each(res.Sources, first, len(chunk), items); err != nil {
			return err
		}
		if sink != nil {
			if err := sink(items); err != nil {
				return err
			}
		}
		if !req.KeepBytes && req.Trust.Ref() == "" {
			for i := range chunk {
				chunk[i].Read = reads[i]
			}
		}
		return nil
	})
}

// countPassed verifies the sources a chunk at a time (chunkSize, 0: 4096:
// enough to keep the workers busy, few enough that their results are
// small), hands each chunk's results to sink (when set), keeps those that
// failed or carry warnings and counts the others; each chunk's sources
// are let go once verified (Request.CountPassed).
func (res *Results) countPassed(v *verifier, chunkSize int, sink func([]Result) error) error {
	size := chunkSize
	if size <= 0 {
		size = 4096
	}
	err := v.runChunks(res.Sources, size, nil, func(_ int, chunk []Source, items []Result) error {
		res.noteCopies(items)
		res.keep(items, true)
		clear(chunk) // their paths and ids go with them
		if sink != nil {
			return sink(items)
		}
		return nil
	})
	res.Sources = nil
	return err
}

// keep adds a chunk's results to Items; with count, only those that
// failed or carry warnings, the others counted in Passed.
func (res *Results) keep(items []Result, count bool) {
	if !count {
		res.Items = append(res.Items, items...)
		return
	}
	for _, r := range items {
		if r.Verdict.Failed() || len(r.Warnings) > 0 {
			res.Items = append(res.Items, r)
		} else {
			res.Passed++
		}
	}
}

// stagedBase is what a staged check compares the index with: HEAD's files
// below .ai/, when HEAD's trusted keys and configuration are the index's
// (an item the commit does not change then keeps its verdict), else nil
// (every staged item is verified: the commit changes what they are judged
// by). No HEAD yet (a first commit) is nil too. Under --trust-ref it is not
// asked: the ref's keys judge every staged item.
//
// A local run (local: the verdict cache allowed) reads HEAD's trees with
// the index's cache tree (gitrepo.TreeSeeingIndex): only the folders the
// commit changes.
func stagedBase(g *Git, local bool) (map[string]gitrepo.File, error) {
	tree := g.Repo.Tree
	if local {
		tree = func(ref, prefix string, _ int64) (map[string]gitrepo.File, error) {
			return g.Repo.TreeSeeingIndex(ref, prefix)
		}
	}
	head, err := tree("HEAD", g.AIPrefix, 0)
	if err != nil {
		return nil, nil // no commit yet
	}
	index, err := g.Repo.Index(g.AIPrefix, 0)
	if err != nil {
		return nil, err
	}
	judging := func(rel string) bool {
		return strings.HasPrefix(rel, TrustedKeysDir+"/") || strings.HasPrefix(rel, ErasKeysDir+"/") || rel == strings.TrimPrefix(config.Path, space.AIDir+"/")
	}
	for rel, f := range index {
		if judging(rel) && (head[rel].Blob != f.Blob || head[rel].Symlink != f.Symlink) {
			return nil, nil
		}
	}
	for rel := range head {
		if _, ok := index[rel]; judging(rel) && !ok {
			return nil, nil
		}
	}
	return head, nil
}

// rollbacks fails the verified project items that the change replaces with
// an older signature than the trusted ref's: an old, validly signed version
// (with a known flaw, say) must not come back unnoticed. Items are matched
// by kind and id, not by path, so a version brought back under another
// file form is still compared; an item the ref no longer has is compared
// with its last version in the ref's history, and must be signed after the
// commit that deleted it. A v2 signature binds its time, so a time that is
// not later than the one it replaces is a rollback (two versions signed in
// the same second cannot be ordered, so that fails too); a v1 signature's
// time is not signed, so a v1 item replacing a v2 one cannot prove it is
// newer and fails too, while a v1 version at the ref gives nothing to
// compare against (docs/verify.md says so).
func (res *Results) rollbacks(g *Git, ref string) error {
	type key struct {
		k  item.Kind
		id item.ID
	}
	var old map[key]gitrepo.File
	var files map[string]gitrepo.File // the ref's files below .ai/
	var keysAt map[string][]string    // the ref's legacy items (of every project) by copy key
	var gone []string
	wants := map[key][]int{}
	for i, src := range res.Sources {
		if res.Items[i].Verdict != Verified || src.In == nil || src.In.Name != space.Project {
			continue
		}
		if old == nil {
			var err error
			if files, err = g.Repo.Tree(ref, g.AIPrefix, 0); err != nil {
				return err
			}
			old = map[key]gitrepo.File{}
			for rel, f := range files {
				if k, id, ext, err := space.KindAndID(rel); err == nil && k.HasExtension(ext) {
					old[key{k, id}] = f
				}
			}
		}
		if ck := res.Items[i].CopyKey; ck != "" {
			// A legacy item that carries the signature of another path's
			// item at the ref: a copy the change made, which that signature
			// lets pass. Compared by signature, not by bytes: the parts a
			// legacy format leaves out (a #! line, line ends) may differ.
			data, err := src.Bytes()
			if was, ok := files[src.Rel]; err == nil && !(ok && was.Same(data)) { // unchanged: no copy the change made
				if keysAt == nil {
					if keysAt, err = legacyKeysAt(g, ref); err != nil {
						return err
					}
				}
				self := path.Join(g.AIPrefix, src.Rel)
				for _, full := range keysAt[ck] {
					if full != self {
						r := res.Items[i]
						res.Copies = append(res.Copies, Copy{Kind: r.Kind, ID: r.ID, Path: r.Path, Of: ref + ":" + full, Format: r.Format})
						break
					}
				}
			}
		}
		kid := key{src.Kind, src.ID}
		if f, ok := old[kid]; ok {
			res.compare(i, g, ref, f, "the version at "+ref, time.Time{})
			continue
		}
		if len(wants[kid]) == 0 {
			for _, ext := range src.Kind.Extensions() {
				gone = append(gone, space.Rel(src.Kind, src.ID, ext))
			}
		}
		wants[kid] = append(wants[kid], i)
	}
	if len(gone) == 0 {
		return nil
	}
	deleted, err := g.Repo.Deleted(ref, g.AIPrefix, gone, maxHistory)
	if err != nil {
		return err
	}
	for rel, d := range deleted {
		k, id, _, _ := space.KindAndID(rel)
		for _, i := range wants[key{k, id}] {
			res.compare(i, g, ref, d.Last, fmt.Sprintf("its last version before %s deleted it (commit %.12s)", ref, d.Commit), d.When)
		}
	}
	return nil
}

// legacyKeysAt reads the files of every project of the repository at ref
// (every file below a .ai/ folder, whatever its layout: rye's, or a RYE
// OS tree's) and returns the paths of those signed in a format that does
// not bind their location, from the repository's top, by copy key
// (sign.CopyKey): a copy may come from another project that trusts the
// same key. A file that cannot be read (a link, one over MaxItemSize) is
// left out: it is no signed item a copy could carry.
func legacyKeysAt(g *Git, ref string) (map[string][]string, error) {
	files, err := g.Repo.Tree(ref, "", 0)
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for full, f := range files {
		if !strings.Contains("/"+full, "/"+space.AIDir+"/") || f.Symlink {
			continue
		}
		data, err := g.Repo.Blob(f, space.MaxItemSize)
		if err != nil {
			continue
		}
		if ck := sign.CopyKey(sign.Find(data, path.Ext(full)).Line); ck != "" {
			out[ck] = append(out[ck], full)
		}
	}
	for _, paths := range out {
		slices.Sort(paths) // the first other path names the copy: the same one every run
	}
	return out, nil
}

// maxHistory bounds how far back rollbacks looks for an item that the ref
// deleted.
const maxHistory = 2000

// compare fails item i when its signature is not newer than that of the
// older version was (a blob of the ref or of its history), or, for an item
// the ref deleted, than the deletion (after, when not zero).
func (res *Results) compare(i int, g *Git, ref string, was gitrepo.File, what string, after time.Time) {
	r := &res.Items[i]
	data, err := res.Sources[i].Bytes()
	if err != nil || (after.IsZero() && was.Same(data)) { // unchanged since the ref
		return
	}
	before, err := g.Repo.Blob(was, space.MaxItemSize)
	if err != nil {
		return // the older file is not an item rye could have verified
	}
	then, now := sign.Find(before, path.Ext(r.Path)), sign.Find(data, path.Ext(r.Path))
	if now.Status != sign.Signed {
		return
	}
	nowAt := now.Line.Timestamp
	if !after.IsZero() && now.Line.Format == sign.V2 && nowAt < after.UTC().Format(sign.TimeLayout) {
		r.Verdict, r.Reason = rollback, fmt.Sprintf("signed at %s, before %s deleted it at %s: this change brings back a version older than the deletion; if that is intended, sign it again: rye sign %s %s", nowAt, ref, after.UTC().Format(sign.TimeLayout), r.Kind, r.ID)
		return
	}
	if then.Status != sign.Signed || then.Line.Format != sign.V2 {
		return
	}
	wasAt := then.Line.Timestamp
	switch {
	case now.Line.Format != sign.V2:
		r.Verdict, r.Reason = rollback, fmt.Sprintf("%s is signed v2 at %s; this change replaces it with a %s signature, whose time is not signed, so it cannot show it is not an older version; sign it with v2: rye sign --format v2 %s %s", what, wasAt, now.Line.Format, r.Kind, r.ID)
	case nowAt == wasAt:
		r.Verdict, r.Reason = rollback, fmt.Sprintf("signed at %s, the same second as %s with other content: rye cannot tell which is newer; sign it again with a later time (without a fixed SOURCE_DATE_EPOCH): rye sign %s %s", nowAt, what, r.Kind, r.ID)
	case nowAt < wasAt: // the fixed-width UTC timestamps compare as text
		r.Verdict, r.Reason = rollback, fmt.Sprintf("signed at %s, earlier than %s (signed at %s): this change puts back an older version; if that is intended, sign it again: rye sign %s %s", nowAt, what, wasAt, r.Kind, r.ID)
	}
}

// changedSince keeps the sources of project space sp that changed since
// ref, and notes what changed and what was deleted. With stat (a run that
// may use caches), a file the git index vouches for by its stat data is not
// read; without (--no-cache, CI), every file is read and hashed.
func (res *Results) changedSince(g *Git, ref string, sp *space.Space, srcs []Source, kinds []item.Kind, stat bool) ([]Source, error) {
	changed, deleted, err := ChangedSince(g.Repo, ref, g.AIPrefix, srcs, kinds, sp, stat)
	if err != nil {
		return nil, requestError(FieldChangedSince, err)
	}
	for _, d := range deleted {
		res.Notes = append(res.Notes, d.Note(ref, sp))
	}
	res.Notes = append(res.Notes, fmt.Sprintf("%s of %s changed since %s", report.Plural(len(changed), "item"), report.Count(len(srcs)), ref))
	return changed, nil
}

// readOnce remembers what read returns, so that a second reader (lint in
// rye check) gets the very bytes that were verified.
func readOnce(read func() ([]byte, error)) func() ([]byte, error) {
	var once sync.Once
	var data []byte
	var err error
	return func() ([]byte, error) {
		once.Do(func() { data, err = read() })
		return data, err
	}
}

// RequestErrorOf marks err as a problem with a field of a request (see
// RequestError), for the pipelines built on this one (lint).
func RequestErrorOf(field string, err error) error { return requestError(field, err) }

// Copy is an item that is a copy of another file under another name.
type Copy struct {
	Kind   item.Kind
	ID     item.ID
	Path   string // the copy, as shown
	Of     string // the other file: as shown, or REF:path
	Format string
}

// SeenCopies is the first path of each copy key (Result.CopyKey) seen in
// one run, over all its projects (Request.Copies). The zero value is
// ready to use.
type SeenCopies struct {
	mu    sync.Mutex
	first map[string]string
}

// noteCopies records the items of results that carry another item's
// signature (Result.CopyKey), keeping one key and path per such item.
func (res *Results) noteCopies(results []Result) {
	s := res.seen
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range results {
		r := &results[i]
		if r.CopyKey == "" || r.Verdict != Verified {
			continue
		}
		if s.first == nil {
			s.first = map[string]string{}
		}
		first, seen := s.first[r.CopyKey]
		switch {
		case !seen:
			s.first[r.CopyKey] = r.Path
		case first != r.Path: // one file read as two kinds is not a copy
			res.Copies = append(res.Copies, Copy{Kind: r.Kind, ID: r.ID, Path: r.Path, Of: first, Format: r.Format})
		}
	}
}

// kindsOf is kinds, or every kind of the space's layout for nil.
func kindsOf(sp *space.Space, kinds []item.Kind) []item.Kind {
	switch {
	case kinds != nil:
		return kinds
	case sp.Layout().RyeOS:
		return item.RyeOSKinds
	}
	return item.Kinds
}
