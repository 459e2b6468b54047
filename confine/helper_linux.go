package confine

import (
	"errors"
	"fmt"
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// HelperMain is the whole of the confinement helper (cmd/rye-confine, and
// rye's hidden helper mode). It never returns: it executes the tool, or
// reports on the status descriptor why it did not and exits with status
// 127.
//
// It reads nothing but the policy descriptor: not its arguments, not its
// environment (rye starts it with an empty one; the tool's environment is
// in the policy), not a file by path.
func HelperMain() {
	runtime.LockOSThread() // everything below applies to this thread, which executes the tool
	if !startedByRye() {
		fmt.Fprintf(os.Stderr, "%s: this program is started by rye execute, which hands it a policy; it does nothing on its own\n", HelperName)
		os.Exit(2)
	}
	p, err := readPolicy()
	if err == nil {
		// Every descriptor above the status pipe closes on exec: rye's
		// ruleset is closed already, and whatever rye itself inherited
		// without close-on-exec (an agent's socket, say) would otherwise
		// reach the tool, which Landlock does not judge.
		err = unix.CloseRange(statusFD+1, ^uint(0), unix.CLOSE_RANGE_CLOEXEC)
	}
	if err == nil {
		err = apply(p)
	}
	if err == nil {
		err = unix.Exec(p.Path, p.Argv, p.Env)
		err = execProblem(p, err)
	}
	msg := []byte(err.Error())
	for len(msg) > 0 {
		n, werr := unix.Write(statusFD, msg)
		if werr != nil || n <= 0 {
			break
		}
		msg = msg[n:]
	}
	os.Exit(127)
}

// startedByRye checks the descriptors rye hands over: a sealed memory file
// on 3, a pipe on 4 (which it marks close-on-exec). Run any other way, the
// helper touches neither.
func startedByRye() bool {
	var st unix.Stat_t
	if unix.Fstat(statusFD, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFIFO {
		return false
	}
	seals, err := unix.FcntlInt(policyFD, unix.F_GET_SEALS, 0)
	if err != nil || seals&unix.F_SEAL_WRITE == 0 {
		return false
	}
	_, err = unix.FcntlInt(statusFD, unix.F_SETFD, unix.FD_CLOEXEC)
	return err == nil
}

// readPolicy reads and decodes the policy descriptor, then closes it.
func readPolicy() (*policy, error) {
	defer unix.Close(policyFD)
	var st unix.Stat_t
	if err := unix.Fstat(policyFD, &st); err != nil {
		return nil, fmt.Errorf("policy descriptor: %v", err)
	}
	if st.Size > maxPolicySize {
		return nil, fmt.Errorf("policy: %d bytes is more than %d", st.Size, maxPolicySize)
	}
	buf := make([]byte, st.Size)
	for off := 0; off < len(buf); {
		n, err := unix.Pread(policyFD, buf[off:], int64(off))
		if err != nil {
			return nil, fmt.Errorf("policy descriptor: %v", err)
		}
		if n == 0 {
			return nil, errors.New("policy descriptor: shorter than its size")
		}
		off += n
	}
	return decodePolicy(buf)
}

// execProblem words a failed execve as rye words a program that cannot
// start.
func execProblem(p *policy, err error) error {
	switch {
	case errors.Is(err, unix.ENOENT):
		return fmt.Errorf("cannot execute %s: it, its interpreter (#! line) or its loader was not found", p.Path)
	case errors.Is(err, unix.EACCES):
		return fmt.Errorf("cannot execute %s: permission denied (a program, or its #! interpreter, outside what the sandbox lets the tool execute: the system folders, the interpreter's installation and the run's verified files)", p.Path)
	case errors.Is(err, unix.ENOEXEC):
		return fmt.Errorf("cannot execute %s: not a program this system can run (a script without a #! line?)", p.Path)
	}
	return fmt.Errorf("cannot execute %s: %v", p.Path, err)
}
