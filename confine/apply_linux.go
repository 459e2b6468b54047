package confine

import (
	"errors"
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// landlockRuleNetPort is LANDLOCK_RULE_NET_PORT (ABI 4), which
// golang.org/x/sys does not define.
const landlockRuleNetPort = 2

// rulesetAttr is struct landlock_ruleset_attr up to ABI 7 (its scoped
// field is ABI 6; older kernels accept the larger size when the fields
// they do not know are zero).
type rulesetAttr struct {
	fs, net, scoped uint64
}

// pathBeneath is struct landlock_path_beneath_attr, which the kernel reads
// packed: 12 bytes, the first 12 of this struct.
type pathBeneath struct {
	access uint64
	fd     int32
	_      int32
}

// netPort is struct landlock_net_port_attr.
type netPort struct {
	access, port uint64
}

// apply confines the calling thread, which must be locked to its
// goroutine and must execute the tool next: no_new_privs, capabilities
// dropped, the Landlock domain, the seccomp filter. Each is inherited
// across execve and by every child. Any error leaves the thread unusable
// for the tool: the caller reports it and exits.
func apply(p *Policy) error {
	abi, why := landlockABI()
	need := max(p.ABI, ABIFilesystem)
	if abi < need {
		if why == "" {
			why = fmt.Sprintf("ABI %d", abi)
		}
		return fmt.Errorf("unenforceable: Landlock ABI %d or newer is needed, found %s", need, why)
	}
	filter, err := buildFilter(syscalls(), len(p.Ports) > 0, p.Subprocess)
	if err != nil {
		return err
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %v", err)
	}
	if err := landlock(p, min(abi, maxABI)); err != nil {
		return err
	}
	dropCapabilities()
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: (*unix.SockFilter)(unsafe.Pointer(&filter[0]))}
	if _, _, e := unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&prog))); e != 0 {
		return fmt.Errorf("seccomp: %v", e)
	}
	return nil
}

func landlock(p *Policy, abi int) error {
	handled := handledAccess(abi)
	attr := rulesetAttr{fs: uint64(handled)}
	if abi >= ABIPorts {
		// Handled even without ports: no TCP bind or connect at all then,
		// besides the seccomp filter's refusal of every socket.
		attr.net = unix.LANDLOCK_ACCESS_NET_BIND_TCP | unix.LANDLOCK_ACCESS_NET_CONNECT_TCP
	}
	if abi >= ABIScopes {
		attr.scoped = unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | unix.LANDLOCK_SCOPE_SIGNAL
	}
	rfd, _, e := unix.RawSyscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if e != 0 {
		return fmt.Errorf("landlock_create_ruleset: %v", e)
	}
	ruleset := int(rfd)
	defer unix.Close(ruleset)
	add := func(fd int, a Access) error {
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			return err
		}
		if st.Mode&unix.S_IFMT != unix.S_IFDIR {
			a = FileRights(a)
		}
		a &= handled
		if a == 0 {
			return nil
		}
		attr := pathBeneath{access: uint64(a), fd: int32(fd)}
		_, _, e := unix.RawSyscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(ruleset), unix.LANDLOCK_RULE_PATH_BENEATH, uintptr(unsafe.Pointer(&attr)), 0, 0, 0)
		if e != 0 {
			return e
		}
		return nil
	}
	for i, r := range p.Rules {
		err := add(r.FD, r.Access)
		unix.Close(r.FD)
		if err != nil {
			return fmt.Errorf("landlock rule %d (descriptor %d): %v", i, r.FD, err)
		}
	}
	if p.ProcSelf {
		// Opened here: in rye, /proc/self would be rye's own.
		fd, err := unix.Open("/proc/self", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err == nil {
			err = add(fd, Read)
			unix.Close(fd)
		}
		if err != nil && !errors.Is(err, unix.ENOENT) {
			return fmt.Errorf("landlock rule for /proc/self: %v", err)
		}
	}
	for _, port := range p.Ports {
		attr := netPort{access: unix.LANDLOCK_ACCESS_NET_CONNECT_TCP, port: uint64(port)}
		_, _, e := unix.RawSyscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(ruleset), landlockRuleNetPort, uintptr(unsafe.Pointer(&attr)), 0, 0, 0)
		if e != 0 {
			return fmt.Errorf("landlock rule for TCP port %d: %v", port, e)
		}
	}
	if _, _, e := unix.RawSyscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(ruleset), 0, 0); e != 0 {
		return fmt.Errorf("landlock_restrict_self: %v", e)
	}
	return nil
}

// dropCapabilities clears the ambient set and empties the bounding set,
// so that a tool started by root runs without capabilities: uid 0 keeps
// owning root's files, but cannot override permissions, load modules,
// mount or trace. Landlock and the seccomp filter hold without it (they
// bind root too); this takes away what neither names. Without
// CAP_SETPCAP (an unprivileged user) the bounding set cannot change and
// does not need to: no_new_privs already keeps execve from granting any
// capability, and the cleared ambient set leaves none to inherit.
func dropCapabilities() {
	_ = unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
	for c := uintptr(0); c < 64; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, c, 0, 0, 0); err == unix.EINVAL {
			break // past the last capability this kernel knows
		}
	}
}
