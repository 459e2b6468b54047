package space

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ryekit/rye/item"
)

// Spaces are the spaces rye searches, in precedence order.
type Spaces struct {
	Project *Space   // nil outside a project
	User    *Space   // nil when neither USER_SPACE nor HOME is set
	System  []*Space // the embedded bundle, then each RYE_SYSTEM_PATH root
	// WorkDir is the directory the project's paths are shown relative to
	// (Space.Shown): where rye acts.
	WorkDir string
}

// Options say where rye runs and what its environment is.
type Options struct {
	// WorkDir is the directory rye acts as if started in (-C).
	WorkDir string
	// ProjectDir, when set (--project), is the project root itself: no
	// search upwards.
	ProjectDir string
	// Getenv reads the environment (os.Getenv in the binary, a map in tests).
	Getenv func(string) string
	// NoEmbedded leaves the embedded bundle out (tests of resolution only).
	NoEmbedded bool
}

// Discover finds the spaces of spec 1.3.
func Discover(o Options) (*Spaces, error) {
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	ss := &Spaces{WorkDir: o.WorkDir}
	userRoot := getenv("USER_SPACE")
	if userRoot == "" {
		userRoot = getenv("HOME")
	}
	if userRoot != "" {
		abs, err := filepath.Abs(userRoot)
		if err != nil {
			return nil, err
		}
		ss.User = NewDiskSpace(User, abs, "")
	}
	switch {
	case o.ProjectDir != "":
		abs, err := filepath.Abs(o.ProjectDir)
		if err != nil {
			return nil, err
		}
		ss.Project = NewDiskSpace(Project, abs, "")
	default:
		root, err := FindProjectRoot(o.WorkDir, userRoot)
		if err != nil {
			return nil, err
		}
		if root != "" {
			ss.Project = NewDiskSpace(Project, root, "")
		}
	}
	if ss.Project != nil {
		ss.Project.Shown = relativeTo(o.WorkDir, ss.Project.Root)
	}
	if !o.NoEmbedded {
		ss.System = append(ss.System, EmbeddedSpace())
	}
	for _, root := range filepath.SplitList(getenv("RYE_SYSTEM_PATH")) {
		if root == "" {
			continue
		}
		abs, err := filepath.Abs(root)
		if err != nil {
			return nil, err
		}
		if info, err := os.Stat(filepath.Join(abs, AIDir)); err != nil || !info.IsDir() {
			return nil, fmt.Errorf("RYE_SYSTEM_PATH entry %s has no %s/ folder", root, AIDir)
		}
		// A system root's keys are trusted even under --trust-ref: it must
		// not be a folder the project (a change under review) can write.
		if ss.Project != nil && Within(ss.Project.Root, abs) {
			return nil, fmt.Errorf("RYE_SYSTEM_PATH entry %s is inside the project %s: a change to the project could write it; point RYE_SYSTEM_PATH outside the project", root, ss.Project.Root)
		}
		ss.System = append(ss.System, NewDiskSpace(System, abs, "system:"+abs))
	}
	return ss, nil
}

