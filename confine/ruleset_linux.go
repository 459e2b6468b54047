package confine

import (
	"bytes"
	"fmt"
	"os"
	"path"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Ruleset is a Landlock ruleset that rye builds for one run: the system
// defaults, then the run's own grants and ports. Creating a ruleset and
// adding rules restricts nobody; the helper restricts itself with it
// (landlock_restrict_self) just before it executes the tool. Building it
// in rye lets the defaults (a hundred and more rules for /etc) be added
// while rye still verifies the chain, and hands the helper one descriptor
// instead of one for each rule.
type Ruleset struct {
	fd      int
	handled Access
	net     bool
	err     error
	done    chan struct{}
}

// BuildRuleset starts building the ruleset of a run on kernel k: the
// handled rights of its ABI (up to 7), TCP bind and connect from ABI 4,
// signal and abstract socket scoping from ABI 6, and with system the
// system defaults (DefaultNames). It returns at once; Launcher.Prepare
// waits for it.
func BuildRuleset(k Kernel, system bool) *Ruleset {
	r := &Ruleset{fd: -1, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		r.err = r.build(min(k.LandlockABI, maxABI), system)
	}()
	return r
}

func (r *Ruleset) build(abi int, system bool) error {
	if abi < 1 {
		return fmt.Errorf("no Landlock")
	}
	r.handled = handledAccess(abi)
	attr := rulesetAttr{fs: uint64(r.handled)}
	if abi >= abiPorts {
		// Handled even without ports: no TCP bind or connect at all then,
		// besides the seccomp filter's refusal of every socket.
		attr.net = unix.LANDLOCK_ACCESS_NET_BIND_TCP | unix.LANDLOCK_ACCESS_NET_CONNECT_TCP
		r.net = true
	}
	if abi >= ABIScopes {
		attr.scoped = unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | unix.LANDLOCK_SCOPE_SIGNAL
	}
	fd, _, e := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if e != 0 {
		return fmt.Errorf("landlock_create_ruleset: %v", e)
	}
	unix.CloseOnExec(int(fd))
	r.fd = int(fd)
	if system {
		return grantSystem(func(fd int, a Access) error { return addPathRule(r.fd, fd, a&r.handled) })
	}
	return nil
}

// wait returns once the ruleset is built.
func (r *Ruleset) wait() error {
	<-r.done
	return r.err
}

// addFile grants a on the open file f (folder rights only on a folder).
func (r *Ruleset) addFile(f *os.File, a Access) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if !st.IsDir() {
		a = fileRights(a)
	}
	return addPathRule(r.fd, int(f.Fd()), a&r.handled)
}

// addPort lets the tool connect to a TCP port.
func (r *Ruleset) addPort(port uint16) error {
	if !r.net {
		return fmt.Errorf("TCP port %d: this Landlock handles no network", port)
	}
	attr := netPort{access: unix.LANDLOCK_ACCESS_NET_CONNECT_TCP, port: uint64(port)}
	_, _, e := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(r.fd), landlockRuleNetPort, uintptr(unsafe.Pointer(&attr)), 0, 0, 0)
	if e != 0 {
		return fmt.Errorf("landlock rule for TCP port %d: %v", port, e)
	}
	return nil
}

// Close releases the ruleset (the helper holds its own copy).
func (r *Ruleset) Close() {
	if r == nil {
		return
	}
	<-r.done
	if r.fd >= 0 {
		unix.Close(r.fd)
		r.fd = -1
	}
}

// addPathRule grants a below (or on) the open file fd in ruleset.
func addPathRule(ruleset, fd int, a Access) error {
	if a == 0 {
		return nil
	}
	attr := pathBeneath{access: uint64(a), fd: int32(fd)}
	_, _, e := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(ruleset), unix.LANDLOCK_RULE_PATH_BENEATH, uintptr(unsafe.Pointer(&attr)), 0, 0, 0)
	if e != 0 {
		return e
	}
	return nil
}

