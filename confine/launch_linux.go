package confine

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// interpreterGrants are the grants for the program rye executes (program:
// the path found on PATH): its installation folder, read and execute, for
// the program as found and for its real path (a virtual environment's
// python is a link to the system's). The installation of a program in
// .../bin or .../sbin is the folder above; a program elsewhere gets its
// own file only. An installation folder that is / or holds one of notIn
// (the home folder, the project, the user space) is refused, and only the
// program's file is granted: a ~/bin/python3 must not open the whole home
// folder.
func interpreterGrants(program string, notIn []string) ([]Grant, *prefixes) {
	rep := &prefixes{Program: program}
	var gs []Grant
	cands := []string{program}
	if real, err := filepath.EvalSymlinks(program); err == nil && real != program {
		cands = append(cands, real)
	}
	for _, c := range cands {
		dir := filepath.Dir(c)
		if b := filepath.Base(dir); b != "bin" && b != "sbin" {
			gs = append(gs, Grant{Base: c, Access: Exec, Optional: true, Label: "the interpreter"})
			continue
		}
		prefix, err := filepath.EvalSymlinks(filepath.Dir(dir))
		if err != nil {
			continue
		}
		if why := refusedPrefix(prefix, notIn); why != "" {
			rep.Refused = append(rep.Refused, prefix+": "+why)
			gs = append(gs, Grant{Base: c, Access: Exec, Optional: true, Label: "the interpreter"})
			continue
		}
		rep.Granted = append(rep.Granted, prefix)
		gs = append(gs, Grant{Base: prefix, Access: Exec, Optional: true, Label: "the interpreter's installation"})
	}
	return gs, rep
}

func refusedPrefix(prefix string, notIn []string) string {
	if prefix == "/" {
		return "the root folder; only the program file is granted"
	}
	for _, n := range notIn {
		if n == "" {
			continue
		}
		if real, err := filepath.EvalSymlinks(n); err == nil {
			n = real
		}
		if within(prefix, n) {
			return fmt.Sprintf("holds %s, which the defaults do not open; only the program file is granted", n)
		}
	}
	return ""
}

// openGrant opens a grant's path for the helper (O_PATH): Base following
// symbolic links, Rel below it following none. It returns nil, nil for a
// path that does not exist.
func openGrant(g Grant) (*os.File, error) {
	base, err := unix.Open(g.Base, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) {
			return nil, nil
		}
		return nil, fmt.Errorf("%s: %v", g.Base, err)
	}
	if g.Rel == "" {
		return os.NewFile(uintptr(base), g.Base), nil
	}
	defer unix.Close(base)
	fd, err := unix.Openat2(base, g.Rel, &unix.OpenHow{
		Flags:   unix.O_PATH | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS | unix.RESOLVE_BENEATH,
	})
	switch {
	case errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR):
		return nil, nil
	case errors.Is(err, unix.ELOOP) || errors.Is(err, unix.EXDEV):
		return nil, fmt.Errorf("%s: %s passes through a symbolic link; rye grants a declared path only as it is, never where a link points (a link there may come from a change under review)", g.Label, g.Path())
	case err != nil:
		return nil, fmt.Errorf("%s: %s: %v", g.Label, g.Path(), err)
	}
	return os.NewFile(uintptr(fd), g.Path()), nil
}

// FindHelper finds rye-confine in the folder of the running executable;
// without one it returns rye itself with HelperArg. A helper that others
// could have written (not a regular executable file, writable by group or
// others, owned by another user than you or root) is an error: it would
// run every confined tool.
func FindHelper() (Helper, error) {
	exe, err := os.Executable()
	if err != nil {
		return Helper{}, fmt.Errorf("cannot find rye's own executable for the confinement helper: %v", err)
	}
	cand := filepath.Join(filepath.Dir(exe), HelperName)
	info, err := os.Stat(cand)
	if errors.Is(err, fs.ErrNotExist) {
		return Helper{Path: exe, Args: []string{"rye", HelperArg}}, nil
	}
	if err != nil {
		return Helper{}, fmt.Errorf("the confinement helper %s: %v", cand, err)
	}
	st, _ := info.Sys().(*unix.Stat_t)
	switch {
	case !info.Mode().IsRegular() || info.Mode().Perm()&0o111 == 0:
		return Helper{}, fmt.Errorf("the confinement helper %s is not an executable file: reinstall it (go install ./cmd/...) or remove it (rye then runs itself as the helper)", cand)
	case info.Mode().Perm()&0o022 != 0:
		return Helper{}, fmt.Errorf("the confinement helper %s is writable by others (mode %v): chmod go-w %s", cand, info.Mode().Perm(), cand)
	case st != nil && st.Uid != 0 && int(st.Uid) != os.Geteuid():
		return Helper{}, fmt.Errorf("the confinement helper %s belongs to user %d, not to you or root: reinstall it", cand, st.Uid)
	}
	return Helper{Path: cand, Args: []string{HelperName}}, nil
}

