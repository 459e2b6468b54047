package confine

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The test binary plays three parts, by the name it is started under: the
// tests; the helper (rye-confine); and "confine-act", a program that does
// one thing a confined tool might try and prints what the kernel said.
func TestMain(m *testing.M) {
	switch filepath.Base(os.Args[0]) {
	case HelperName:
		HelperMain()
	case "confine-act":
		fmt.Print(act(os.Args[1], os.Args[2:]))
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// act does one thing and says "ok" or the error number's name.
func act(what string, args []string) string {
	res := func(err error) string {
		if err == nil {
			return "ok"
		}
		var en syscall.Errno
		if errors.As(err, &en) {
			if en == 0 {
				return "ok"
			}
			return unix.ErrnoName(en)
		}
		return err.Error()
	}
	switch what {
	case "read":
		_, err := os.ReadFile(args[0])
		return res(err)
	case "list":
		_, err := os.ReadDir(args[0])
		return res(err)
	case "write":
		return res(os.WriteFile(args[0], []byte("x"), 0o600))
	case "truncate":
		return res(unix.Truncate(args[0], 0))
	case "symlink-read":
		// args: a link to make, where it points; then read through it
		if err := os.Symlink(args[1], args[0]); err != nil {
			return "symlink: " + res(err)
		}
		_, err := os.ReadFile(args[0])
		return res(err)
	case "exec":
		return res(unix.Exec(args[0], args, nil))
	case "socket":
		dom, _ := strconv.Atoi(args[0])
		typ, _ := strconv.Atoi(args[1])
		proto, _ := strconv.Atoi(args[2])
		fd, err := unix.Socket(dom, typ, proto)
		if err == nil {
			unix.Close(fd)
		}
		return res(err)
	case "socketpair":
		typ, _ := strconv.Atoi(args[0])
		fds, err := unix.Socketpair(unix.AF_UNIX, typ, 0)
		if err == nil {
			unix.Close(fds[0])
			unix.Close(fds[1])
		}
		return res(err)
	case "connect":
		c, err := net.Dial("tcp4", args[0])
		if err == nil {
			c.Close()
		}
		return res(err)
	case "connect-unix":
		c, err := net.Dial("unix", args[0])
		if err == nil {
			c.Close()
		}
		return res(err)
	case "bind":
		l, err := net.Listen("tcp4", args[0])
		if err == nil {
			l.Close()
		}
		return res(err)
	case "spawn":
		return res(exec.Command("/bin/true").Run())
	case "fork":
		pid, _, e := unix.RawSyscall(unix.SYS_CLONE, uintptr(unix.SIGCHLD), 0, 0)
		if e == 0 && pid == 0 {
			unix.Exit(0) // the child (never reached when refused)
		}
		if e == 0 {
			var ws unix.WaitStatus
			unix.Wait4(int(pid), &ws, 0, nil)
		}
		return res(e)
	case "clone3":
		_, _, e := unix.RawSyscall(unix.SYS_CLONE3, 0, 0, 0)
		return res(e)
	case "userns":
		return res(unix.Unshare(unix.CLONE_NEWUSER))
	case "io_uring":
		var params [120]byte
		fd, _, e := unix.RawSyscall(unix.SYS_IO_URING_SETUP, 8, uintptr(unsafe.Pointer(&params[0])), 0)
		if e == 0 {
			unix.Close(int(fd))
			return "ok"
		}
		return res(e)
	case "ptrace":
		_, _, e := unix.RawSyscall(unix.SYS_PTRACE, unix.PTRACE_TRACEME, 0, 0)
		return res(e)
	case "bpf":
		_, _, e := unix.RawSyscall(unix.SYS_BPF, 0, 0, 0)
		return res(e)
	case "kill-parent":
		return res(unix.Kill(os.Getppid(), 0))
	case "mknod":
		return res(unix.Mknod(args[0], unix.S_IFCHR|0o600, int(unix.Mkdev(1, 3))))
	case "caps":
		data, err := os.ReadFile("/proc/self/status")
		if err != nil {
			return res(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			if v, ok := strings.CutPrefix(line, "CapEff:"); ok {
				return strings.TrimSpace(v)
			}
		}
		return "no CapEff"
	case "capsets":
		// every capability set of the process, as /proc/self/status has them
		data, err := os.ReadFile("/proc/self/status")
		if err != nil {
			return res(err)
		}
		var sets []string
		for _, line := range strings.Split(string(data), "\n") {
			for _, set := range []string{"CapInh:", "CapPrm:", "CapEff:", "CapAmb:"} {
				if v, ok := strings.CutPrefix(line, set); ok {
					sets = append(sets, set+strings.TrimSpace(v))
				}
			}
		}
		return strings.Join(sets, " ")
	case "env":
		return os.Getenv(args[0])
	case "chmod":
		// args: the file, the mode in octal
		mode, _ := strconv.ParseUint(args[1], 8, 32)
		return res(unix.Chmod(args[0], uint32(mode)))
	case "fchmod":
		f, err := os.Open(args[0])
		if err != nil {
			return res(err)
		}
		defer f.Close()
		mode, _ := strconv.ParseUint(args[1], 8, 32)
		return res(unix.Fchmod(int(f.Fd()), uint32(mode)))
	case "setxattr":
		return res(unix.Setxattr(args[0], "user.rye", []byte("x"), 0))
	case "listen":
		// listen without bind: the kernel binds an ephemeral port itself
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
		if err != nil {
			return res(err)
		}
		defer unix.Close(fd)
		return res(unix.Listen(fd, 1))
	case "fastopen":
		// sendto with MSG_FASTOPEN connects without connect(2)
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
		if err != nil {
			return res(err)
		}
		defer unix.Close(fd)
		host, portText, _ := net.SplitHostPort(args[0])
		port, _ := strconv.Atoi(portText)
		sa := &unix.SockaddrInet4{Port: port}
		copy(sa.Addr[:], net.ParseIP(host).To4())
		return res(unix.Sendto(fd, []byte("x"), unix.MSG_FASTOPEN, sa))
	case "fds":
		var fds []string
		for fd := 0; fd < 1024; fd++ {
			if _, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err == nil {
				fds = append(fds, strconv.Itoa(fd))
			}
		}
		return strings.Join(fds, " ")
	}
	return "unknown act " + what
}

// requireEnforcement skips a test that needs Landlock and seccomp only
// where the kernel has no Landlock at all (saying so); on a kernel with
// Landlock a missing ABI or filter fails the test, so that a skip never
// passes for enforcement. RYE_REQUIRE_CONFINEMENT=1 (CI) makes even a
// kernel without Landlock a failure.
func requireEnforcement(t *testing.T, needs Needs) Kernel {
	t.Helper()
	k := Probe()
	err := Check(k, needs)
	switch {
	case err == nil:
		return k
	case k.LandlockABI == 0 && os.Getenv("RYE_REQUIRE_CONFINEMENT") == "":
		t.Skipf("SKIPPED, NOT PASSED: this kernel cannot confine (%v); set RYE_REQUIRE_CONFINEMENT=1 to make this a failure", err)
	}
	t.Fatalf("this kernel has Landlock but the enforcement test cannot run: %v", err)
	return k
}

type confined struct {
	t      *testing.T
	spec   *Spec
	report Report
}

// newConfined is a confined run of the act program with the system
// defaults, the test binary (executable) and extra grants.
func newConfined(t *testing.T, needs Needs, grants ...Grant) *confined {
	t.Helper()
	k := requireEnforcement(t, needs)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	c := &confined{t: t}
	c.spec = &Spec{Kernel: k, Needs: needs, Helper: Helper{Path: exe, Args: []string{HelperName}},
		System: true, Grants: append([]Grant{{Base: exe, Access: Exec, Label: "the test program"}}, grants...),
		Report: &c.report}
	return c
}

// run runs the act program confined and returns what it printed.
func (c *confined) run(what string, args ...string) string {
	c.t.Helper()
	out, err := c.try(what, args...)
	if err != nil {
		c.t.Fatalf("%s %v: %v", what, args, err)
	}
	return out
}

func (c *confined) try(what string, args ...string) (string, error) {
	exe, _ := os.Executable()
	cmd := &exec.Cmd{Path: exe, Args: append([]string{"confine-act", what}, args...), Env: []string{"CONFINE_TEST=1"}}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	l := NewLauncher(c.spec)
	defer l.Close()
	if err := l.Prepare(cmd); err != nil {
		return "", err
	}
	if err := cmd.Start(); err != nil {
		return "", err
	}
	serr := l.Started()
	werr := cmd.Wait()
	if serr != nil {
		return "", serr
	}
	if werr != nil {
		return "", fmt.Errorf("%v: %s", werr, errb.String())
	}
	return out.String(), nil
}

func expect(t *testing.T, c *confined, want, what string, args ...string) {
	t.Helper()
	if got := c.run(what, args...); got != want {
		t.Errorf("%s %s: got %q, want %q", what, strings.Join(args, " "), got, want)
	}
}

// The acts that are refused must succeed unconfined: otherwise the test
// would pass for a reason other than the sandbox.
func TestActsSucceedUnconfined(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret")
	os.WriteFile(secret, []byte("s"), 0o600)
	for _, a := range [][]string{
		{"read", secret}, {"write", filepath.Join(dir, "w")}, {"truncate", secret},
		{"socket", "2", "2", "0"}, {"socket", "1", "1", "0"}, {"socketpair", "2"},
		{"spawn"}, {"fork"}, {"kill-parent"},
	} {
		if got := act(a[0], a[1:]); got != "ok" {
			t.Errorf("unconfined %v: %s", a, got)
		}
	}
}

func TestFilesystem(t *testing.T) {
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, ".ssh"), 0o700)
	key := filepath.Join(home, ".ssh", "id_ed25519")
	os.WriteFile(key, []byte("PRIVATE"), 0o600)
	data := t.TempDir()
	os.WriteFile(filepath.Join(data, "in.txt"), []byte("data"), 0o600)
	out := t.TempDir()
	elsewhere := t.TempDir()
	c := newConfined(t, Needs{},
		Grant{Base: data, Access: Read, Label: "{project}/data"},
		Grant{Base: out, Access: Write, Label: "{run_dir}"})

	expect(t, c, "ok", "read", filepath.Join(data, "in.txt"))
	expect(t, c, "ok", "list", data)
	expect(t, c, "ok", "read", "/etc/passwd")
	expect(t, c, "ok", "write", filepath.Join(out, "result"))
	expect(t, c, "ok", "write", "/dev/null")
	expect(t, c, "EACCES", "read", key)
	expect(t, c, "EACCES", "list", home)
	expect(t, c, "EACCES", "write", filepath.Join(elsewhere, "x"))
	expect(t, c, "EACCES", "write", filepath.Join(data, "x"))
	expect(t, c, "EACCES", "truncate", filepath.Join(data, "in.txt"))
	expect(t, c, "EACCES", "read", fmt.Sprintf("/proc/%d/environ", os.Getpid()))
	expect(t, c, "EACCES", "mknod", filepath.Join(out, "null"))
	// A link the tool makes in its writable run folder, pointing home:
	// the kernel judges the file it reaches, not the link.
	expect(t, c, "EACCES", "symlink-read", filepath.Join(out, "link"), key)
	if _, err := os.Stat("/etc/shadow"); err == nil {
		expect(t, c, "EACCES", "read", "/etc/shadow")
	}
	if c.report.Verdict != "enforced" {
		t.Errorf("report: %+v", c.report)
	}
}

// A declared path that is a symbolic link (a change under review could add
// {project}/data -> ~) is refused before anything runs.
func TestDeclaredSymlinkRefused(t *testing.T) {
	home := t.TempDir()
	project := t.TempDir()
	os.Symlink(home, filepath.Join(project, "data"))
	os.MkdirAll(filepath.Join(project, "real"), 0o755)
	os.Symlink(filepath.Join(project, "real"), filepath.Join(project, "via"))
	for _, rel := range []string{"data", "via/x"} {
		c := newConfined(t, Needs{}, Grant{Base: project, Rel: rel, Access: Read, Label: "{project}/" + rel})
		_, err := c.try("read", filepath.Join(home, "x"))
		if err == nil || !strings.Contains(err.Error(), "symbolic link") {
			t.Errorf("%s: %v", rel, err)
		}
	}
}

func TestNetworkNone(t *testing.T) {
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	sock := filepath.Join(t.TempDir(), "agent.sock")
	ul, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ul.Close()
	c := newConfined(t, Needs{}, Grant{Base: filepath.Dir(sock), Access: Write, Label: "the socket's folder"})
	expect(t, c, "EPERM", "connect", l.Addr().String())
	expect(t, c, "EPERM", "socket", "2", "1", "0")  // AF_INET stream
	expect(t, c, "EPERM", "socket", "10", "1", "0") // AF_INET6 stream
	expect(t, c, "EPERM", "socket", "2", "2", "0")  // UDP
	expect(t, c, "EPERM", "socket", "1", "1", "0")  // AF_UNIX: could reach ssh-agent or docker.sock
	expect(t, c, "EPERM", "socket", "16", "3", "0") // AF_NETLINK
	expect(t, c, "EPERM", "socket", "17", "3", "0") // AF_PACKET
	expect(t, c, "EPERM", "connect-unix", sock)
	expect(t, c, "ok", "socketpair", "1")    // stream pairs: asyncio, multiprocessing
	expect(t, c, "ok", "socketpair", "5")    // seqpacket
	expect(t, c, "EPERM", "socketpair", "2") // a datagram pair could send to /dev/log
}

func TestNetworkPorts(t *testing.T) {
	allowed, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer allowed.Close()
	other, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	go func() {
		for {
			c, err := allowed.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := uint16(allowed.Addr().(*net.TCPAddr).Port)
	c := newConfined(t, Needs{Ports: true})
	c.spec.Ports = []uint16{port}
	expect(t, c, "ok", "connect", allowed.Addr().String())
	expect(t, c, "EACCES", "connect", other.Addr().String())
	expect(t, c, "EACCES", "bind", "127.0.0.1:0")
	expect(t, c, "EPERM", "socket", "2", "2", "0")    // UDP: Landlock's rules are TCP only
	expect(t, c, "EPERM", "socket", "2", "3", "255")  // raw
	expect(t, c, "EPERM", "socket", "2", "1", "262")  // MPTCP, which Landlock's TCP rules miss
	expect(t, c, "EPERM", "socket", "1", "1", "0")    // AF_UNIX
	expect(t, c, "ok", "socket", "2", "1", "6")       // TCP
	expect(t, c, "ok", "socket", "10", "524289", "0") // AF_INET6, SOCK_STREAM|SOCK_CLOEXEC
}

// TCP Fast Open connects from sendto(MSG_FASTOPEN), which Landlock's
// connect rule does not see (it hooks connect(2)): on Linux 6.18 the data
// reaches a port the tool did not declare unless the filter refuses it.
// listen(2) without bind makes the kernel bind a port itself, which
// Landlock's bind rule does not see either.
func TestNetworkPortsNoBypass(t *testing.T) {
	allowed, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer allowed.Close()
	other, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	reached := make(chan struct{}, 1)
	go func() {
		for {
			c, err := other.Accept()
			if err != nil {
				return
			}
			reached <- struct{}{}
			c.Close()
		}
	}()
	c := newConfined(t, Needs{Ports: true})
	c.spec.Ports = []uint16{uint16(allowed.Addr().(*net.TCPAddr).Port)}
	// Unconfined, both work: the refusals below are the sandbox's.
	if got := act("fastopen", []string{other.Addr().String()}); got != "ok" {
		t.Fatalf("unconfined fastopen: %s", got)
	}
	<-reached
	if got := act("listen", nil); got != "ok" {
		t.Fatalf("unconfined listen: %s", got)
	}
	expect(t, c, "EPERM", "fastopen", other.Addr().String())
	expect(t, c, "EPERM", "listen")
	select {
	case <-reached:
		t.Error("a confined tool reached a port it did not declare")
	case <-time.After(100 * time.Millisecond):
	}
	expect(t, c, "ok", "connect", allowed.Addr().String())
}

// Landlock does not control chmod or extended attributes: a tool could
// make any file its user owns setuid or writable by others (as root, the
// system's programs), or give it to other users with an ACL. The filter
// refuses those modes and every change of extended attributes; other modes
// stay (a tool may chmod 0755 what it wrote).
func TestFileModesOutsideGrants(t *testing.T) {
	home := t.TempDir()
	key := filepath.Join(home, "id_ed25519")
	os.WriteFile(key, []byte("PRIVATE"), 0o600)
	out := t.TempDir()
	mine := filepath.Join(out, "script")
	os.WriteFile(mine, []byte("x"), 0o600)
	for _, a := range [][]string{{"chmod", mine, "4755"}, {"chmod", mine, "666"}, {"fchmod", mine, "2755"}, {"setxattr", mine}} {
		if got := act(a[0], a[1:]); got != "ok" {
			t.Fatalf("unconfined %v: %s", a, got)
		}
	}
	c := newConfined(t, Needs{}, Grant{Base: out, Access: Write, Label: "{run_dir}"})
	expect(t, c, "EPERM", "chmod", key, "4755")
	expect(t, c, "EPERM", "chmod", key, "2755")
	expect(t, c, "EPERM", "chmod", key, "606")
	expect(t, c, "EPERM", "fchmod", mine, "4755")
	expect(t, c, "EPERM", "setxattr", key)
	expect(t, c, "EPERM", "setxattr", mine)
	expect(t, c, "ok", "chmod", mine, "755")
	expect(t, c, "ok", "fchmod", mine, "700")
	if st, err := os.Stat(key); err != nil || st.Mode().Perm() != 0o600 || st.Mode()&os.ModeSetuid != 0 {
		t.Errorf("the key's mode changed: %v %v", st.Mode(), err)
	}
}

func TestSubprocess(t *testing.T) {
	c := newConfined(t, Needs{})
	expect(t, c, "EPERM", "spawn")
	expect(t, c, "EPERM", "fork")
	expect(t, c, "ENOSYS", "clone3")
	c.spec.Subprocess = true
	expect(t, c, "ok", "spawn")
	expect(t, c, "ENOSYS", "clone3")
}

func TestAlwaysDenied(t *testing.T) {
	c := newConfined(t, Needs{})
	c.spec.Subprocess = true
	expect(t, c, "EPERM", "io_uring")
	expect(t, c, "EPERM", "ptrace")
	expect(t, c, "EPERM", "bpf")
	expect(t, c, "EPERM", "userns")
	if os.Geteuid() == 0 {
		expect(t, c, "0000000000000000", "caps")
	}
	if c.spec.Kernel.LandlockABI >= ABIScopes {
		expect(t, c, "EPERM", "kill-parent")
	}
}

// The tool's environment reaches it through the policy; the helper's own
// is empty.
func TestEnvironmentThroughPolicy(t *testing.T) {
	c := newConfined(t, Needs{})
	if got := c.run("env", "CONFINE_TEST"); got != "1" {
		t.Errorf("CONFINE_TEST: %q", got)
	}
}

// An injected lower ABI (a field of the Spec's Kernel) is refused before
// anything starts, naming what was needed and found.
func TestUnenforceableRefused(t *testing.T) {
	c := newConfined(t, Needs{Ports: true})
	c.spec.Kernel.LandlockABI = 3
	c.spec.Ports = []uint16{443}
	_, err := c.try("read", "/etc/passwd")
	var ue *UnenforceableError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "Landlock ABI 4") || !strings.Contains(err.Error(), "ABI 3") {
		t.Fatalf("err = %v", err)
	}
	c = newConfined(t, Needs{})
	c.spec.Needs.Hosts = []string{"example.com:443"}
	if _, err := c.try("read", "/etc/passwd"); !errors.As(err, &ue) || !strings.Contains(err.Error(), "example.com:443") {
		t.Fatalf("host entry: %v", err)
	}
}

// The helper re-checks the kernel: a policy that needs more than the
// kernel has is refused by the helper itself, before executing anything.
func TestHelperRefusesTooNewABI(t *testing.T) {
	c := newConfined(t, Needs{})
	c.spec.Kernel.LandlockABI = 99 // what rye thought
	cmdSpec := *c.spec
	cmdSpec.Needs = Needs{}
	// Encode a policy asking for ABI 99 through a launcher whose Needs
	// say so: Needs.ABI cannot express it, so edit the encoding.
	exe, _ := os.Executable()
	cmd := &exec.Cmd{Path: exe, Args: []string{"confine-act", "read", "/etc/passwd"}, Env: []string{}}
	l := NewLauncher(&cmdSpec)
	defer l.Close()
	if err := l.Prepare(cmd); err != nil {
		t.Fatal(err)
	}
	// Replace the policy with one that needs ABI 99.
	p := &policy{ABI: 99, Path: exe, Argv: []string{"confine-act", "read", "/etc/passwd"}}
	f, err := memfd(p.Encode())
	if err != nil {
		t.Fatal(err)
	}
	cmd.ExtraFiles[0].Close()
	cmd.ExtraFiles[0] = f
	cmd.ExtraFiles = cmd.ExtraFiles[:2]
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	serr := l.Started()
	cmd.Wait()
	if serr == nil || !strings.Contains(serr.Error(), "ABI 99") || out.Len() != 0 {
		t.Fatalf("Started: %v; output %q", serr, out.String())
	}
}

// Attacks through /proc: the magic links of the tool's own /proc/self
// (root, cwd) lead to files Landlock judges where they are; the parent's
// /proc folder is not the tool's.
func TestProcSelfLinks(t *testing.T) {
	home := t.TempDir()
	secret := filepath.Join(home, "secret")
	os.WriteFile(secret, []byte("s"), 0o600)
	c := newConfined(t, Needs{})
	expect(t, c, "ok", "read", "/proc/self/status")
	expect(t, c, "ok", "read", "/proc/meminfo")
	expect(t, c, "EACCES", "read", "/proc/version")
	expect(t, c, "EACCES", "read", "/proc/self/root"+secret)
	expect(t, c, "EACCES", "read", "/proc/self/cwd/policy.go") // cwd: the package's folder, not granted
	expect(t, c, "EACCES", "read", fmt.Sprintf("/proc/%d/cmdline", os.Getpid()))
	expect(t, c, "EACCES", "read", "/proc/self/../1/environ")
}

// The tool inherits no descriptor of rye's or the helper's: not the
// policy, not the status pipe, not the ruleset, and none that rye
// inherited itself without close-on-exec (one is made here, as an agent
// that starts rye could leave one).
func TestNoDescriptorLeaks(t *testing.T) {
	fd, err := unix.Open("/dev/null", unix.O_RDONLY, 0) // no O_CLOEXEC: inherited by every child
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	c := newConfined(t, Needs{})
	if got := c.run("fds"); got != "0 1 2" {
		t.Errorf("open descriptors in the tool: %q, want 0 1 2", got)
	}
}

// The helper's environment is rye's choice: none of the tool's variables
// reach the helper's own Go runtime, and the tool gets exactly its own.
func TestHelperEnvironment(t *testing.T) {
	c := newConfined(t, Needs{})
	exe, _ := os.Executable()
	cmd := &exec.Cmd{Path: exe, Args: []string{"confine-act", "env", "GODEBUG"}, Env: []string{"GODEBUG=madvdontneed=1", "GOMAXPROCS=7"}}
	l := NewLauncher(c.spec)
	defer l.Close()
	if err := l.Prepare(cmd); err != nil {
		t.Fatal(err)
	}
	if strings.Join(cmd.Env, " ") != "GOMAXPROCS=1 GOGC=off" {
		t.Errorf("the helper's environment: %q", cmd.Env)
	}
}

// An interpreter whose installation folder is (or resolves to) the root,
// or holds the home folder or the project, is granted as a file alone.
func TestInterpreterPrefixRefused(t *testing.T) {
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, "bin"), 0o755)
	os.WriteFile(filepath.Join(home, "bin", "python3"), []byte("#!/bin/sh\n"), 0o755)
	gs, rep := interpreterGrants(filepath.Join(home, "bin", "python3"), []string{home})
	if len(rep.Granted) != 0 || len(rep.Refused) != 1 || len(gs) != 1 || gs[0].Base != filepath.Join(home, "bin", "python3") {
		t.Errorf("~/bin/python3: %+v %+v", gs, rep)
	}
	// A virtual environment that is a link to /.
	project := t.TempDir()
	os.Symlink("/", filepath.Join(project, ".venv"))
	gs, rep = interpreterGrants(filepath.Join(project, ".venv", "bin", "bash"), []string{home, project})
	for _, g := range gs {
		if g.Base == "/" {
			t.Errorf("the root folder granted: %+v", rep)
		}
	}
	if len(rep.Refused) == 0 {
		t.Errorf("a .venv -> / was not refused: %+v", rep)
	}
	// The system's interpreter: /usr.
	if _, rep := interpreterGrants("/usr/bin/bash", []string{home}); len(rep.Granted) == 0 || rep.Granted[0] != "/usr" {
		t.Errorf("/usr/bin/bash: %+v", rep)
	}
}