// grantSystem grants the system defaults (DefaultNames): /usr, /bin, /lib*, /etc less its secrets, the devices, the CPU
// topology. A default the system lacks is skipped.
func grantSystem(add func(fd int, a Access) error) error {
	g := &systemGranter{add: add}
	g.path(unix.AT_FDCWD, "/usr", Exec)
	g.path(unix.AT_FDCWD, "/bin", Exec)
	if root, err := os.Open("/"); err == nil {
		names, _ := root.Readdirnames(-1)
		for _, n := range names {
			if strings.HasPrefix(n, "lib") {
				g.path(int(root.Fd()), n, Exec)
			}
		}
		root.Close()
	}
	g.etc("/etc", "")
	for _, d := range []string{"/dev/random", "/dev/urandom", "/dev/zero"} {
		g.path(unix.AT_FDCWD, d, accessReadFile)
	}
	g.path(unix.AT_FDCWD, "/dev/null", accessReadFile|accessWriteFile|accessTruncate)
	g.path(unix.AT_FDCWD, "/sys/devices/system/cpu", Read)
	for _, f := range []string{"/proc/cpuinfo", "/proc/meminfo", "/proc/stat"} {
		g.path(unix.AT_FDCWD, f, accessReadFile)
	}
	return g.err
}

type systemGranter struct {
	add func(fd int, a Access) error
	err error
}

// path grants a on name (below dir), following symbolic links; on a file
// only its file rights. It returns the open descriptor's kind.
func (g *systemGranter) path(dir int, name string, a Access) {
	if g.err != nil {
		return
	}
	fd, err := unix.Openat(dir, name, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return // the system has no such default
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		return
	}
	g.grant(fd, st.Mode&unix.S_IFMT == unix.S_IFDIR, a, name)
}

func (g *systemGranter) grant(fd int, dir bool, a Access, name string) {
	if !dir {
		a = fileRights(a)
	}
	if err := g.add(fd, a); err != nil && g.err == nil {
		g.err = fmt.Errorf("landlock rule for %s: %v", name, err)
	}
}

// etc grants the entries of the folder dir (rel below /etc) that are not
// secrets, one by one: the folder itself may be listed, folders that hold
// a secret are descended into. An entry that is a symbolic link is
// granted at its target, unless that is in /proc, /sys or /dev, or is a
// secret itself.
func (g *systemGranter) etc(dir, rel string) {
	dfd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	defer unix.Close(dfd)
	g.grant(dfd, true, accessReadDir, dir)
	eachEntry(dfd, func(name string, typ uint8) {
		r := name
		if rel != "" {
			r = rel + "/" + name
		}
		switch etcVerdict(r) {
		case "deny":
			return
		case "descend":
			if typ == unix.DT_DIR {
				g.etc(dir+"/"+name, r)
			}
			return
		}
		// Each descriptor is closed at once: a growing descriptor table
		// makes the kernel wait for an RCU grace period in a process of
		// several threads (expand_fdtable), which costs more than all
		// the closes.
		fd, err := unix.Openat(dfd, name, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err != nil {
			return
		}
		defer unix.Close(fd)
		isDir := typ == unix.DT_DIR
		if typ == unix.DT_LNK || typ == unix.DT_UNKNOWN {
			var st unix.Stat_t
			if unix.Fstat(fd, &st) != nil {
				return
			}
			isDir = st.Mode&unix.S_IFMT == unix.S_IFDIR
			if typ == unix.DT_LNK {
				target, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
				if err != nil || !safeEtcTarget(target) {
					return
				}
			}
		}
		g.grant(fd, isDir, Read, dir+"/"+name)
	})
}

// eachEntry calls fn for each entry of the open folder fd (but . and ..),
// with its d_type, reading the folder with getdents64 directly.
func eachEntry(fd int, fn func(name string, typ uint8)) {
	buf := make([]byte, 16<<10)
	for {
		n, err := unix.Getdents(fd, buf)
		if err != nil || n <= 0 {
			return
		}
		for off := 0; off+19 <= n; {
			// struct linux_dirent64: ino 8, off 8, reclen 2, type 1, name
			reclen := int(buf[off+16]) | int(buf[off+17])<<8
			if reclen < 19 || off+reclen > n {
				return
			}
			typ := buf[off+18]
			name := buf[off+19 : off+reclen]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			if s := string(name); s != "." && s != ".." {
				fn(s, typ)
			}
			off += reclen
		}
	}
}

// safeEtcTarget reports whether an /etc link's target may be granted: not
// in /proc, /sys or /dev (it would name the helper's own files, or
// devices), not a secret of /etc.
func safeEtcTarget(target string) bool {
	for _, root := range []string{"/proc", "/sys", "/dev"} {
		if within(root, target) {
			return false
		}
	}
	if rel, ok := strings.CutPrefix(target, "/etc/"); ok {
		for r := rel; r != "." && r != ""; r = path.Dir(r) {
			if etcVerdict(r) == "deny" {
				return false
			}
		}
	}
	return true
}
