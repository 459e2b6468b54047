package confine

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// SystemGrants are the defaults every confined tool may read: /usr,
// /bin and /lib* (read and execute: the system's programs and libraries),
// /etc less its secret files (etcSecrets), the random devices and
// /dev/zero, /dev/null (read and write), and the CPU topology in
// /sys/devices/system/cpu (how many processors there are: libc, Python
// and Node size their pools by it). /proc/self is granted by the helper
// itself (Policy.ProcSelf).
func SystemGrants() []Grant {
	gs := []Grant{
		{Base: "/usr", Access: Exec, Optional: true, Label: "/usr"},
		{Base: "/bin", Access: Exec, Optional: true, Label: "/bin"},
	}
	if libs, _ := filepath.Glob("/lib*"); len(libs) > 0 {
		for _, l := range libs {
			gs = append(gs, Grant{Base: l, Access: Exec, Optional: true, Label: "/lib*"})
		}
	}
	gs = etcGrants("/etc", "", gs)
	devRead := AccessReadFile
	for _, d := range []string{"/dev/random", "/dev/urandom", "/dev/zero"} {
		gs = append(gs, Grant{Base: d, Access: devRead, Optional: true, Label: d})
	}
	gs = append(gs,
		Grant{Base: "/dev/null", Access: AccessReadFile | AccessWriteFile | AccessTruncate, Optional: true, Label: "/dev/null"},
		Grant{Base: "/sys/devices/system/cpu", Access: Read, Optional: true, Label: "/sys/devices/system/cpu"},
	)
	return gs
}

// etcGrants adds /etc's entries below dir (rel below /etc) that are not
// secrets: the folder itself may be listed, each entry is granted on its
// own, and folders that hold a secret are descended into. An entry that
// is a symbolic link is granted at its target, unless the target is in
// /proc, /sys or /dev, or is itself a secret.
func etcGrants(dir, rel string, gs []Grant) []Grant {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return gs
	}
	gs = append(gs, Grant{Base: dir, Access: AccessReadDir, Optional: true, Label: "/etc"})
	for _, e := range entries {
		r := e.Name()
		if rel != "" {
			r = rel + "/" + r
		}
		p := filepath.Join(dir, e.Name())
		switch etcVerdict(r) {
		case "deny":
			continue
		case "descend":
			if e.IsDir() {
				gs = etcGrants(p, r, gs)
			}
			continue
		}
		if e.Type()&fs.ModeSymlink != 0 {
			target, err := filepath.EvalSymlinks(p)
			if err != nil || !safeEtcTarget(target) {
				continue
			}
			p = target
		}
		gs = append(gs, Grant{Base: p, Access: Read, Optional: true, Label: "/etc"})
	}
	return gs
}

func safeEtcTarget(target string) bool {
	for _, root := range []string{"/proc", "/sys", "/dev"} {
		if within(root, target) {
			return false
		}
	}
	if rel, ok := strings.CutPrefix(target, "/etc/"); ok {
		for r := rel; r != "."; r = filepath.Dir(r) {
			if etcVerdict(r) == "deny" {
				return false
			}
		}
	}
	return true
}

// InterpreterGrants are the grants for the program rye executes (program:
// the path found on PATH): its installation folder, read and execute, for
// the program as found and for its real path (a virtual environment's
// python is a link to the system's). The installation of a program in
// .../bin or .../sbin is the folder above; a program elsewhere gets its
// own file only. An installation folder that is / or holds one of notIn
// (the home folder, the project, the user space) is refused, and only the
// program's file is granted: a ~/bin/python3 must not open the whole home
// folder.
func InterpreterGrants(program string, notIn []string) ([]Grant, *Prefixes) {
	rep := &Prefixes{Program: program}
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
// environment in the policy.
func (l *Launcher) Prepare(cmd *exec.Cmd) error {
	s := l.spec
	if err := Check(s.Kernel, s.Needs); err != nil {
		return err
	}
	if len(cmd.ExtraFiles) > 0 {
		return errors.New("confine: the command already passes descriptors")
	}
	interp, prefixes := InterpreterGrants(cmd.Path, s.NotIn)
	l.interp = prefixes
	p := &Policy{ABI: s.Needs.ABI(), ProcSelf: true, Ports: s.Ports, Subprocess: s.Subprocess, Path: cmd.Path, Argv: cmd.Args, Env: cmd.Env}
	if p.Env == nil {
		p.Env = []string{}
	}
	var rules []*os.File
	for _, g := range append(append([]Grant(nil), s.Grants...), interp...) {
		f, err := openGrant(g)
		if err != nil {
			closeAll(rules)
			return err
		}
		if f == nil {
			if !g.Optional {
				l.missing = append(l.missing, g.Label+" ("+g.Path()+")")
			}
			continue
		}
		rules = append(rules, f)
		p.Rules = append(p.Rules, Rule{FD: firstRuleFD + len(p.Rules), Access: g.Access})
	}
	policy, err := memfd(p.Encode())
	if err != nil {
		closeAll(rules)
		return fmt.Errorf("confine: the policy: %v", err)
	}
	statusR, statusW, err := os.Pipe()
	if err != nil {
		closeAll(append(rules, policy))
		return fmt.Errorf("confine: %v", err)
	}
	l.statusR = statusR
	l.files = append([]*os.File{policy, statusW}, rules...)
	cmd.Path = s.Helper.Path
	cmd.Args = s.Helper.Args
	cmd.Env = []string{} // the helper reads nothing from its environment; the tool's is in the policy
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
