package atomicfile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/ryekit/rye/internal/par"
)

// Batch replaces many files atomically with a few disk barriers instead of
// one fsync per file. Stage writes each new content to a temporary file next
// to its target; Commit makes all of them durable (one barrier), renames
// each over its target, and makes the renames durable (a second barrier).
// Every target is at every moment either its old bytes or its new bytes,
// whatever is killed when: a crash before a rename leaves the old file (and
// a stale temporary file, which CleanStale removes); after it, the new one.
//
// On Linux a barrier is syncfs(2) on each filesystem involved; elsewhere it
// is an fsync of every staged file (and of every directory, where the
// platform can). On this project's 2-core machine one fsync costs about half
// a millisecond and they do not overlap, so signing ten thousand items with
// one fsync each would take five seconds of barriers alone.
type Batch struct {
	mu      sync.Mutex
	pending []pending
}

type pending struct{ target, tmp string }

// renameWorkers is how many renames Commit runs at once.
const renameWorkers = 8

// TempPrefix marks rye's temporary files: a dot (so that walks skip them),
// the target's name, then this.
const TempPrefix = ".rye-tmp-"

// firstTemp is the name a target's temporary file is tried under first:
// one name per target, so that what a killed run left can be removed
// without listing the folder (CleanStaleOf). Another run staging the same
// target at the same moment finds it taken and uses a random name.
func firstTemp(target string) string {
	return filepath.Join(filepath.Dir(target), "."+filepath.Base(target)+TempPrefix+"0")
}

// Stage writes data to a temporary file beside target, with permission
// bits perm (callers pass the target's current mode to keep it). Safe for
// concurrent use.
func (b *Batch) Stage(target string, data []byte, perm fs.FileMode) error {
	tmp := firstTemp(target)
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if errors.Is(err, fs.ErrExist) {
		var rnd [6]byte
		if _, err := rand.Read(rnd[:]); err != nil {
			return err
		}
		tmp = filepath.Join(filepath.Dir(target), "."+filepath.Base(target)+TempPrefix+hex.EncodeToString(rnd[:]))
		f, err = os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	}
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	if err := f.Chmod(perm); werr == nil {
		werr = err // the umask must not change the mode
	}
	if err := f.Close(); werr == nil {
		werr = err
	}
	if werr != nil {
		os.Remove(tmp)
		return werr
	}
	b.mu.Lock()
	b.pending = append(b.pending, pending{target, tmp})
	b.mu.Unlock()
	return nil
}

// Commit makes the staged files durable and renames them into place. It
// returns the targets that could not be replaced, with why; the others are
// done. The batch is empty afterwards.
func (b *Batch) Commit() map[string]error {
	b.mu.Lock()
	ps := b.pending
	b.pending = nil
	b.mu.Unlock()
	failed := map[string]error{}
	if len(ps) == 0 {
		return failed
	}
	tmps := make([]string, len(ps))
	for i, p := range ps {
		tmps[i] = p.tmp
	}
	unsynced := barrier(tmps)
	// Rename in parallel: on ext4 renames in different folders overlap,
	// and replacing ten thousand files one by one takes twice as long.
	renameErrs := make([]error, len(ps))
	par.For(len(ps), renameWorkers, func(i int) {
		err := unsynced[ps[i].tmp]
		if err == nil {
			err = os.Rename(ps[i].tmp, ps[i].target)
		}
		if err != nil {
			os.Remove(ps[i].tmp)
		}
		renameErrs[i] = err
	})
	var dirs []string
	seen := map[string]bool{}
	renamed := ps[:0:0]
	for i, p := range ps {
		if renameErrs[i] != nil {
			failed[p.target] = renameErrs[i]
			continue
		}
		renamed = append(renamed, p)
		if d := filepath.Dir(p.target); !seen[d] {
			seen[d] = true
			dirs = append(dirs, d)
		}
	}
	unflushed := barrier(dirs)
	for _, p := range renamed {
		if err := unflushed[filepath.Dir(p.target)]; err != nil {
			// The rename happened; only its durability is in doubt.
			failed[p.target] = errors.New("replaced, but flushing its folder failed: " + err.Error())
		}
	}
	return failed
}

// CleanStaleOf removes the temporary file an interrupted batch left for
// target under its first name (Stage), without listing its folder: what
// signing a few items does, where listing a folder of thousands would cost
// more than the signing. The rare leftover under a random name (two runs
// staged the same target at once) is CleanStale's.
func CleanStaleOf(target string) {
	os.Remove(firstTemp(target))
}

// CleanStale removes the temporary files that an interrupted batch left in
// dir.
func CleanStale(dir string) {
	matches, _ := filepath.Glob(filepath.Join(escapeGlob(dir), ".*"+TempPrefix+"*"))
	for _, m := range matches {
		os.Remove(m)
	}
}

func escapeGlob(s string) string {
	return strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`).Replace(s)
}
