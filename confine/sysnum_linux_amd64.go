package confine

import "golang.org/x/sys/unix"

func syscalls() sysTable {
	return sysTable{
		arch:       unix.AUDIT_ARCH_X86_64,
		x32:        true,
		deny:       append(commonDeny(), unix.SYS_IOPL, unix.SYS_IOPERM),
		fork:       []uint32{unix.SYS_FORK, unix.SYS_VFORK},
		clone:      unix.SYS_CLONE,
		clone3:     unix.SYS_CLONE3,
		unshare:    unix.SYS_UNSHARE,
		socket:     unix.SYS_SOCKET,
		socketpair: unix.SYS_SOCKETPAIR,
		send:       commonSend(),
		chmod:      append(commonChmod(), sysArg{unix.SYS_CHMOD, 1}),
	}
}
