package confine

import (
	"os"
	"path"
	"strings"
)

// Grant is one filesystem permission rye asks the helper to give.
//
// Base is opened following symbolic links: it is a folder chosen by rye
// or by the user (a placeholder's value, a system folder). Rel, below it,
// is opened without following any symbolic link in any of its components:
// it comes from the declaration, and the files there may come from a
// change under review (a link {project}/data -> ~ must not turn a grant
// of the project's data into a grant of the home folder).
type Grant struct {
	Base, Rel string
	Access    Access
	// Optional grants are skipped when the path does not exist (system
	// folders that some systems lack); a missing declared path is
	// reported in the result and granted nothing.
	Optional bool
	// Label names the grant in messages and the report (the declaration's
	// text, or the default's name).
	Label string
}

// Path is the grant's path.
func (g Grant) Path() string {
	if g.Rel == "" {
		return g.Base
	}
	return path.Join(g.Base, g.Rel)
}

// etcSecrets are the files and folders of /etc that are not granted with
// the rest of it: password hashes, sudo rules, host keys, private keys and
// stored credentials. Patterns are path.Match patterns relative to /etc;
// a folder on the way to a pattern is descended into and its other entries
// are granted one by one (Landlock can only grant, so "/etc less these" is
// every other entry).
var etcSecrets = []string{
	"shadow", "shadow-", "gshadow", "gshadow-", "sudoers", "sudoers.d",
	"ssh/*_key", "ssl/private", "pki/tls/private", "security/opasswd",
	"krb5.keytab", "credstore", "credstore.encrypted", "NetworkManager/system-connections",
	"wpa_supplicant", "ppp/chap-secrets", "ppp/pap-secrets", "ipsec.secrets", "ipsec.d/private",
	"libvirt/secrets", "wireguard", "openvpn", "letsencrypt", ".git",
}

// EtcSecrets lists what /etc withholds, for the documentation and the
// report.
func EtcSecrets() []string { return append([]string(nil), etcSecrets...) }

// etcVerdict says what to do with the entry rel (relative to /etc):
// "deny", "descend" (a folder holding a secret) or "grant".
func etcVerdict(rel string) string {
	verdict := "grant"
	for _, pat := range etcSecrets {
		if rel == "" || (pat[0] != rel[0] && !strings.ContainsRune("*?[\\", rune(pat[0]))) {
			continue // the first byte decides most
		}
		// Compare component by component, without allocating: this runs
		// for every entry of /etc on every confined run.
		r, p := rel, pat
		for {
			rc, rrest, rmore := strings.Cut(r, "/")
			pc, prest, pmore := strings.Cut(p, "/")
			if !componentMatch(pc, rc) {
				break
			}
			if !rmore {
				if !pmore {
					return "deny"
				}
				verdict = "descend"
				break
			}
			if !pmore {
				break // rel is below a pattern's folder that is granted whole: cannot happen for a descended entry
			}
			r, p = rrest, prest
		}
	}
	return verdict
}

// componentMatch matches one path component against a pattern's: by
// comparison for a literal, path.Match for a glob.
func componentMatch(pat, name string) bool {
	if !strings.ContainsAny(pat, "*?[\\") {
		return pat == name
	}
	ok, _ := path.Match(pat, name)
	return ok
}

// Helper is how rye starts the helper: rye-confine beside rye, or rye
// itself in its hidden helper mode.
type Helper struct {
	Path string
	Args []string
}

// Spec is what one confined run is allowed, and where to report it.
type Spec struct {
	Kernel Kernel
	Needs  Needs
	Helper Helper
	// System grants the system defaults (DefaultNames): folders of the
	// system, not of the project, opened following symbolic links.
	System bool
	// Ruleset, when set, is the ruleset BuildRuleset started for this run
	// (with System); Prepare builds one otherwise. The caller closes it.
	Ruleset *Ruleset
	// Grants are the filesystem grants besides the defaults and the
	// interpreter's.
	Grants     []Grant
	Ports      []uint16
	Subprocess bool
	// NotIn are folders an interpreter's installation may not hold
	// (interpreterGrants).
	NotIn []string
	// UserEnv is the user's own environment (rye's, without its secrets):
	// a version manager that answers for a shim, which runs before the
	// tool is confined, runs with it (Shim.Resolve), never with the
	// tool's.
	UserEnv []string
	// Report is completed when the tool has started (the helper used,
	// the interpreter's folders, declared paths that were missing).
	Report *Report
}

// Launcher starts a program through the helper (the subprocess
// primitive's hook): Prepare rewrites the command, Started waits until the
// helper has executed the program or says why it did not.
type Launcher struct {
	spec    *Spec
	files   []*os.File // handed to the helper; closed once it started
	statusR *os.File
	missing []string
	interp  *prefixes
}

// NewLauncher returns a launcher for s.
func NewLauncher(s *Spec) *Launcher { return &Launcher{spec: s} }

// DefaultNames names, in reports, the defaults every confined tool may
// read, which the helper grants (Policy.System): /usr, /bin and /lib*
// (read and execute: the system's programs and libraries), /etc less its
// secret files (etcSecrets), the random devices and /dev/zero, /dev/null
// (read and write), the CPU topology in /sys/devices/system/cpu and the
// system-wide /proc/cpuinfo, /proc/meminfo and /proc/stat (libc, Python
// and Node size their pools and report processors and memory from them),
// and /proc/self (which only the helper can open: in rye it would name
// rye).
func DefaultNames() []string {
	return []string{"/usr", "/bin", "/lib*", "/etc (less " + strings.Join(etcSecrets, ", ") + ")",
		"/dev/null (read and write)", "/dev/random", "/dev/urandom", "/dev/zero", "/sys/devices/system/cpu",
		"/proc/cpuinfo", "/proc/meminfo", "/proc/stat", "/proc/self", "the run's verified files", "the interpreter's installation"}
}

// within reports whether p is dir or below it (both clean and absolute).
func within(dir, p string) bool {
	return p == dir || dir == "/" || strings.HasPrefix(p, dir+"/")
}
