package confine

import (
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Probe asks the kernel what it can enforce: Landlock through its own
// system call (landlock_create_ruleset with LANDLOCK_CREATE_RULESET_VERSION
// returns the ABI; /sys/kernel/security is often not mounted, so its lsm
// file is no evidence either way), and seccomp by asking whether the
// filter action rye uses is available.
func Probe() Kernel {
	k := Kernel{OS: runtime.GOOS, Arch: runtime.GOARCH}
	k.LandlockABI, k.LandlockErr = landlockABI()
	switch {
	case syscalls().arch == 0:
		k.SeccompErr = "rye has no system call table for " + runtime.GOARCH
	default:
		action := uint32(unix.SECCOMP_RET_ERRNO)
		_, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_GET_ACTION_AVAIL, 0, uintptr(unsafe.Pointer(&action)))
		if e != 0 {
			k.SeccompErr = "seccomp: " + e.Error()
		} else {
			k.Seccomp = true
		}
	}
	return k
}

func landlockABI() (int, string) {
	v, _, e := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	switch e {
	case 0:
		return int(v), ""
	case unix.ENOSYS:
		return 0, "the kernel is built without Landlock"
	case unix.EOPNOTSUPP:
		return 0, "Landlock is built in but not enabled: add landlock to the lsm= boot parameter"
	}
	return 0, "landlock_create_ruleset: " + e.Error()
}
