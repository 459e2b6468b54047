package lint

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/ryekit/rye/chain"
	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/lockfile"
	"github.com/ryekit/rye/space"
)

// Lockfile reports a tool whose lockfile no longer matches its chain.
var Lockfile = &analysis.Analyzer{
	Name: "lockfile",
	Doc: `report a lockfile that no longer matches the chain it pins

rye execute writes .ai/lockfiles/<id>@<version>.lock.json after a tool's
first run and refuses the tool once an element of its chain changes (a new
signature, another space, another runtime) until the lock is refreshed
with rye lock tool ID. This analyzer checks the same thing offline, with
the lockfile rye execute would read (project, then user, then system): a
lockfile that does not match, or does not parse, is an error at the tool's
version, with the command that refreshes it.`,
	URL:      docURL("lockfile"),
	Requires: []*analysis.Analyzer{input, parse},
	Run:      runLockfile,
}

func runLockfile(pass *analysis.Pass) (any, error) {
	e, r := env(pass), reporter{pass}
	if e.Spaces == nil {
		return nil, nil
	}
	present := e.lockfiles()
	if len(present) == 0 {
		return nil, nil
	}
	parsed := pass.ResultOf[parse].(parsed)
	load := e.chainLoader(parsed)
	each(e.Files, func(_ int, f *file) {
		md := parsed[f]
		if md == nil || f.Kind != item.Tool || md.Str("executor_id") == "" || !present[lockfile.Rel(f.ID, md.Str("version"))] {
			return
		}
		v := md.Get("version")
		at, end := f.Pos(nodePos(v, md)), endPos(f, v)
		found, err := lockfile.Find(e.Spaces, f.ID, md.Str("version"))
		if err != nil {
			r.at(sevError, "invalid", at, end, err.Error()+"; until then rye execute refuses the tool")
			return
		}
		if found == nil {
			return
		}
		c, err := chain.BuildFrom(e.Spaces, &space.Located{Space: f.Space, Kind: f.Kind, ID: f.ID, Rel: f.Rel}, load, e.sharedState().chainCache())
		if err != nil {
			return // the chain analyzer reports it
		}
		integrity := make([]string, len(c.Elements))
		for i, el := range c.Elements {
			if integrity[i], err = lockfile.Integrity(el.Loc, el.Item.Bytes); err != nil {
				return // unsigned: verification reports it
			}
		}
		var me *lockfile.MismatchError
		if err := found.Check(c, integrity); errors.As(err, &me) {
			r.at(sevError, "stale", at, end, fmt.Sprintf("stale lockfile %s: %s %s: pinned %s, now %s; rye execute refuses the tool until the lock is refreshed: rye lock tool %s", me.Path, me.Element, me.What, me.Pinned, me.Current, me.Tool))
		}
	})
	return nil, nil
}

// lockfiles is the set of lockfile paths (relative to .ai/) present in
// any disk space, listed once per run: most tools have none, and a
// missing file costs no read per space and tool.
func (e *Env) lockfiles() map[string]bool {
	s := e.sharedState()
	s.lockOnce.Do(func() {
		s.locks = map[string]bool{}
		for _, sp := range e.Spaces.All() {
			if sp.Embedded() {
				continue
			}
			root := filepath.Join(sp.AI(), "lockfiles")
			filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() || !strings.HasSuffix(p, ".lock.json") {
					return nil // an unreadable folder: Find reads the file, and says so
				}
				if rel, err := filepath.Rel(sp.AI(), p); err == nil {
					s.locks[filepath.ToSlash(rel)] = true
				}
				return nil
			})
		}
	})
	return s.locks
}
