package sign

import (
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ryekit/rye/internal/vectors"
	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/space"
)

// ryeosSignCase is a sign round-trip of vectors-ryeos02 (spec 7.6).
type ryeosSignCase struct {
	Name      string `json:"name"`
	Kind      string `json:"kind"`
	Path      string `json:"path"`
	Format    string `json:"format"`
	Seed      string `json:"key_seed_hex"`
	Timestamp string `json:"timestamp"`
	Input     string `json:"input"`
	Output    string `json:"output"`
	Outcome   string `json:"outcome"`
	Line      string `json:"line"`
}

func ryeosSignCases(t *testing.T) []ryeosSignCase {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(vectors.RyeOS02Dir(), "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Sign []ryeosSignCase `json:"sign"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Sign) != 13 {
		t.Fatalf("%d sign cases, want 13", len(doc.Sign))
	}
	return doc.Sign
}

func seedKey(t *testing.T, seedHex string) *Key {
	t.Helper()
	seed, err := hex.DecodeString(seedHex)
	if err != nil || len(seed) != ed25519.SeedSize {
		t.Fatalf("seed %q: %v", seedHex, err)
	}
	return NewKey(ed25519.NewKeyFromSeed(seed))
}

func readVector(t *testing.T, rel string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(vectors.RyeOS02Dir(), rel))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// RyeOS's signers, byte for byte: every round-trip of spec 7's vectors.
func TestRyeOSSignVectors(t *testing.T) {
	for _, c := range ryeosSignCases(t) {
		t.Run(c.Name, func(t *testing.T) {
			key := seedKey(t, c.Seed)
			at, err := time.Parse(TimeLayout, c.Timestamp)
			if err != nil {
				t.Fatal(err)
			}
			in, want := readVector(t, c.Input), readVector(t, c.Output)
			ext := path.Ext(c.Path)
			var got []byte
			unchanged := false
			switch c.Format {
			case "ryeos":
				got, unchanged, err = signRyeOS(key, ext, in, at)
			case "r1":
				got, err = signR1(key, ext, in, at)
			default:
				t.Fatalf("format %q", c.Format)
			}
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("signed\n%q\nwant\n%q", got, want)
			}
			if unchanged != (c.Outcome == "unchanged") {
				t.Errorf("unchanged %v, want outcome %s", unchanged, c.Outcome)
			}
			if !strings.Contains(string(got), c.Line+"\n") {
				t.Errorf("no line %q", c.Line)
			}
		})
	}
}

// ryeosTree is a RyeOS 0.2+ project (it has a node item) with files.
func ryeosTree(t *testing.T, files map[string][]byte) *space.Space {
	t.Helper()
	root := t.TempDir()
	// A node/ folder shows a RyeOS 0.2+ tree when it holds a node item.
	if err := os.MkdirAll(filepath.Join(root, ".ai", "node"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".ai", "node", "marker.yaml"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for rel, data := range files {
		p := filepath.Join(root, ".ai", filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return space.NewDiskSpace(space.Project, root, "")
}

// rye sign --format ryeos and r1: the vectors' bytes through the whole
// pipeline, the signer's own line of another format replaced and said,
// another signer's line refused, an item RyeOS would refuse not signed,
// an item already signed left alone.
func TestRunRyeOS(t *testing.T) {
	cases := map[string]ryeosSignCase{}
	for _, c := range ryeosSignCases(t) {
		cases[c.Name] = c
	}
	key := seedKey(t, cases["sign/yaml-tool"].Seed)
	at, _ := time.Parse(TimeLayout, "2026-08-01T12:00:00Z")
	yamlIn, yamlOut := readVector(t, cases["sign/yaml-tool"].Input), readVector(t, cases["sign/yaml-tool"].Output)
	otherSigned := readVector(t, cases["sign/replace-other-key"].Input)
	// The same tool signed v2 by the key: its own line, in another format.
	v2, err := Sign(key, V2, item.Tool, "demo/own", ".yaml", yamlIn, at)
	if err != nil {
		t.Fatal(err)
	}
	sp := ryeosTree(t, map[string][]byte{
		"tools/demo/greet.yaml":     yamlIn,
		"tools/demo/other.yaml":     otherSigned,
		"tools/demo/own.yaml":       v2,
		"tools/demo/nocat.yaml":     []byte("version: \"1.0.0\"\n"),
		"config/demo/settings.yaml": []byte("category: demo\n"),
	})
	run := func(f Format, patterns ...string) map[string]Result {
		t.Helper()
		out, err := Run(Request{Space: sp, Patterns: patterns, Format: f, Time: at, Key: func() (*Key, error) { return key, nil }})
		if err != nil {
			t.Fatal(err)
		}
		byID := map[string]Result{}
		for _, r := range out.Results {
			byID[string(r.ID)] = r
		}
		return byID
	}
	res := run(RyeOS, "**")
	read := func(rel string) []byte {
		data, err := sp.ReadFile(rel)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	if r := res["demo/greet"]; r.Outcome != OutcomeSigned || !bytes.Equal(read("tools/demo/greet.yaml"), yamlOut) {
		t.Errorf("greet: %v %v\n%s", r.Outcome, r.Err, read("tools/demo/greet.yaml"))
	}
	if r := res["demo/other"]; r.Outcome != OutcomeFailed || !errors.Is(r.Err, errOtherSigner) || !bytes.Equal(read("tools/demo/other.yaml"), otherSigned) {
		t.Errorf("other: %v %v", r.Outcome, r.Err)
	}
	if r := res["demo/own"]; r.Outcome != OutcomeSigned || r.Note != "replaced its v2 line" || !bytes.Equal(read("tools/demo/own.yaml"), yamlOut) {
		t.Errorf("own: %v %v %q\n%s", r.Outcome, r.Err, r.Note, read("tools/demo/own.yaml"))
	}
	if r := res["demo/nocat"]; r.Outcome != OutcomeFailed || r.Err == nil || !strings.Contains(r.Err.Error(), "RyeOS would refuse it (metadata/required)") {
		t.Errorf("nocat: %v %v", r.Outcome, r.Err)
	}
	if r := res["demo/settings"]; r.Outcome != OutcomeSigned || r.Kind != item.Config {
		t.Errorf("settings: %v %v", r.Outcome, r.Err)
	}
	// Idempotent: nothing changes the second time; --force signs again.
	if r := run(RyeOS, "demo/greet")["demo/greet"]; r.Outcome != OutcomeUnchanged {
		t.Errorf("again: %v %v", r.Outcome, r.Err)
	}
	// r1 over the signer's own ryeos line: the line goes, r1's is written.
	if r := run(R1, "demo/greet")["demo/greet"]; r.Outcome != OutcomeSigned || r.Note != "replaced its ryeos line" || !bytes.Equal(read("tools/demo/greet.yaml"), readVector(t, cases["sign/r1-yaml-tool"].Output)) {
		t.Errorf("r1: %v %v %q\n%s", r.Outcome, r.Err, r.Note, read("tools/demo/greet.yaml"))
	}
}
