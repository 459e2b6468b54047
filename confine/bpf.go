package confine

import "fmt"

// A small assembler for classic BPF, the language of seccomp filters:
// enough for rye's filter, with forward jumps to labels.

// bpfInsn is one classic BPF instruction (struct sock_filter).
type bpfInsn struct {
	Code   uint16
	Jt, Jf uint8
	K      uint32
}

// Opcodes (linux/bpf_common.h).
const (
	bpfLdWAbs  = 0x20 // BPF_LD | BPF_W | BPF_ABS: A = word at offset k of seccomp_data
	bpfJeq     = 0x15 // BPF_JMP | BPF_JEQ | BPF_K
	bpfJge     = 0x35 // BPF_JMP | BPF_JGE | BPF_K
	bpfJset    = 0x45 // BPF_JMP | BPF_JSET | BPF_K
	bpfJa      = 0x05 // BPF_JMP | BPF_JA (the filter has none; the tests' interpreter knows it)
	bpfAndK    = 0x54 // BPF_ALU | BPF_AND | BPF_K
	bpfRetK    = 0x06 // BPF_RET | BPF_K
	bpfMaxInsn = 4096 // BPF_MAXINSNS
)

// Offsets in struct seccomp_data.
const (
	seccompNr   = 0
	seccompArch = 4
)

// seccompArgLow is the offset of the low 32 bits of argument i (the
// architectures rye filters are little-endian).
func seccompArgLow(i int) uint32 { return uint32(16 + 8*i) }

type bpfRef struct {
	at    int
	label string
	field byte // 't' or 'f'
}

// bpfAsm collects instructions and resolves labels.
type bpfAsm struct {
	ins    []bpfInsn
	labels map[string]int
	refs   []bpfRef
}

func (a *bpfAsm) emit(i bpfInsn) { a.ins = append(a.ins, i) }

func (a *bpfAsm) ld(off uint32)  { a.emit(bpfInsn{Code: bpfLdWAbs, K: off}) }
func (a *bpfAsm) and(k uint32)   { a.emit(bpfInsn{Code: bpfAndK, K: k}) }
func (a *bpfAsm) ret(k uint32)   { a.emit(bpfInsn{Code: bpfRetK, K: k}) }
func (a *bpfAsm) label(l string) { a.labels[l] = len(a.ins) }

// jump emits a conditional jump to jt when the condition holds and to jf
// otherwise; "" is the next instruction.
func (a *bpfAsm) jump(code uint16, k uint32, jt, jf string) {
	at := len(a.ins)
	a.emit(bpfInsn{Code: code, K: k})
	if jt != "" {
		a.refs = append(a.refs, bpfRef{at, jt, 't'})
	}
	if jf != "" {
		a.refs = append(a.refs, bpfRef{at, jf, 'f'})
	}
}

func (a *bpfAsm) jeq(k uint32, jt, jf string)  { a.jump(bpfJeq, k, jt, jf) }
func (a *bpfAsm) jset(k uint32, jt, jf string) { a.jump(bpfJset, k, jt, jf) }
func (a *bpfAsm) jge(k uint32, jt, jf string)  { a.jump(bpfJge, k, jt, jf) }

// assemble resolves the labels. Jumps go forward only (classic BPF has no
// other), and a conditional jump reaches at most 255 instructions: the
// filter is short enough to need no unconditional one.
func (a *bpfAsm) assemble() ([]bpfInsn, error) {
	if len(a.ins) > bpfMaxInsn {
		return nil, fmt.Errorf("seccomp filter: %d instructions, more than %d", len(a.ins), bpfMaxInsn)
	}
	for _, r := range a.refs {
		to, ok := a.labels[r.label]
		if !ok {
			return nil, fmt.Errorf("seccomp filter: no label %q", r.label)
		}
		off := to - r.at - 1
		if off < 0 || off > 255 {
			return nil, fmt.Errorf("seccomp filter: the jump from %d to %q (%d) is out of range", r.at, r.label, to)
		}
		if r.field == 't' {
			a.ins[r.at].Jt = uint8(off)
		} else {
			a.ins[r.at].Jf = uint8(off)
		}
	}
	return a.ins, nil
}
