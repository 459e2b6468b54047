package verify

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ryekit/rye/internal/vectors"
	"github.com/ryekit/rye/report"
	"github.com/ryekit/rye/space"
)

// ryeosCase is a file case of vectors-ryeos02/cases.json (spec 7).
type ryeosCase struct {
	Name       string   `json:"name"`
	Kind       string   `json:"kind"`
	Path       string   `json:"path"`
	File       string   `json:"file"`
	Trust      []string `json:"trust"`
	Expect     string   `json:"expect"`
	ID         string   `json:"id"`
	ExtraFiles []struct {
		Path string `json:"path"`
		File string `json:"file"`
	} `json:"extra_files"`
}

// ryeosProject writes a case into a new project, with the case's trust
// folders as the project's RyeOS trust folder; ryeos adds a node item,
// which makes it a RyeOS 0.2+ tree.
func ryeosProject(t *testing.T, dir string, c ryeosCase, ryeos bool) *space.Space {
	t.Helper()
	root := t.TempDir()
	write := func(rel string, data []byte) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := func(rel string) []byte {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	write(c.Path, read(c.File))
	for _, x := range c.ExtraFiles {
		write(x.Path, read(x.File))
	}
	for _, tr := range c.Trust {
		entries, err := os.ReadDir(filepath.Join(dir, tr))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			write(".ai/"+ErasKeysDir+"/"+e.Name(), read(tr+"/"+e.Name()))
		}
	}
	if ryeos {
		// A node/ folder shows a RyeOS 0.2+ tree when it holds a node item.
		write(".ai/node/layout/marker.yaml", []byte("{}\n"))
	}
	return space.NewDiskSpace(space.Project, root, "")
}

// Every file case of spec 7's vectors, in a RyeOS 0.2+ project: each file
// RyeOS reads as an item gets a verdict, verified, with the kind and id
// RyeOS derives from its path (never moved, whatever its metadata says);
// a file RyeOS does not read as an item is not verified at all. In a
// project of rye's layout, the files of rye's three kinds verify too.
func TestRyeOSVectorVerdicts(t *testing.T) {
	dir := vectors.RyeOS02Dir()
	data, err := os.ReadFile(filepath.Join(dir, "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Cases []ryeosCase `json:"cases"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Cases) != 49 {
		t.Fatalf("%d cases", len(doc.Cases))
	}
	for _, c := range doc.Cases {
		for _, ryeos := range []bool{true, false} {
			sp := ryeosProject(t, dir, c, ryeos)
			ss := &space.Spaces{Project: sp}
			ts, _, err := LoadTrust(ss, TrustOptions{})
			if err != nil {
				t.Fatal(err)
			}
			res, err := Run(Request{Spaces: ss, Trust: ts})
			if err != nil {
				t.Fatal(err)
			}
			var got *Result
			for i, r := range res.Items {
				if strings.HasSuffix(filepath.ToSlash(r.Path), c.Path) {
					got = &res.Items[i]
				}
			}
			switch {
			case c.Expect == "not-an-item" && ryeos:
				if got != nil {
					t.Errorf("%s: %s is verified (%s), but RyeOS reads no item there", c.Name, c.Path, got.Verdict)
				}
			case got == nil && ryeos:
				t.Errorf("%s: no verdict for %s", c.Name, c.Path)
			case got == nil || c.Expect == "not-an-item":
				// rye's layout reads only its own kinds and forms
			case got.Verdict != Verified:
				t.Errorf("%s (RyeOS tree: %v): %s: %s", c.Name, ryeos, got.Verdict, got.Reason)
			case ryeos && c.ID != "" && got.ID.Ref(got.Kind) != c.ID:
				t.Errorf("%s: id %s, want %s", c.Name, got.ID.Ref(got.Kind), c.ID)
			case ryeos && string(got.Kind) != c.Kind:
				t.Errorf("%s: kind %s, want %s", c.Name, got.Kind, c.Kind)
			}
		}
	}
}

// An untrusted or unsigned RyeOS 0.2+ tree is reported one line per
// cause in text, every finding in JSON, with the note that says how rye
// read the tree.
func TestRyeOSGroups(t *testing.T) {
	root := t.TempDir()
	src, err := os.ReadFile(filepath.Join(vectors.RyeOS02Dir(), "files/kinds/config/settings.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"config/a/x.yaml", "config/b/x.yaml", "config/c/x.yaml", "config/d/x.yaml", "node/commands/x.yaml", "node/commands/y.yaml", "node/commands/z.yaml", "node/commands/w.yaml"} {
		p := filepath.Join(root, ".ai", filepath.FromSlash(rel))
		data := src
		if strings.HasPrefix(rel, "node/") {
			data = []byte("tokens: [x]\n")
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sp := space.NewDiskSpace(space.Project, root, "")
	ss := &space.Spaces{Project: sp}
	ts, _, err := LoadTrust(ss, TrustOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(Request{Spaces: ss, Trust: ts})
	if err != nil {
		t.Fatal(err)
	}
	rep := res.Report(nil, sp, false)
	if len(rep.Findings) != 8 {
		t.Fatalf("%d findings, want 8", len(rep.Findings))
	}
	var text bytes.Buffer
	if err := report.WriteText(&text, rep, "summary", false); err != nil {
		t.Fatal(err)
	}
	want := "error: 4 items signed by key 56475aa75463474c0285df5dbf2bcab73da651358839e9b77481b2eab107708c, which is not in the trust store"
	if !strings.Contains(text.String(), want) || !strings.Contains(text.String(), "error: 4 items unsigned (-v lists them); sign them with your key: rye sign \"**\"") ||
		!strings.HasPrefix(text.String(), "error:") || strings.Count(text.String(), "\n") != 5 {
		t.Errorf("text output:\n%s", text.String())
	}
	if !strings.Contains(text.String(), "RyeOS 0.2+ project (detected by .ai/node/)") {
		t.Errorf("no note on the layout:\n%s", text.String())
	}
}
