package confine

import (
	"testing"

	"golang.org/x/sys/unix"
)

// runFilter interprets a classic BPF program on one seccomp_data.
func runFilter(t *testing.T, prog []bpfInsn, arch uint32, nr int32, args ...uint64) uint32 {
	t.Helper()
	data := make([]byte, 64)
	put32 := func(off int, v uint32) {
		data[off], data[off+1], data[off+2], data[off+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
	}
	put32(0, uint32(nr))
	put32(4, arch)
	for i, a := range args {
		put32(16+8*i, uint32(a))
		put32(20+8*i, uint32(a>>32))
	}
	var acc uint32
	for pc := 0; pc < len(prog); pc++ {
		in := prog[pc]
		switch in.Code {
		case bpfLdWAbs:
			o := in.K
			acc = uint32(data[o]) | uint32(data[o+1])<<8 | uint32(data[o+2])<<16 | uint32(data[o+3])<<24
		case bpfAndK:
			acc &= in.K
		case bpfJa:
			pc += int(in.K)
		case bpfJeq, bpfJge, bpfJset:
			ok := (in.Code == bpfJeq && acc == in.K) || (in.Code == bpfJge && acc >= in.K) || (in.Code == bpfJset && acc&in.K != 0)
			if ok {
				pc += int(in.Jt)
			} else {
				pc += int(in.Jf)
			}
		case bpfRetK:
			return in.K
		default:
			t.Fatalf("unknown instruction %#x", in.Code)
		}
	}
	t.Fatal("the filter falls off its end")
	return 0
}

func TestFilterDecisions(t *testing.T) {
	tab := syscalls()
	if tab.arch == 0 {
		t.Skip("no table for this architecture")
	}
	none, err := buildFilter(tab, false, false)
	if err != nil {
		t.Fatal(err)
	}
	ports, err := buildFilter(tab, true, true)
	if err != nil {
		t.Fatal(err)
	}
	nr := func(n uint32) int32 { return int32(n) }
	for _, c := range []struct {
		name string
		prog []bpfInsn
		arch uint32
		nr   int32
		args []uint64
		want uint32
	}{
		{"other arch", none, 0x40000003, nr(unix.SYS_READ), nil, retKill},
		{"read", none, tab.arch, nr(unix.SYS_READ), nil, retAllow},
		{"io_uring", ports, tab.arch, nr(unix.SYS_IO_URING_SETUP), nil, retEPERM},
		{"clone3", ports, tab.arch, nr(unix.SYS_CLONE3), nil, retENOSYS},
		{"thread", none, tab.arch, nr(unix.SYS_CLONE), []uint64{unix.CLONE_VM | unix.CLONE_THREAD | unix.CLONE_SIGHAND}, retAllow},
		{"fork-like clone", none, tab.arch, nr(unix.SYS_CLONE), []uint64{uint64(unix.SIGCHLD)}, retEPERM},
		{"fork-like clone allowed", ports, tab.arch, nr(unix.SYS_CLONE), []uint64{uint64(unix.SIGCHLD)}, retAllow},
		{"clone newuser", ports, tab.arch, nr(unix.SYS_CLONE), []uint64{unix.CLONE_NEWUSER | unix.CLONE_THREAD}, retEPERM},
		{"unshare files", ports, tab.arch, nr(unix.SYS_UNSHARE), []uint64{unix.CLONE_FILES}, retAllow},
		{"unshare newtime", ports, tab.arch, nr(unix.SYS_UNSHARE), []uint64{unix.CLONE_NEWTIME}, retEPERM},
		{"tcp", ports, tab.arch, nr(unix.SYS_SOCKET), []uint64{unix.AF_INET6, unix.SOCK_STREAM | unix.SOCK_NONBLOCK, 0}, retAllow},
		{"tcp, high bits ignored", ports, tab.arch, nr(unix.SYS_SOCKET), []uint64{1<<32 | unix.AF_INET, unix.SOCK_STREAM, unix.IPPROTO_TCP}, retAllow},
		{"udp", ports, tab.arch, nr(unix.SYS_SOCKET), []uint64{unix.AF_INET, unix.SOCK_DGRAM, 0}, retEPERM},
		{"mptcp", ports, tab.arch, nr(unix.SYS_SOCKET), []uint64{unix.AF_INET, unix.SOCK_STREAM, 262}, retEPERM},
		{"tcp without ports", none, tab.arch, nr(unix.SYS_SOCKET), []uint64{unix.AF_INET, unix.SOCK_STREAM, 0}, retEPERM},
		{"unix pair", none, tab.arch, nr(unix.SYS_SOCKETPAIR), []uint64{unix.AF_UNIX, unix.SOCK_STREAM | unix.SOCK_CLOEXEC, 0}, retAllow},
		{"unix dgram pair", none, tab.arch, nr(unix.SYS_SOCKETPAIR), []uint64{unix.AF_UNIX, unix.SOCK_DGRAM, 0}, retEPERM},
		{"listen", ports, tab.arch, nr(unix.SYS_LISTEN), []uint64{3, 1}, retEPERM},
		{"sendto", ports, tab.arch, nr(unix.SYS_SENDTO), []uint64{3, 0, 1, unix.MSG_NOSIGNAL}, retAllow},
		{"sendto fastopen", ports, tab.arch, nr(unix.SYS_SENDTO), []uint64{3, 0, 1, unix.MSG_FASTOPEN}, retEPERM},
		{"sendmsg fastopen", ports, tab.arch, nr(unix.SYS_SENDMSG), []uint64{3, 0, unix.MSG_FASTOPEN | unix.MSG_DONTWAIT}, retEPERM},
		{"sendmmsg fastopen", ports, tab.arch, nr(unix.SYS_SENDMMSG), []uint64{3, 0, 1, unix.MSG_FASTOPEN}, retEPERM},
		{"sendmsg", ports, tab.arch, nr(unix.SYS_SENDMSG), []uint64{3, 0, 0}, retAllow},
		{"fchmodat 0755", none, tab.arch, nr(unix.SYS_FCHMODAT), []uint64{0xffffff9c, 0, 0o755}, retAllow},
		{"fchmodat setuid", none, tab.arch, nr(unix.SYS_FCHMODAT), []uint64{0xffffff9c, 0, 0o4755}, retEPERM},
		{"fchmodat2 setgid", none, tab.arch, nr(unix.SYS_FCHMODAT2), []uint64{3, 0, 0o2755, unix.AT_EMPTY_PATH}, retEPERM},
		{"fchmod others write", ports, tab.arch, nr(unix.SYS_FCHMOD), []uint64{3, 0o666}, retEPERM},
		{"fsetxattr", ports, tab.arch, nr(unix.SYS_FSETXATTR), nil, retEPERM},
		{"removexattrat", ports, tab.arch, nr(unix.SYS_REMOVEXATTRAT), nil, retEPERM},
	} {
		if got := runFilter(t, c.prog, c.arch, c.nr, c.args...); got != c.want {
			t.Errorf("%s: %#x, want %#x", c.name, got, c.want)
		}
	}
	if tab.x32 {
		if got := runFilter(t, ports, tab.arch, 0x40000000|nr(unix.SYS_SOCKET), unix.AF_INET, unix.SOCK_DGRAM, 0); got != retEPERM {
			t.Errorf("x32 socket: %#x", got)
		}
	}
}
