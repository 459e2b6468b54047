package confine

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func samplePolicy() *policy {
	return &policy{ABI: 4, ProcSelf: true,
		Ports: []uint16{443, 8080}, Path: "/usr/bin/bash", Argv: []string{"bash", "/run/t.sh"}, Env: []string{"PATH=/usr/bin", "A="}}
}

func TestPolicyRoundTrip(t *testing.T) {
	for _, p := range []*policy{samplePolicy(), {Path: "/x", Argv: []string{"x"}, Env: []string{}}, {ABI: 3, Subprocess: true, Path: "/bin/sh", Argv: []string{""}}} {
		got, err := decodePolicy(p.Encode())
		if err != nil {
			t.Fatal(err)
		}
		if got.Env == nil {
			got.Env = p.Env
		}
		if !reflect.DeepEqual(got, p) {
			t.Errorf("round trip: %+v, want %+v", got, p)
		}
	}
}

func TestDecodePolicyRefuses(t *testing.T) {
	good := samplePolicy().Encode()
	edit := func(f func(p *policy)) []byte { p := samplePolicy(); f(p); return p.Encode() }
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "not a policy"},
		{"other version", append([]byte("rye-confine policy 1\n"), good[len(policyMagic):]...), "not a policy"},
		{"trailing", append(bytes.Clone(good), 0), "after the end"},
		{"truncated", good[:len(good)-3], "truncated"},
		{"unknown flags", append(append([]byte(policyMagic), 4, 8), good[len(policyMagic)+2:]...), "more than"},
		{"port 0", edit(func(p *policy) { p.Ports = []uint16{0} }), "port 0"},
		{"relative program", edit(func(p *policy) { p.Path = "bash" }), "not absolute"},
		{"NUL", edit(func(p *policy) { p.Env = []string{"A=\x00"} }), "NUL"},
		{"no argv", edit(func(p *policy) { p.Argv = nil }), "no arguments"},
	} {
		_, err := decodePolicy(c.data)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// FuzzDecodePolicy: the helper's reader never panics, and what it accepts
// has one encoding (so that what rye wrote is what the helper applies).
func FuzzDecodePolicy(f *testing.F) {
	f.Add(samplePolicy().Encode())
	f.Add((&policy{Path: "/x", Argv: []string{"x"}}).Encode())
	f.Add([]byte(policyMagic))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := decodePolicy(data)
		if err != nil {
			return
		}
		if again := p.Encode(); !bytes.Equal(again, data) {
			t.Fatalf("accepted an encoding that is not canonical:\n%q\n%q", data, again)
		}
		for _, port := range p.Ports {
			if port == 0 {
				t.Fatal("port 0")
			}
		}
		if !strings.HasPrefix(p.Path, "/") || len(p.Argv) == 0 {
			t.Fatalf("program %q %q", p.Path, p.Argv)
		}
	})
}

func TestCheck(t *testing.T) {
	linux := Kernel{OS: "linux", Arch: "amd64", LandlockABI: 7, Seccomp: true}
	for _, c := range []struct {
		name string
		k    Kernel
		n    Needs
		want []string // "" for none
	}{
		{"enforceable", linux, Needs{Ports: true}, nil},
		{"no landlock", Kernel{OS: "linux", LandlockErr: "the kernel is built without Landlock", Seccomp: true}, Needs{}, []string{"Landlock ABI 3", "without Landlock"}},
		{"ABI 2", Kernel{OS: "linux", LandlockABI: 2, Seccomp: true}, Needs{}, []string{"Landlock ABI 3", "truncate", "found linux/, Landlock ABI 2"}},
		{"ports on ABI 3", Kernel{OS: "linux", LandlockABI: 3, Seccomp: true}, Needs{Ports: true}, []string{"Landlock ABI 4", "TCP port rules", "ABI 3"}},
		{"no seccomp", Kernel{OS: "linux", LandlockABI: 7}, Needs{}, []string{"seccomp filter"}},
		{"hosts", linux, Needs{Hosts: []string{"example.com:443"}}, []string{"network namespace and a proxy", "example.com:443", `":port"`}},
		{"http_client", linux, Needs{InProcess: "the http_client primitive runs inside rye"}, []string{"a process of its own"}},
		{"darwin", Kernel{OS: "darwin"}, Needs{}, []string{"Linux"}},
	} {
		err := Check(c.k, c.n)
		if c.want == nil {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		var ue *UnenforceableError
		if !errors.As(err, &ue) {
			t.Errorf("%s: %v, want an UnenforceableError", c.name, err)
			continue
		}
		for _, w := range append(c.want, "unenforceable", "nothing was run") {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not say %q", c.name, err, w)
			}
		}
	}
}

func TestEtcVerdict(t *testing.T) {
	for rel, want := range map[string]string{
		"passwd": "grant", "shadow": "deny", "gshadow-": "deny", "sudoers.d": "deny",
		"ssh": "descend", "ssh/ssh_config": "grant", "ssh/ssh_host_ed25519_key": "deny", "ssh/ssh_host_ed25519_key.pub": "grant",
		"ssl": "descend", "ssl/certs": "grant", "ssl/private": "deny", "pki": "descend", "pki/tls": "descend",
		"ppp": "descend", "ppp/chap-secrets": "deny", ".git": "deny", "hosts": "grant",
	} {
		if got := etcVerdict(rel); got != want {
			t.Errorf("%s: %s, want %s", rel, got, want)
		}
	}
}

func TestReportJSON(t *testing.T) {
	b, _ := Unconfined().MarshalJSON()
	if string(b) != `"none"` {
		t.Errorf("unconfined: %s", b)
	}
	r := &Report{Verdict: "enforced", LandlockABI: 7, Seccomp: true}
	b, _ = r.MarshalJSON()
	if !strings.Contains(string(b), `"network":"none"`) || !strings.Contains(string(b), `"landlock_abi":7`) {
		t.Errorf("none: %s", b)
	}
	r.Network = []string{":443"}
	b, _ = r.MarshalJSON()
	if !strings.Contains(string(b), `"network":[":443"]`) {
		t.Errorf("ports: %s", b)
	}
}

func TestReportSummary(t *testing.T) {
	for _, c := range []struct {
		r    *Report
		want string
	}{
		{Unconfined(), "unconfined (no sandbox block)"},
		{&Report{Verdict: "unenforceable", Needed: []string{"Landlock ABI 4 or newer"}, Found: "linux/amd64, Landlock ABI 3"}, "refused: unenforceable (Landlock ABI 4 or newer; found linux/amd64, Landlock ABI 3)"},
		{&Report{Verdict: "enforced", LandlockABI: 7, Filesystem: FSReport{Read: []string{"/a"}}, Network: []string{":443"}}, "confined (Landlock ABI 7, seccomp): read 1 declared, write 0 declared, network :443, no subprocess"},
	} {
		if got := c.r.Summary(); got != c.want {
			t.Errorf("%q, want %q", got, c.want)
		}
	}
}