// FindProjectRoot returns the nearest directory, from dir upwards, that
// contains a .ai/ folder, or "" when there is none. The user space's root
// is skipped: ~/.ai is personal, not a project. So is a folder inside a
// .ai/ folder: it belongs to the project above, and a .ai/ folder a change
// plants in .ai/tools must not make rye check .ai/tools/ (or -C
// .ai/tools) look at that planted project in place of the real one.
func FindProjectRoot(dir, userRoot string) (string, error) {
	if dir == "" {
		var err error
		if dir, err = os.Getwd(); err != nil {
			return "", err
		}
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if userRoot != "" {
		userRoot, _ = filepath.Abs(userRoot)
	}
	start := dir
	for {
		if dir != userRoot && !inAIFolder(dir) {
			if info, err := os.Stat(filepath.Join(dir, AIDir)); err == nil && info.IsDir() {
				// Found above where rye started: like git, refuse a folder
				// another user owns (someone's /tmp/.ai must not become
				// everybody's project below /tmp).
				if dir != start {
					if err := ownedByCaller(filepath.Join(dir, AIDir)); err != nil {
						return "", &ForeignProjectError{Dir: dir, Err: err}
					}
				}
				return dir, nil
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", nil
		}
		dir = parent
	}
}

// inAIFolder reports whether the absolute path dir is a .ai folder or lies
// in one.
func inAIFolder(dir string) bool {
	for _, part := range strings.Split(filepath.ToSlash(dir), "/") {
		if part == AIDir {
			return true
		}
	}
	return false
}

// ForeignProjectError is a project found above where rye started in a
// folder that another user controls: like git, rye does not take it (a
// /tmp/.ai must not become the project of everybody below /tmp) unless the
// caller names it exactly.
type ForeignProjectError struct {
	Dir string
	Err error
}

func (e *ForeignProjectError) Error() string {
	return fmt.Sprintf("%v; rye does not take a project from a folder above this one that another user controls", e.Err)
}

func (e *ForeignProjectError) Unwrap() error { return e.Err }

// Within reports whether path is base or inside it (lexically: the
// callers resolve links first where that matters).
func Within(base, path string) bool {
	rel, err := filepath.Rel(base, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// relativeTo returns target relative to base when that is possible, else
// target itself.
func relativeTo(base, target string) string {
	if base == "" {
		var err error
		if base, err = os.Getwd(); err != nil {
			return target
		}
	}
	base, err := filepath.Abs(base)
	if err != nil {
		return target
	}
	if rel, err := filepath.Rel(base, target); err == nil {
		return rel
	}
	return target
}

// All returns the spaces in precedence order.
func (ss *Spaces) All() []*Space {
	var out []*Space
	if ss.Project != nil {
		out = append(out, ss.Project)
	}
	if ss.User != nil {
		out = append(out, ss.User)
	}
	return append(out, ss.System...)
}

// From returns the spaces searched for a dependency of an element found in
// space s (spec 3.2): project searches all three tiers, user searches user
// then system, system only system. A nil s means all.
func (ss *Spaces) From(s *Space) []*Space {
	var out []*Space
	for _, sp := range ss.All() {
		if s == nil || sp.Name.Rank() <= s.Name.Rank() {
			out = append(out, sp)
		}
	}
	return out
}

// Named returns the spaces of one tier ("project", "user", "system") or all
// of them ("all").
func (ss *Spaces) Named(name string) ([]*Space, error) {
	if name == "all" || name == "" {
		return ss.All(), nil
	}
	var out []*Space
	for _, sp := range ss.All() {
		if string(sp.Name) == name {
			out = append(out, sp)
		}
	}
	switch Name(name) {
	case Project, User, System:
		return out, nil
	}
	return nil, fmt.Errorf("unknown space %q: use project, user, system or all", name)
}

// Located is an item file found by resolution.
type Located struct {
	Space *Space
	Kind  item.Kind
	ID    item.ID
	Rel   string // relative to .ai/
}

// Path is the file as shown to users.
func (l *Located) Path() string { return l.Space.DisplayPath(l.Rel) }

// Load reads the located item.
func (l *Located) Load() (*item.Item, error) { return l.Space.Load(l.Kind, l.ID, l.Rel) }

// NotFoundError says that an item resolves nowhere, and where rye looked.
type NotFoundError struct {
	Kind     item.Kind
	ID       item.ID
	Searched []string // space labels
}

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("%s %q not found (searched %s)", e.Kind, e.ID, strings.Join(e.Searched, ", "))
}

func (e *NotFoundError) Unwrap() error { return ErrNotFound }

// Resolve finds (kind, id) in the given spaces, in order (spec 1.3). A nil
// list means all spaces.
func (ss *Spaces) Resolve(k item.Kind, id item.ID, in []*Space) (*Located, error) {
	if in == nil {
		in = ss.All()
	}
	var searched []string
	for _, sp := range in {
		rel, err := sp.Find(k, id)
		if err == nil {
			return &Located{Space: sp, Kind: k, ID: id, Rel: rel}, nil
		}
		if !errors.Is(err, ErrNotFound) {
			return nil, err
		}
		if len(searched) == 0 || searched[len(searched)-1] != string(sp.Name) {
			searched = append(searched, string(sp.Name))
		}
	}
	return nil, &NotFoundError{Kind: k, ID: id, Searched: searched}
}
