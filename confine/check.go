package confine

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Landlock ABI versions that matter to rye.
const (
	// ABIFilesystem enforces a filesystem declaration completely: from
	// ABI 3 on, truncate(2) and open(O_TRUNC) are controlled too (before,
	// a tool could empty any file it could read). Linux 6.2.
	ABIFilesystem = 3
	// abiPorts adds TCP bind and connect rules by port. Linux 6.7.
	abiPorts = 4
	// ABIScopes adds the scoping of signals and abstract Unix sockets to
	// the tool's own domain; rye applies it when the kernel has it (it
	// is more than any declaration asks). Linux 6.12.
	ABIScopes = 6
	// maxABI is the newest ABI whose rights rye knows and handles.
	maxABI = 7
)

// Kernel is what the running system offers for confinement.
type Kernel struct {
	OS, Arch string
	// LandlockABI is the ABI Landlock reports through
	// landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	// 0 when there is none, and LandlockErr says why.
	LandlockABI int
	LandlockErr string
	// Seccomp says whether rye can install its filter: the kernel takes
	// filters and rye has a system call table for the architecture.
	Seccomp    bool
	SeccompErr string
}

func (k Kernel) String() string {
	s := fmt.Sprintf("%s/%s, ", k.OS, k.Arch)
	if k.LandlockABI > 0 {
		s += fmt.Sprintf("Landlock ABI %d", k.LandlockABI)
	} else {
		s += "no Landlock"
		if k.LandlockErr != "" {
			s += " (" + k.LandlockErr + ")"
		}
	}
	if !k.Seccomp {
		s += ", no seccomp filter"
		if k.SeccompErr != "" {
			s += " (" + k.SeccompErr + ")"
		}
	}
	return s
}

// Needs is what a declaration asks of the system.
type Needs struct {
	// Ports is true when the declaration lists ":port" entries.
	Ports bool
	// Hosts are the entries that name a host ("example.com:443").
	Hosts []string
	// InProcess, when set, says why the chain runs inside rye rather than
	// in a process of its own (the http_client primitive): a process
	// cannot confine itself for one request and carry on unconfined.
	InProcess string
}

// ABI is the lowest Landlock ABI that enforces the declaration.
func (n Needs) ABI() int {
	if n.Ports {
		return abiPorts
	}
	return ABIFilesystem
}

// UnenforceableError is a declaration the system cannot enforce: the run is
// refused, never started with less.
type UnenforceableError struct {
	Needed []string // what the declaration needs that is missing
	Found  string   // what the system has
}

func (e *UnenforceableError) Error() string {
	return fmt.Sprintf("unenforceable: the tool's sandbox block needs %s; found %s; nothing was run (rye never runs a tool with less confinement than it declares)", strings.Join(e.Needed, ", and "), e.Found)
}

// Check returns an *UnenforceableError when k cannot enforce what n
// needs, else nil.
func Check(k Kernel, n Needs) error {
	var needed []string
	if n.InProcess != "" {
		needed = append(needed, "a process of its own ("+n.InProcess+")")
	}
	if k.OS != "linux" {
		needed = append(needed, "Linux (Landlock and seccomp)")
	} else {
		if k.LandlockABI < n.ABI() {
			why := "filesystem rules with truncate control"
			if n.Ports {
				why = `TCP port rules, for its ":port" entries`
			}
			needed = append(needed, fmt.Sprintf("Landlock ABI %d or newer (%s)", n.ABI(), why))
		}
		if !k.Seccomp {
			needed = append(needed, "a seccomp filter (sockets, subprocesses, io_uring, ptrace)")
		}
	}
	if len(n.Hosts) > 0 {
		needed = append(needed, fmt.Sprintf("a network namespace and a proxy to limit connections to the hosts %s (Landlock restricts TCP by port only, and rye does not set up namespaces): declare \":port\" entries instead", strings.Join(n.Hosts, ", ")))
	}
	if len(needed) == 0 {
		return nil
	}
	return &UnenforceableError{Needed: needed, Found: k.String()}
}

// Report says what confinement a run had, or would have: every result
// carries one. A tool without a sandbox block has Verdict "none", written
// in JSON as the string "none".
type Report struct {
	// Verdict is "enforced" (the tool ran confined), "enforceable" (a dry
	// run: it would), "unenforceable" (refused: Needed and Found say
	// why) or "none" (the tool declares no sandbox block).
	Verdict     string    `json:"verdict"`
	LandlockABI int       `json:"landlock_abi"`
	Filesystem  FSReport  `json:"filesystem"`
	Network     []string  `json:"-"` // nil: none
	Subprocess  bool      `json:"subprocess"`
	Seccomp     bool      `json:"seccomp"`
	Scoped      bool      `json:"signals_scoped"` // signals and abstract Unix sockets kept to the tool (ABI 6)
	Helper      string    `json:"helper,omitempty"`
	Needed      []string  `json:"needed,omitempty"`
	Found       string    `json:"found,omitempty"`
	Missing     []string  `json:"missing,omitempty"` // declared paths that did not exist (nothing granted)
	Interpreter *prefixes `json:"interpreter,omitempty"`
}

// FSReport lists the filesystem grants: the declared ones with their
// placeholders expanded (a dry run shows the run's own folders as
// placeholders), and the defaults by name.
type FSReport struct {
	Read     []string `json:"read"`
	Write    []string `json:"write"`
	Defaults []string `json:"defaults"`
}

// prefixes are the interpreter's installation folders granted (read and
// execute) and those refused, with why.
type prefixes struct {
	Program string `json:"program"`
	// Shim is the version manager's shim found on PATH that Program
	// replaces (findShim), "" when there was none.
	Shim    string   `json:"shim,omitempty"`
	Granted []string `json:"granted,omitempty"`
	Refused []string `json:"refused,omitempty"`
}

// Unconfined is the report of a tool without a sandbox block.
func Unconfined() *Report { return &Report{Verdict: "none"} }

// MarshalJSON writes "none" for an unconfined run, else the object with
// network as "none" or the list of entries.
func (r *Report) MarshalJSON() ([]byte, error) {
	if r.Verdict == "none" {
		return []byte(`"none"`), nil
	}
	type plain Report
	var network any = "none"
	if r.Network != nil {
		network = r.Network
	}
	return json.Marshal(struct {
		*plain
		Network any `json:"network"`
	}{(*plain)(r), network})
}

// Summary is one line for people: what the run was confined to.
func (r *Report) Summary() string {
	switch r.Verdict {
	case "none":
		return "unconfined (no sandbox block)"
	case "unenforceable":
		return "refused: unenforceable (" + strings.Join(r.Needed, ", and ") + "; found " + r.Found + ")"
	}
	net := "network none"
	if r.Network != nil {
		net = "network " + strings.Join(r.Network, " ")
	}
	sub := "no subprocess"
	if r.Subprocess {
		sub = "subprocesses"
	}
	return fmt.Sprintf("confined (Landlock ABI %d, seccomp): read %d declared, write %d declared, %s, %s", r.LandlockABI, len(r.Filesystem.Read), len(r.Filesystem.Write), net, sub)
}
