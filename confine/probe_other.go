//go:build !linux

package confine

import "runtime"

// Probe reports what the system can enforce: outside Linux, nothing.
func Probe() Kernel {
	return Kernel{OS: runtime.GOOS, Arch: runtime.GOARCH, LandlockErr: "Landlock is a Linux security module", SeccompErr: "seccomp is Linux's"}
}
