package confine

import (
	"errors"
	"fmt"
	"slices"

	"golang.org/x/sys/unix"
)

// sysTable are the system call numbers of one architecture that the filter
// looks at.
type sysTable struct {
	arch uint32 // AUDIT_ARCH_*
	// x32 is true on amd64, whose x32 system calls (numbers with bit 30
	// set) reach the same kernel code under other numbers: all refused.
	x32 bool
	// deny are refused with EPERM whatever the declaration.
	deny []uint32
	// fork are refused without subprocess: true (fork, vfork; arm64 has
	// neither).
	fork                                       []uint32
	clone, clone3, unshare, socket, socketpair uint32
	// send are the calls that send on a socket with a flags argument
	// (sendto, sendmsg, sendmmsg), with the index of that argument.
	send []sysArg
	// chmod are the calls that change a file's mode (chmod, fchmod,
	// fchmodat, fchmodat2), with the index of the mode argument.
	chmod []sysArg
}

// sysArg is a system call and the index of the argument the filter reads.
type sysArg struct {
	nr  uint32
	arg int
}

// Namespace flags of clone and unshare. CLONE_NEWTIME (0x80) is only a
// flag to unshare and clone3: for clone it is part of the exit signal.
const (
	cloneNamespaces = unix.CLONE_NEWNS | unix.CLONE_NEWCGROUP | unix.CLONE_NEWUTS | unix.CLONE_NEWIPC |
		unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNET
	unshareNamespaces = cloneNamespaces | unix.CLONE_NEWTIME
	sockTypeMask      = 0xf // SOCK_TYPE_MASK: the type without SOCK_CLOEXEC and SOCK_NONBLOCK
	ipprotoMPTCP      = 262
	// refusedModes are the mode bits a tool may not give a file: setuid,
	// setgid and writable by others. Landlock does not control chmod, so
	// without this a tool could make any file its user owns (as root: the
	// system's programs) setuid, or writable by every local user.
	refusedModes = unix.S_ISUID | unix.S_ISGID | unix.S_IWOTH
)

const (
	retAllow = unix.SECCOMP_RET_ALLOW
	retEPERM = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
	// retENOSYS tells libc that clone3 does not exist, so that it falls
	// back to clone, whose flags (an argument, not a structure in memory)
	// the filter can read.
	retENOSYS = unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)
	retKill   = unix.SECCOMP_RET_KILL_PROCESS
)

