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
func apply(p *policy) error {
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
	if err := restrict(p); err != nil {
		return err
	}
	if err := dropCapabilities(); err != nil {
		return err
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: (*unix.SockFilter)(unsafe.Pointer(&filter[0]))}
	if _, _, e := unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&prog))); e != 0 {
		return fmt.Errorf("seccomp: %v", e)
	}
	return nil
}

// restrict adds the rule for /proc/self to the ruleset rye built (in rye,
// /proc/self would be rye's own) and restricts this thread with it.
func restrict(p *policy) error {
	defer unix.Close(rulesetFD)
	if p.ProcSelf {
		fd, err := unix.Open("/proc/self", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err == nil {
			err = addPathRule(rulesetFD, fd, Read)
			unix.Close(fd)
		}
		if err != nil && !errors.Is(err, unix.ENOENT) {
			return fmt.Errorf("landlock rule for /proc/self: %v", err)
		}
	}
	if _, _, e := unix.RawSyscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(rulesetFD), 0, 0); e != 0 {
		return fmt.Errorf("landlock_restrict_self: %v", e)
	}
	return nil
}

// dropCapabilities clears the ambient set, empties the bounding set, and
// then empties the thread's inheritable, permitted and effective sets, so
// that a tool started by root runs without capabilities: uid 0 keeps
// owning root's files, but cannot override permissions, load modules,
// mount or trace. Landlock and the seccomp filter hold without it (they
// bind root too); this takes away what neither names.
//
// The bounding set alone is not enough: root's programs count as having
// every file capability, so across execve root's inheritable set becomes
// its permitted one, and older container runtimes gave every process a
// full inheritable set. Without CAP_SETPCAP (an unprivileged user) the
// bounding set cannot change and does not need to: no_new_privs keeps
// execve from granting any capability the process did not have, and it
// has none left. Emptying the sets always succeeds (dropping needs no
// privilege); a failure is reported and nothing runs.
func dropCapabilities() error {
	_ = unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
	for c := uintptr(0); c < 64; c++ {
		// EINVAL: past the last capability this kernel knows; EPERM: no
		// CAP_SETPCAP, so none of them can be dropped (nor gained).
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, c, 0, 0, 0); err == unix.EINVAL || err == unix.EPERM {
			break
		}
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var none [2]unix.CapUserData // version 3: two words per set
	if err := unix.Capset(&hdr, &none[0]); err != nil {
		return fmt.Errorf("dropping capabilities: %v", err)
	}
	return nil
}
