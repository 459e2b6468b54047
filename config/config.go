// Package config reads rye's configuration files (spec 4.4):
// .ai/config/rye.yaml in the project and <user space>/.ai/config/rye.yaml.
// Unknown keys are an error, because a misspelt key must never silently
// turn a check off.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Path is where the configuration lives below a space root.
const Path = ".ai/config/rye.yaml"

// MaxSize bounds a configuration file: a larger one is an error, not a
// reason to read without end.
const MaxSize = 1 << 20

// Config is one configuration file. Zero values mean "not set".
type Config struct {
	// MinSignatureVersion is 1 or 2; 2 turns v1 signatures into failures.
	MinSignatureVersion int     `yaml:"min_signature_version"`
	Lint                Lint    `yaml:"lint"`
	Sign                sign    `yaml:"sign"`
	Verify              verify  `yaml:"verify"`
	Execute             Execute `yaml:"execute"`
}

// Lint configures rye lint.
type Lint struct {
	Enable   []string          `yaml:"enable"`
	Disable  []string          `yaml:"disable"`
	Severity map[string]string `yaml:"severity"` // analyzer → error|warning|info|off
}

// sign configures rye sign.
type sign struct {
	Format string `yaml:"format"` // v1, v2, ryeos or r1
}

// verify configures rye verify and rye check.
type verify struct {
	// TrustRef is honoured from the user's own file only (see Settings).
	TrustRef string `yaml:"trust_ref"`
}

// Execute configures rye execute; it is honoured from the user's own file
// only: what the executor may run must not be chosen by the project it
// runs.
type Execute struct {
	// ProjectInterpreters lets the venv_python and node_modules
	// interpreters come from the project's .venv/ and node_modules/ (when
	// git does not track them). Off by default.
	ProjectInterpreters bool `yaml:"project_interpreters"`
	// RequireSandbox refuses to run a tool that declares no sandbox
	// block: every tool then runs confined or not at all. Off by
	// default.
	RequireSandbox bool `yaml:"require_sandbox"`
}

// Default is the file rye init writes into a project.
const Default = `# rye configuration (see docs/configuration.md). Unknown keys are an error.
# A project's file can make checks stricter, never looser: the trust ref and
# what rye execute may run come from flags and your own ~/.ai/config/rye.yaml.

# 2 accepts rye's v2 signatures only, which bind each item to its kind and id;
# 1 also accepts the reference implementation's v1 (and RYE OS's later eras),
# which do not: a signed file copied over another still verifies.
min_signature_version: 2

sign:
  format: v2          # v2 (rye's own) or v1 (readable by the Python reference)

lint:
  enable: []
  disable: []
  severity: {}        # analyzer: error | warning | info | off
`

// Parse reads one configuration file; name is used in messages.
func Parse(name string, data []byte) (*Config, error) {
	var c Config
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: %s", name, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if err := c.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &c, nil
}

func (c *Config) check() error {
	switch c.MinSignatureVersion {
	case 0, 1, 2:
	default:
		return fmt.Errorf("min_signature_version: %d is not 1 or 2", c.MinSignatureVersion)
	}
	switch c.Sign.Format {
	case "", "v1", "v2", "ryeos", "r1":
	default:
		return fmt.Errorf("sign.format: %q is not v1, v2, ryeos or r1", c.Sign.Format)
	}
	// lint.severity names analyzers, which only package lint knows: lint
	// checks the names and the values, once, where they are used.
	return nil
}

// read reads the configuration file of a space root ("" or a missing file:
// nil). A file over MaxSize is an error.
func read(root string) (*Config, error) {
	if root == "" {
		return nil, nil
	}
	p := filepath.Join(root, filepath.FromSlash(Path))
	// Not through a link, and only a regular file: a project's link to a
	// file elsewhere would print its first bytes in an error, and a FIFO or
	// a device would hang the run.
	info, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file (a symbolic link, a folder or a device); rye reads its configuration only from a plain file", p)
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxSize+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", p, err)
	}
	if len(data) > MaxSize {
		return nil, fmt.Errorf("%s: larger than %d bytes; a configuration file is a few lines", p, MaxSize)
	}
	return Parse(p, data)
}

