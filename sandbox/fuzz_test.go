package sandbox

import (
	"strings"
	"testing"

	"github.com/ryekit/rye/item"
)

// FuzzParse reads arbitrary sandbox blocks (in a YAML tool): Parse never
// panics, and a block it accepts holds only what the vocabulary allows.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"sandbox: {}\n",
		"sandbox:\n  filesystem:\n    read: [\"{project}/data\"]\n    write: [\"{run_dir}\"]\n  network: none\n  subprocess: false\n",
		"sandbox:\n  network: [\":443\", \"example.com:80\", \"[::1]:8080\"]\n",
		"sandbox:\n  filesystem:\n    read: [\"{project}/../x\", \"~\", \"rel\"]\n",
		"sandbox: null\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		src := append([]byte("version: \"1.0.0\"\n"), body...)
		md, err := item.ReadMetadata(item.Tool, "t.yaml", src)
		if err != nil || md.Get(Key) == nil {
			return
		}
		b, ps := Parse(md.Get(Key))
		if len(ps) > 0 {
			return
		}
		for _, p := range append(append([]Path(nil), b.Read...), b.Write...) {
			checkPath(t, p)
		}
		for _, e := range b.Endpoints {
			if e.Port == 0 {
				t.Fatalf("port 0 accepted: %q", e.Text)
			}
		}
		if b.NetworkNone != (len(b.Endpoints) == 0) {
			t.Fatalf("network none = %v with %d entries", b.NetworkNone, len(b.Endpoints))
		}
	})
}

// FuzzParsePath: an accepted path starts at a known placeholder or the
// root and never climbs.
func FuzzParsePath(f *testing.F) {
	for _, s := range []string{"{project}/data", "/opt/x", "{home}", "{tmp}/../x", "~/x", "{x}/y", "{run_dir}//a/./b/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, msg := parsePath(s)
		if msg != "" {
			return
		}
		checkPath(t, p)
		if p.Var == "" && !strings.HasPrefix(s, "/") {
			t.Fatalf("%q accepted as absolute", s)
		}
	})
}

func checkPath(t *testing.T, p Path) {
	t.Helper()
	if p.Var != "" && placeholder(p.Var) == "" {
		t.Fatalf("%q: unknown placeholder %q accepted", p.Text, p.Var)
	}
	for _, seg := range strings.Split(p.Rel, "/") {
		if seg == ".." || seg == "." || (seg == "" && p.Rel != "") {
			t.Fatalf("%q: relative part %q is not clean", p.Text, p.Rel)
		}
	}
	if strings.HasPrefix(p.Rel, "/") || strings.ContainsAny(p.Rel, "{}\\\x00") {
		t.Fatalf("%q: relative part %q", p.Text, p.Rel)
	}
	if p.Var == "" && p.Rel == "" {
		t.Fatalf("%q: the root folder accepted", p.Text)
	}
}