// A helper that others could have replaced is refused.
func TestFindHelperRefusesWritable(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cand := filepath.Join(filepath.Dir(exe), HelperName)
	if _, err := os.Lstat(cand); err == nil {
		t.Skipf("SKIPPED: %s exists already", cand)
	}
	if err := os.WriteFile(cand, []byte("#!/bin/sh\n"), 0o775); err != nil {
		t.Skipf("SKIPPED: cannot write beside the test binary: %v", err)
	}
	defer os.Remove(cand)
	os.Chmod(cand, 0o775)
	if _, err := FindHelper(); err == nil || !strings.Contains(err.Error(), "writable by others") {
		t.Errorf("group-writable helper: %v", err)
	}
	os.Chmod(cand, 0o755)
	if h, err := FindHelper(); err != nil || h.Path != cand {
		t.Errorf("helper: %+v %v", h, err)
	}
	os.Remove(cand)
	if h, err := FindHelper(); err != nil || h.Path != exe || len(h.Args) != 2 || h.Args[1] != HelperArg {
		t.Errorf("fallback: %+v %v", h, err)
	}
}

// A version manager answers for a shim before anything is confined, so
// what the tool's environment (its chain's env_config, which a tool's
// signer writes) sets must not run code there: BASH_ENV makes bash run a
// file first, PATH chooses the programs the manager script runs. The
// manager runs with the user's own environment and only the version
// variables of the tool's.
func TestShimManagerNotSteeredByToolEnv(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "escaped")
	evil := filepath.Join(dir, "evil.sh")
	os.WriteFile(evil, []byte("echo unconfined > "+marker+"\n"), 0o644)
	exe, _ := os.Executable()
	act := filepath.Join(dir, "versions", "confine-act") // the program the shim runs
	os.MkdirAll(filepath.Dir(act), 0o755)
	os.Symlink(exe, act)
	mgr := filepath.Join(dir, "root", "libexec", "mgr")
	os.MkdirAll(filepath.Dir(mgr), 0o755)
	os.WriteFile(mgr, []byte(`#!/bin/bash
[ "$1" = which ] || exit 2
[ "$PYENV_VERSION" = 3.12 ] || { echo "no version" >&2; exit 1; }
echo `+act+"\n"), 0o755)
	shim := filepath.Join(dir, "root", "shims", "confine-act")
	os.MkdirAll(filepath.Dir(shim), 0o755)
	os.WriteFile(shim, []byte("#!/bin/bash\nexec \""+mgr+"\" exec \"${0##*/}\" \"$@\"\n"), 0o755)
	if _, ok := findShim(shim); !ok {
		t.Fatal("not taken for a shim")
	}

	c := newConfined(t, Needs{})
	cmd := &exec.Cmd{Path: shim, Args: []string{"confine-act", "env", "X"}, Dir: dir,
		Env: []string{"BASH_ENV=" + evil, "PATH=" + dir + ":/usr/bin:/bin", "PYENV_VERSION=3.12", "X=confined"}}
	var out bytes.Buffer
	cmd.Stdout = &out
	l := NewLauncher(c.spec)
	defer l.Close()
	if err := l.Prepare(cmd); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	serr, werr := l.Started(), cmd.Wait()
	if serr != nil || werr != nil || out.String() != "confined" {
		t.Errorf("the tool: %v %v %q", serr, werr, out.String())
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the tool's BASH_ENV ran, unconfined, in the shim's manager")
	}
	if c.report.Interpreter == nil || c.report.Interpreter.Shim != shim {
		t.Errorf("report: %+v", c.report.Interpreter)
	}
}

