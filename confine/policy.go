package confine

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
)

// Access is a set of Landlock filesystem rights (the kernel's bit values,
// so that they pass to it unchanged).
type Access uint64

// The Landlock filesystem rights rye uses (include/uapi/linux/landlock.h).
const (
	accessExecute    Access = 1 << 0
	accessWriteFile  Access = 1 << 1
	accessReadFile   Access = 1 << 2
	accessReadDir    Access = 1 << 3
	accessRemoveDir  Access = 1 << 4
	accessRemoveFile Access = 1 << 5
	accessMakeChar   Access = 1 << 6
	accessMakeDir    Access = 1 << 7
	accessMakeReg    Access = 1 << 8
	accessMakeSock   Access = 1 << 9
	accessMakeFifo   Access = 1 << 10
	accessMakeBlock  Access = 1 << 11
	accessMakeSym    Access = 1 << 12
	accessRefer      Access = 1 << 13 // ABI 2
	accessTruncate   Access = 1 << 14 // ABI 3
	accessIoctlDev   Access = 1 << 15 // ABI 5
)

// What rye grants.
const (
	// Read lets a folder be listed and its files read.
	Read = accessReadFile | accessReadDir
	// Exec is Read and running programs: the system folders, the
	// interpreter's installation and the run's verified files.
	Exec = Read | accessExecute
	// Write is Read and changing files and folders. Never devices
	// (accessMakeChar, accessMakeBlock: a device node of the disk would
	// read everything), never executing what was written, never device
	// ioctls.
	Write = Read | accessWriteFile | accessRemoveDir | accessRemoveFile | accessMakeDir |
		accessMakeReg | accessMakeSock | accessMakeFifo | accessMakeSym | accessRefer | accessTruncate
	// fileAccess are the rights that apply to a file (the others are
	// about folders, and the kernel refuses them on a file).
	fileAccess = accessExecute | accessWriteFile | accessReadFile | accessTruncate | accessIoctlDev
)

// fileRights are the rights of a that apply to a file that is not a folder.
func fileRights(a Access) Access { return a & fileAccess }

// handledAccess are the rights a ruleset handles (denies unless a rule
// grants them) at a Landlock ABI: all that the ABI knows, up to ABI 7.
func handledAccess(abi int) Access {
	a := Access(1<<13 - 1) // ABI 1
	if abi >= 2 {
		a |= accessRefer
	}
	if abi >= 3 {
		a |= accessTruncate
	}
	if abi >= 5 {
		a |= accessIoctlDev
	}
	return a
}

func (a Access) String() string {
	switch a {
	case Read:
		return "read"
	case Exec:
		return "read+execute"
	case Write:
		return "read+write"
	}
	return fmt.Sprintf("%#x", uint64(a))
}

// policy is what the helper applies before it executes the tool: it is
// everything the helper reads, handed to it on a file descriptor by rye.
type policy struct {
	// ABI is the lowest Landlock ABI that enforces the declaration; the
	// helper refuses to run on a kernel below it. The filesystem and port
	// rules are in the Landlock ruleset rye built, on descriptor 5.
	ABI int
	// ProcSelf adds reading /proc/self to the ruleset, which only the
	// helper can open (in rye it would name rye).
	ProcSelf bool
	// Ports are the TCP ports the tool may connect to (the ruleset has
	// them; the seccomp filter lets TCP sockets be made when there are
	// any); none means no network at all.
	Ports []uint16
	// Subprocess lets the tool start other programs.
	Subprocess bool
	// Path, Argv and Env are the program the helper executes.
	Path string
	Argv []string
	Env  []string
}

// Limits of an encoded policy: far above any real tool, low enough that a
// hostile encoding cannot make the helper allocate without bound.
const (
	maxPolicySize = 64 << 20
	maxPorts      = 1 << 12
	maxStrings    = 1 << 18
	rulesetFD     = 5 // 3: the policy, 4: the status pipe
)

