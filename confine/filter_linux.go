package confine

import (
	"errors"

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
}

// Namespace flags of clone and unshare. CLONE_NEWTIME (0x80) is only a
// flag to unshare and clone3: for clone it is part of the exit signal.
const (
	cloneNamespaces = unix.CLONE_NEWNS | unix.CLONE_NEWCGROUP | unix.CLONE_NEWUTS | unix.CLONE_NEWIPC |
		unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNET
	unshareNamespaces = cloneNamespaces | unix.CLONE_NEWTIME
	sockTypeMask      = 0xf // SOCK_TYPE_MASK: the type without SOCK_CLOEXEC and SOCK_NONBLOCK
	ipprotoMPTCP      = 262
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
	a.ret(retAllow)

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