// A process started by root with inheritable capabilities (what older
// container runtimes gave every process) keeps them across execve even
// with an empty bounding set: root's programs count as having every file
// capability, so the inheritable set becomes the permitted one. The helper
// must empty it too.
func TestNoInheritableCapabilities(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: only root's inheritable capabilities survive execve")
	}
	c := newConfined(t, Needs{})
	got := make(chan string, 1)
	go func() {
		// Capabilities are per thread, and the helper is forked from this
		// one; the thread ends with the goroutine (never unlocked).
		runtime.LockOSThread()
		hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
		var data [2]unix.CapUserData
		if err := unix.Capget(&hdr, &data[0]); err != nil {
			got <- err.Error()
			return
		}
		data[0].Inheritable, data[1].Inheritable = data[0].Permitted, data[1].Permitted
		if err := unix.Capset(&hdr, &data[0]); err != nil {
			got <- err.Error()
			return
		}
		out, err := c.try("capsets")
		if err != nil {
			out = err.Error()
		}
		got <- out
	}()
	want := "CapInh:0000000000000000 CapPrm:0000000000000000 CapEff:0000000000000000 CapAmb:0000000000000000"
	if out := <-got; out != want {
		t.Errorf("the confined tool's capabilities: %s, want %s", out, want)
	}
}