// Settings are the configuration files rye reads, kept apart by who can
// write them: the user's own file, the project's file in the tree under
// check (which a change under review controls), and, when the run is
// anchored to a trusted git ref (--trust-ref), the project's file at that
// ref. What loosens a check comes only from the trusted files; the tree's
// file can only make checks stricter (see each method).
type Settings struct {
	User    *Config // <user space>/.ai/config/rye.yaml; nil when absent
	Project *Config // the project's file in the tree under check; nil when absent
	// Trusted is the project's file at the trusted ref; nil without one.
	Trusted *Config
	// TrustRef is the ref the run is anchored to ("" for none): the
	// command line's, else the user's verify.trust_ref.
	TrustRef string
	// ProjectPath names the project's file in messages.
	ProjectPath string
}

// Load reads the user's and the project's files (either root may be "").
func Load(userRoot, projectRoot string) (*Settings, error) {
	user, err := read(userRoot)
	if err != nil {
		return nil, err
	}
	project, err := read(projectRoot)
	if err != nil {
		return nil, err
	}
	s := &Settings{User: user, Project: project}
	if projectRoot != "" {
		s.ProjectPath = filepath.Join(projectRoot, filepath.FromSlash(Path))
	}
	return s, nil
}

// files lists the files that are present, trusted ones first.
func (s *Settings) files() []*Config {
	var out []*Config
	for _, c := range []*Config{s.User, s.Trusted, s.Project} {
		if c != nil {
			out = append(out, c)
		}
	}
	return out
}

// MinSignatureVersion is the strictest of every file: the project's file
// can raise it, never lower what the user's file or the trusted ref asks.
func (s *Settings) MinSignatureVersion() int {
	v := 1
	for _, c := range s.files() {
		v = max(v, c.MinSignatureVersion)
	}
	return v
}

// SignFormat is the format rye sign writes: the project's choice, else the
// user's, else "" (rye's default: v2, or ryeos in a RyeOS 0.2+ project).
// It decides how the user signs, not what passes.
func (s *Settings) SignFormat() string {
	for _, c := range []*Config{s.Project, s.User} {
		if c != nil && c.Sign.Format != "" {
			return c.Sign.Format
		}
	}
	return ""
}

// UserTrustRef is the user's verify.trust_ref. A project's is never
// honoured: a change under review could rewrite it (see IgnoredTrustRef).
func (s *Settings) UserTrustRef() string {
	if s.User == nil {
		return ""
	}
	return s.User.Verify.TrustRef
}

// IgnoredTrustRef is the project's verify.trust_ref, which rye ignores and
// reports, so that nobody believes it protects them.
func (s *Settings) IgnoredTrustRef() string {
	if s.Project == nil {
		return ""
	}
	return s.Project.Verify.TrustRef
}

// ProjectInterpreters is the user's execute.project_interpreters.
func (s *Settings) ProjectInterpreters() bool {
	return s.User != nil && s.User.Execute.ProjectInterpreters
}

// RequireSandbox is the user's execute.require_sandbox. A project's is
// ignored (and reported by Notes): what rye runs is the user's decision,
// and a project that wants its tools confined declares sandbox blocks.
func (s *Settings) RequireSandbox() bool {
	return s.User != nil && s.User.Execute.RequireSandbox
}