// buildFilter assembles the seccomp filter of a policy:
//
//   - another architecture than the table's: the process is killed (a
//     32-bit entry point would have other numbers);
//   - always EPERM: io_uring (its operations, sockets included, bypass the
//     system call filter), ptrace, bpf, perf_event_open, the key
//     management calls, userfaultfd, setns, mounting, modules, kexec,
//     open_by_handle_at, process_vm_readv/writev, pidfd_getfd and the
//     other calls of t.deny; unshare and clone with a namespace flag
//     (a user namespace gives back the capabilities the helper dropped);
//     clone3 is ENOSYS;
//   - socketpair: AF_UNIX stream and seqpacket pairs only (asyncio and
//     multiprocessing use them; a datagram pair could send to a named
//     socket such as /dev/log);
//   - socket: without ports nothing at all (a Unix socket could connect
//     to ssh-agent, D-Bus or docker.sock, which Landlock before ABI 9 does
//     not control, and a netlink socket has no use for a tool without
//     network); with ports, AF_INET or AF_INET6 stream sockets of protocol
//     0 or TCP only: no UDP, no raw sockets, no MPTCP (which Landlock's
//     TCP rules do not cover), and Landlock decides the port;
//   - with ports, sendto, sendmsg and sendmmsg with MSG_FASTOPEN: a TCP
//     Fast Open send connects without connect(2), and Landlock, which
//     hooks connect(2), does not see it (Linux 6.18 still lets it reach
//     any port); without ports there is no TCP socket to send on;
//   - always EPERM: listen (without bind the kernel picks a port itself,
//     which Landlock's bind rule does not see) and setting or removing
//     extended attributes (a POSIX ACL would give other users a file),
//     which Landlock does not control;
//   - chmod, fchmod, fchmodat and fchmodat2 with a mode that is setuid,
//     setgid or writable by others (refusedModes): Landlock does not
//     control chmod, and these would hand the file to other users;
//   - without subprocess: fork, vfork and clone without CLONE_THREAD
//     (threads are fine) are EPERM; execve stays allowed: a program that
//     replaces itself is still one process, under the same rules.
func buildFilter(t sysTable, ports, subprocess bool) ([]bpfInsn, error) {
	if t.arch == 0 {
		return nil, errors.New("no seccomp system call table for this architecture")
	}
	a := &bpfAsm{labels: map[string]int{}}
	a.ld(seccompArch)
	a.jeq(t.arch, "", "kill")
	a.ld(seccompNr)
	if t.x32 {
		a.jge(0x40000000, "eperm", "")
	}
	for _, nr := range t.deny {
		a.jeq(nr, "eperm", "")
	}
	a.jeq(t.clone3, "enosys", "")
	a.jeq(t.clone, "clone", "")
	a.jeq(t.unshare, "unshare", "")
	a.jeq(t.socketpair, "socketpair", "")
	if ports {
		a.jeq(t.socket, "socket", "")
	} else {
		a.jeq(t.socket, "eperm", "")
	}
	if !subprocess {
		for _, nr := range t.fork {
			a.jeq(nr, "eperm", "")
		}
	}
	for _, c := range t.chmod {
		a.jeq(c.nr, fmt.Sprintf("mode%d", c.arg), "")
	}
	if ports {
		for _, c := range t.send {
			a.jeq(c.nr, fmt.Sprintf("sendflags%d", c.arg), "")
		}
	}
	a.ret(retAllow)

	for _, arg := range argIndexes(t.chmod) {
		a.label(fmt.Sprintf("mode%d", arg))
		a.ld(seccompArgLow(arg))
		a.jset(refusedModes, "eperm", "allow")
	}
	if ports {
		for _, arg := range argIndexes(t.send) {
			a.label(fmt.Sprintf("sendflags%d", arg))
			a.ld(seccompArgLow(arg))
			a.jset(unix.MSG_FASTOPEN, "eperm", "allow")
		}
	}

	a.label("clone")
	a.ld(seccompArgLow(0))
	a.jset(cloneNamespaces, "eperm", "")
	if subprocess {
		a.ret(retAllow)
	} else {
		a.jset(unix.CLONE_THREAD, "allow", "eperm")
	}

	a.label("unshare")
	a.ld(seccompArgLow(0))
	a.jset(unshareNamespaces, "eperm", "allow")

	a.label("socketpair")
	a.ld(seccompArgLow(0))
	a.jeq(unix.AF_UNIX, "", "eperm")
	a.ld(seccompArgLow(1))
	a.and(sockTypeMask)
	a.jeq(unix.SOCK_STREAM, "allow", "")
	a.jeq(unix.SOCK_SEQPACKET, "allow", "eperm")

	if ports {
		a.label("socket")
		a.ld(seccompArgLow(0))
		a.jeq(unix.AF_INET, "inet", "")
		a.jeq(unix.AF_INET6, "inet", "eperm")
		a.label("inet")
		a.ld(seccompArgLow(1))
		a.and(sockTypeMask)
		a.jeq(unix.SOCK_STREAM, "", "eperm")
		a.ld(seccompArgLow(2))
		a.jeq(0, "allow", "")
		a.jeq(unix.IPPROTO_TCP, "allow", "eperm")
	}

	a.label("allow")
	a.ret(retAllow)
	a.label("eperm")
	a.ret(retEPERM)
	a.label("enosys")
	a.ret(retENOSYS)
	a.label("kill")
	a.ret(retKill)
	return a.assemble()
}

// argIndexes are the argument indexes of cs, each once, in order.
func argIndexes(cs []sysArg) []int {
	var out []int
	for _, c := range cs {
		if !slices.Contains(out, c.arg) {
			out = append(out, c.arg)
		}
	}
	slices.Sort(out)
	return out
}