// policyMagic starts every encoded policy; a helper that reads another
// version refuses it (an old rye-confine beside a newer rye).
const policyMagic = "rye-confine policy 2\n"

const (
	flagSubprocess = 1 << iota
	flagProcSelf
)

// Encode writes the policy in the helper's format.
func (p *policy) Encode() []byte {
	b := []byte(policyMagic)
	b = binary.AppendUvarint(b, uint64(p.ABI))
	var flags uint64
	if p.Subprocess {
		flags |= flagSubprocess
	}
	if p.ProcSelf {
		flags |= flagProcSelf
	}
	b = binary.AppendUvarint(b, flags)
	b = binary.AppendUvarint(b, uint64(len(p.Ports)))
	for _, port := range p.Ports {
		b = binary.AppendUvarint(b, uint64(port))
	}
	b = appendString(b, p.Path)
	for _, list := range [][]string{p.Argv, p.Env} {
		b = binary.AppendUvarint(b, uint64(len(list)))
		for _, s := range list {
			b = appendString(b, s)
		}
	}
	return b
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// decoder reads an encoded policy, failing on the first problem.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("policy: "+format, args...)
	}
}

func (d *decoder) uvarint(what string, max uint64) uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail("%s: truncated or malformed number", what)
		return 0
	}
	// Only the shortest encoding: one policy has one encoding.
	if n != len(binary.AppendUvarint(nil, v)) {
		d.fail("%s: a number is not in its shortest form", what)
		return 0
	}
	if v > max {
		d.fail("%s: %d is more than %d", what, v, max)
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) string(what string) string {
	n := d.uvarint(what, maxPolicySize)
	if d.err == nil && n > uint64(len(d.b)) {
		d.fail("%s: %d bytes, but only %d are left", what, n, len(d.b))
	}
	if d.err != nil {
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	if strings.IndexByte(s, 0) >= 0 {
		d.fail("%s holds a NUL byte", what)
	}
	return s
}

// decodePolicy reads a policy that Encode wrote, checking everything the
// helper relies on: ports from 1 to 65535, an absolute program path, an
// argument list that is not empty, no NUL byte anywhere.
func decodePolicy(b []byte) (*policy, error) {
	if len(b) > maxPolicySize {
		return nil, fmt.Errorf("policy: %d bytes is more than %d", len(b), maxPolicySize)
	}
	if !strings.HasPrefix(string(b), policyMagic) {
		return nil, errors.New("policy: not a policy of this version of rye-confine (is the helper beside rye from another version? install both: go install ./cmd/...)")
	}
	d := &decoder{b: b[len(policyMagic):]}
	p := &policy{}
	p.ABI = int(d.uvarint("abi", 1<<16))
	flags := d.uvarint("flags", flagSubprocess|flagProcSelf)
	p.Subprocess, p.ProcSelf = flags&flagSubprocess != 0, flags&flagProcSelf != 0
	n := d.uvarint("ports", maxPorts)
	for i := uint64(0); i < n && d.err == nil; i++ {
		port := d.uvarint("port", 65535)
		if d.err == nil && port == 0 {
			d.fail("port 0")
		}
		p.Ports = append(p.Ports, uint16(port))
	}
	p.Path = d.string("program path")
	if d.err == nil && !strings.HasPrefix(p.Path, "/") {
		d.fail("program path %q is not absolute", p.Path)
	}
	for _, list := range []*[]string{&p.Argv, &p.Env} {
		n := d.uvarint("list length", maxStrings)
		for i := uint64(0); i < n && d.err == nil; i++ {
			*list = append(*list, d.string("argument or variable"))
		}
	}
	if d.err == nil && len(p.Argv) == 0 {
		d.fail("no arguments (argv[0] is the program's name)")
	}
	if d.err == nil && len(d.b) > 0 {
		d.fail("%d bytes after the end", len(d.b))
	}
	if d.err != nil {
		return nil, d.err
	}
	return p, nil
}