// Lint returns the lint settings a run relies on, and those of the tree
// under check that may only make them stricter. Without a trusted ref the
// project's file is the project's own choice and is merged over the
// user's (tighten is nil). With one, the base is the user's file and the
// ref's, and the tree's file comes back as tighten: it may add analyzers
// and raise severities, nothing else (package lint applies that rule).
func (s *Settings) Lint() (base Lint, tighten *Lint) {
	if s.TrustRef == "" {
		for _, c := range []*Config{s.User, s.Project} {
			if c != nil {
				base = base.merge(c.Lint)
			}
		}
		return base, nil
	}
	for _, c := range []*Config{s.User, s.Trusted} {
		if c != nil {
			base = base.merge(c.Lint)
		}
	}
	if s.Project != nil {
		l := s.Project.Lint
		tighten = &l
	}
	return base, tighten
}

// ignored is a setting of the project's file that rye does not take, and
// why: the caller says what to do instead (a flag, the user's file).
type ignored struct {
	File, Key string
	Value     string // "" when the value says nothing
	Why       string
}

func (i ignored) String() string {
	v := ""
	if i.Value != "" {
		v = fmt.Sprintf(" (%q)", i.Value)
	}
	return fmt.Sprintf("%s: %s%s is ignored: %s", i.File, i.Key, v, i.Why)
}

// Keys of the project settings that Ignored reports.
const (
	KeyTrustRef            = "verify.trust_ref"
	keyProjectInterpreters = "execute.project_interpreters"
)

// Ignored are the project's settings rye did not take, so that nobody
// believes they protect them.
func (s *Settings) Ignored() []ignored {
	var out []ignored
	if ref := s.IgnoredTrustRef(); ref != "" {
		out = append(out, ignored{File: s.ProjectPath, Key: KeyTrustRef, Value: ref, Why: "the tree under check could rewrite it"})
	}
	if s.Project != nil && s.Project.Execute.ProjectInterpreters {
		out = append(out, ignored{File: s.ProjectPath, Key: keyProjectInterpreters, Why: "only your own configuration can let a project choose what rye runs"})
	}
	if s.Project != nil && s.Project.Execute.RequireSandbox {
		out = append(out, ignored{File: s.ProjectPath, Key: "execute.require_sandbox", Why: "it is read from your own configuration only (a project confines its tools by declaring sandbox blocks)"})
	}
	return append(out, s.ignoredLint()...)
}

// ignoredLint names what the tree's lint settings ask that a run anchored
// to a trust ref does not take (Lint): analyzers turned off, severities
// lowered. A change under review cannot silence a check.
func (s *Settings) ignoredLint() []ignored {
	base, tighten := s.Lint()
	if tighten == nil {
		return nil
	}
	var out []ignored
	for _, name := range tighten.Disable {
		for _, n := range strings.Split(name, ",") {
			if n = strings.TrimSpace(n); n != "" {
				out = append(out, ignored{File: s.ProjectPath, Key: "lint.disable", Value: n, Why: "under the trust ref " + s.TrustRef + " the file of the tree under check can only make lint stricter"})
			}
		}
	}
	rank := map[string]int{"off": 0, "info": 1, "warning": 2, "error": 3}
	names := make([]string, 0, len(tighten.Severity))
	for name := range tighten.Severity {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		sev := tighten.Severity[name]
		trusted, ok := base.Severity[name]
		if ok && rank[sev] >= rank[trusted] || !ok && sev == "error" {
			continue
		}
		out = append(out, ignored{File: s.ProjectPath, Key: "lint.severity." + name, Value: sev, Why: "under the trust ref " + s.TrustRef + " the file of the tree under check can only raise a severity"})
	}
	return out
}

// merge returns l with o's settings added: lists appended, severities
// replaced.
func (l Lint) merge(o Lint) Lint {
	out := Lint{Enable: append(append([]string(nil), l.Enable...), o.Enable...), Disable: append(append([]string(nil), l.Disable...), o.Disable...)}
	for _, m := range []map[string]string{l.Severity, o.Severity} {
		for k, v := range m {
			if out.Severity == nil {
				out.Severity = map[string]string{}
			}
			out.Severity[k] = v
		}
	}
	return out
}
