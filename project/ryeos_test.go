package project

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ryekit/rye/sign"
)

// In a RyeOS 0.2+ project the default format is ryeos, which RyeOS reads;
// the settings and the caller can say otherwise, and the user space keeps
// v2.
func TestSignRequestRyeOS(t *testing.T) {
	root, user := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(root, ".ai/node"), 0o755)
	os.WriteFile(filepath.Join(root, ".ai/node/marker.yaml"), []byte("{}\n"), 0o644) // a node item shows the layout
	getenv := func(k string) string {
		if k == "USER_SPACE" {
			return user
		}
		return ""
	}
	p, err := Open(root, Options{Getenv: getenv})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		s    Signing
		want sign.Format
	}{
		{Signing{}, sign.RyeOS},
		{Signing{Format: "r1"}, sign.R1},
		{Signing{Format: "v2"}, sign.V2},
		{Signing{Space: "user"}, sign.V2},
	} {
		if req, err := p.SignRequest(c.s); err != nil || req.Format != c.want {
			t.Errorf("%+v: %v %v, want %v", c.s, err, req.Format, c.want)
		}
	}
	write(t, filepath.Join(root, ".ai/config/rye.yaml"), "sign:\n  format: v2\n")
	if p, err = Open(root, Options{Getenv: getenv}); err != nil {
		t.Fatal(err)
	}
	if req, err := p.SignRequest(Signing{}); err != nil || req.Format != sign.V2 {
		t.Errorf("sign.format: v2 in a RyeOS project: %v %v", err, req.Format)
	}
}
