package confine

import (
	"os"
	"os/exec"
	"testing"
)

// BenchmarkConfinedStart is a confined start of /bin/true through the
// test binary as helper, against BenchmarkPlainStart.
func BenchmarkConfinedStart(b *testing.B) {
	h := Helper{Args: []string{HelperName}}
	h.Path, _ = os.Executable()
	if p := os.Getenv("RYE_CONFINE_HELPER"); p != "" {
		h.Path = p // a built rye-confine, for its own start-up
	}
	k := Probe()
	for b.Loop() {
		spec := &Spec{Kernel: k, Helper: h, System: true}
		cmd := &exec.Cmd{Path: "/bin/true", Args: []string{"true"}, Env: []string{}}
		l := NewLauncher(spec)
		if err := l.Prepare(cmd); err != nil {
			b.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		if err := l.Started(); err != nil {
			b.Fatal(err)
		}
		cmd.Wait()
		l.Close()
	}
}

func BenchmarkPlainStart(b *testing.B) {
	for b.Loop() {
		cmd := &exec.Cmd{Path: "/bin/true", Args: []string{"true"}, Env: []string{}}
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPrepare is rye's side of a confined start: the defaults, the
// descriptors, the policy.
func BenchmarkPrepare(b *testing.B) {
	exe, _ := os.Executable()
	k := Probe()
	for b.Loop() {
		spec := &Spec{Kernel: k, Helper: Helper{Path: exe, Args: []string{HelperName}}, System: true}
		cmd := &exec.Cmd{Path: "/bin/true", Args: []string{"true"}, Env: []string{}}
		l := NewLauncher(spec)
		if err := l.Prepare(cmd); err != nil {
			b.Fatal(err)
		}
		l.Close()
	}
}

// BenchmarkConfinedStartNoGrants is a confined start with nothing but
// /usr and /lib granted: the helper's fixed cost.
func BenchmarkConfinedStartNoGrants(b *testing.B) {
	h := Helper{Args: []string{HelperName}}
	h.Path, _ = os.Executable()
	if p := os.Getenv("RYE_CONFINE_HELPER"); p != "" {
		h.Path = p
	}
	k := Probe()
	for b.Loop() {
		spec := &Spec{Kernel: k, Helper: h, Grants: []Grant{{Base: "/usr", Access: Exec}, {Base: "/lib64", Access: Exec}}}
		cmd := &exec.Cmd{Path: "/bin/true", Args: []string{"true"}, Env: []string{}}
		l := NewLauncher(spec)
		if err := l.Prepare(cmd); err != nil {
			b.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		if err := l.Started(); err != nil {
			b.Fatal(err)
		}
		cmd.Wait()
		l.Close()
	}
}