// Prepare turns cmd (its Path resolved, its Args, Env and Dir final) into
// a start of the helper, which receives the program, its arguments and its
// environment in the policy, and the Landlock ruleset, complete but for
// /proc/self, on descriptor 5.
func (l *Launcher) Prepare(cmd *exec.Cmd) error {
	s := l.spec
	if err := Check(s.Kernel, s.Needs); err != nil {
		return err
	}
	if len(cmd.ExtraFiles) > 0 {
		return errors.New("confine: the command already passes descriptors")
	}
	rs := s.Ruleset
	if rs == nil {
		rs = BuildRuleset(s.Kernel, s.System)
		defer rs.Close()
	}
	if err := rs.wait(); err != nil {
		return fmt.Errorf("confine: the Landlock ruleset: %v", err)
	}
	shim := ""
	if sh, ok := findShim(cmd.Path); ok {
		real, err := sh.Resolve(cmd.Dir, s.UserEnv, cmd.Env)
		if err != nil {
			return fmt.Errorf("confine: %v; a confined tool runs the program a shim would pick, never the shim", err)
		}
		shim, cmd.Path = sh.Path, real
		if len(cmd.Args) > 0 {
			cmd.Args[0] = real // so that the interpreter finds its installation from its own path
		}
	}
	interp, prefixes := interpreterGrants(cmd.Path, s.NotIn)
	prefixes.Shim = shim
	l.interp = prefixes
	for _, g := range append(append([]Grant(nil), s.Grants...), interp...) {
		f, err := openGrant(g)
		if err != nil {
			return err
		}
		if f == nil {
			if !g.Optional {
				l.missing = append(l.missing, g.Label+" ("+g.Path()+")")
			}
			continue
		}
		err = rs.addFile(f, g.Access)
		f.Close()
		if err != nil {
			return fmt.Errorf("confine: landlock rule for %s: %v", g.Path(), err)
		}
	}
	for _, port := range s.Ports {
		if err := rs.addPort(port); err != nil {
			return fmt.Errorf("confine: %v", err)
		}
	}
	p := &policy{ABI: s.Needs.ABI(), ProcSelf: s.System, Ports: s.Ports, Subprocess: s.Subprocess, Path: cmd.Path, Argv: cmd.Args, Env: cmd.Env}
	if p.Env == nil {
		p.Env = []string{}
	}
	policy, err := memfd(p.Encode())
	if err != nil {
		return fmt.Errorf("confine: the policy: %v", err)
	}
	dup, err := unix.FcntlInt(uintptr(rs.fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		policy.Close()
		return fmt.Errorf("confine: %v", err)
	}
	ruleset := os.NewFile(uintptr(dup), "landlock-ruleset")
	statusR, statusW, err := os.Pipe()
	if err != nil {
		closeAll([]*os.File{policy, ruleset})
		return fmt.Errorf("confine: %v", err)
	}
	l.statusR = statusR
	l.files = []*os.File{policy, statusW, ruleset}
	cmd.Path = s.Helper.Path
	cmd.Args = s.Helper.Args
	// The helper reads nothing from its environment (the tool's is in the
	// policy); these two keep its Go runtime small: one processor, and no
	// garbage collection in a program that lives a millisecond.
	cmd.Env = []string{"GOMAXPROCS=1", "GOGC=off"}
	cmd.ExtraFiles = l.files
	return nil
}

// memfd holds the encoded policy in a sealed memory file: the helper
// reads it from its descriptor, and nothing can change it once sealed.
func memfd(data []byte) (*os.File, error) {
	fd, err := unix.MemfdCreate("rye-confine-policy", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), "rye-confine-policy")
	if _, err := f.Write(data); err != nil {
		f.Close()
		return nil, err
	}
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_ADD_SEALS, unix.F_SEAL_SEAL|unix.F_SEAL_SHRINK|unix.F_SEAL_GROW|unix.F_SEAL_WRITE); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// Started closes rye's copies of the helper's descriptors and waits until
// the helper has executed the program (its status pipe closes with nothing
// written) or has said why it did not (the returned error; the helper then
// exits 127 without running anything).
func (l *Launcher) Started() error {
	closeAll(l.files)
	l.files = nil
	if l.statusR == nil {
		return errors.New("confine: Started before Prepare")
	}
	msg, err := io.ReadAll(io.LimitReader(l.statusR, 64<<10))
	l.statusR.Close()
	l.statusR = nil
	switch {
	case err != nil:
		return fmt.Errorf("confine: reading the helper's status: %v", err)
	case len(msg) > 0:
		return fmt.Errorf("the tool was not started: %s", msg)
	}
	if r := l.spec.Report; r != nil {
		r.Verdict = "enforced"
		r.Helper = l.spec.Helper.Path
		if len(l.spec.Helper.Args) > 1 {
			r.Helper += " (rye in its helper mode: rye-confine is not installed beside it)"
		}
		r.Missing = l.missing
		r.Interpreter = l.interp
	}
	return nil
}

// Close releases whatever Prepare opened and Started has not closed.
func (l *Launcher) Close() {
	closeAll(l.files)
	l.files = nil
	if l.statusR != nil {
		l.statusR.Close()
		l.statusR = nil
	}
}

func closeAll(fs []*os.File) {
	for _, f := range fs {
		f.Close()
	}
}
