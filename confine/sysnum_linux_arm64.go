package confine

import "golang.org/x/sys/unix"

func syscalls() sysTable {
	return sysTable{
		arch:       unix.AUDIT_ARCH_AARCH64,
		deny:       commonDeny(),
		clone:      unix.SYS_CLONE,
		clone3:     unix.SYS_CLONE3,
		unshare:    unix.SYS_UNSHARE,
		socket:     unix.SYS_SOCKET,
		socketpair: unix.SYS_SOCKETPAIR,
		send:       commonSend(),
		chmod:      commonChmod(),
	}
}
