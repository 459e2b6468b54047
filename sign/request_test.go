package sign

import (
	"crypto/ed25519"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/space"
)

// Run selects, narrows, validates and signs; the key is asked for only
// when there is something to sign.
func TestRun(t *testing.T) {
	root := t.TempDir()
	write := func(rel, content string) {
		p := filepath.Join(root, ".ai", filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	entry := func(id, category string) string {
		return "```yaml\nid: " + id + "\ntitle: T\nentry_type: guide\ncategory: " + category + "\nversion: \"1.0.0\"\n```\n\nText.\n"
	}
	write("knowledge/acme/a.md", entry("a", "acme"))
	write("knowledge/acme/b.md", entry("b", "acme"))
	write("knowledge/acme/wrong.md", entry("wrong", "elsewhere"))
	write("config/notes.txt", "not an item\n")
	sp := space.NewDiskSpace(space.Project, root, "")
	ss := &space.Spaces{Project: sp, System: []*space.Space{space.EmbeddedSpace()}}
	asked := 0
	key := func() (*Key, error) { asked++; return vectorKey(), nil }
	when := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	req := Request{Space: sp, Kinds: []item.Kind{item.Knowledge}, Patterns: []string{"acme/*"}, WorkDir: root, Key: key, Time: when, Rules: ss.Extractor}

	out, err := Run(req)
	if err != nil || out.Selected != 3 || asked != 1 || out.Key == nil {
		t.Fatalf("run: %v %+v (key asked %d times)", err, out, asked)
	}
	got := map[item.ID]string{}
	for _, r := range out.Results {
		got[r.ID] = r.Outcome.String()
		if r.Err != nil {
			got[r.ID] += ": " + r.Err.Error()
		}
	}
	if got["acme/a"] != "signed" || got["acme/b"] != "signed" || !strings.HasPrefix(got["acme/wrong"], "failed: invalid metadata, not signed: line ") {
		t.Errorf("outcomes: %v", got)
	}
	// The default format is v2.
	data, _ := os.ReadFile(filepath.Join(root, ".ai", "knowledge", "acme", "a.md"))
	if found := Find(data, ".md"); found.Status != Signed || found.Line.Format != V2 {
		t.Errorf("signature: %+v", found)
	}

	// Changed narrows what is signed; nothing left means no key.
	req.Changed = func(fs []space.Found) ([]space.Found, error) { return nil, nil }
	if out, err := Run(req); err != nil || out.Selected != 3 || len(out.Results) != 0 || asked != 1 || out.Key != nil {
		t.Errorf("nothing changed: %v %+v (key asked %d times)", err, out, asked)
	}
	boom := errors.New("not a git repository")
	req.Changed = func([]space.Found) ([]space.Found, error) { return nil, boom }
	if _, err := Run(req); !errors.Is(err, boom) {
		t.Errorf("changed failing: %v", err)
	}
	req.Changed = nil

	// A path that is not an item is refused when the user names it; in a
	// change's file list (a hook's) it selects nothing, and asks for no key.
	req.Kinds, req.Patterns = nil, []string{filepath.Join(root, ".ai", "config", "notes.txt")}
	if _, err := Run(req); err == nil || !strings.Contains(err.Error(), "is not an item") {
		t.Errorf("a named file that is not an item: %v", err)
	}
	req.FromChange = true
	if out, err := Run(req); err != nil || out.Selected != 0 || len(out.Skipped) != 1 || asked != 1 {
		t.Errorf("not an item: %v %+v", err, out)
	}
	req.FromChange = false
	// A pattern that matches nothing is an error.
	req.Patterns = []string{"nobody/*"}
	if _, err := Run(req); err == nil {
		t.Error("a pattern matching nothing was accepted")
	}
	// The rules are read for the kinds about to be signed only, and rules
	// that cannot be read stop the run before anything is written.
	var ruled []item.Kind
	req.Rules = func(k item.Kind) (*item.Extractor, error) { ruled = append(ruled, k); return ss.Extractor(k) }
	req.Kinds, req.Patterns, req.Force = []item.Kind{item.Knowledge}, []string{"acme/a"}, true
	if out, err := Run(req); err != nil || len(out.Results) != 1 || out.Results[0].Outcome != OutcomeSigned || !slices.Equal(ruled, []item.Kind{item.Knowledge}) {
		t.Errorf("rules read for %v (want knowledge, once): %v %+v", ruled, err, out)
	}
	before, _ := os.ReadFile(filepath.Join(root, ".ai", "knowledge", "acme", "a.md"))
	broken := errors.New("extractor rules: line 3: broken")
	req.Rules = func(item.Kind) (*item.Extractor, error) { return nil, broken }
	if _, err := Run(req); !errors.Is(err, broken) {
		t.Errorf("rules that cannot be read: %v", err)
	}
	if after, _ := os.ReadFile(filepath.Join(root, ".ai", "knowledge", "acme", "a.md")); string(after) != string(before) {
		t.Error("an item was rewritten although its rules could not be read")
	}
	req.Rules, req.Force = ss.Extractor, false
	// A key that cannot be loaded stops the request.
	req.Patterns, req.Key = []string{"acme/a"}, func() (*Key, error) { return nil, ErrPassphraseNeeded }
	if _, err := Run(req); !errors.Is(err, ErrPassphraseNeeded) {
		t.Errorf("key error: %v", err)
	}
}

func TestSigningTime(t *testing.T) {
	env := map[string]string{"SOURCE_DATE_EPOCH": "1767225600"}
	if got, err := SigningTime(func(k string) string { return env[k] }); err != nil || !got.Equal(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("epoch: %v %v", got, err)
	}
	env["SOURCE_DATE_EPOCH"] = "soon"
	if _, err := SigningTime(func(k string) string { return env[k] }); err == nil {
		t.Error("a bad epoch was accepted")
	}
	if got, err := SigningTime(func(string) string { return "" }); err != nil || time.Since(got) > time.Minute || got.Location() != time.UTC {
		t.Errorf("now: %v %v", got, err)
	}
}

// Run judges every item before it loads the key: an item signed by the
// signer's own key (its public half) is unchanged, one validly signed by
// another trusted key is kept, and the key is asked for only when
// something is left to sign, never for a dry run.
func TestRunJudgesWithoutTheKey(t *testing.T) {
	root := t.TempDir()
	for _, name := range []string{"a", "b"} {
		p := filepath.Join(root, ".ai", "knowledge", "acme", name+".md")
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("```yaml\nid: "+name+"\ntitle: T\nentry_type: guide\ncategory: acme\nversion: \"1.0.0\"\n```\n"), 0o644)
	}
	sp := space.NewDiskSpace(space.Project, root, "")
	alice, bob := vectorKey(), NewKey(ed25519.NewKeyFromSeed(make([]byte, 32)))
	when := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	base := Request{Space: sp, Kinds: []item.Kind{item.Knowledge}, Patterns: []string{"acme/*"}, WorkDir: root, Time: when}
	as := func(k *Key) func() (*Key, error) { return func() (*Key, error) { return k, nil } }
	req := base
	req.Key = as(alice)
	if _, err := Run(req); err != nil {
		t.Fatal(err)
	}
	// Signed: alice's valid signature, as a trust store holding her key
	// would say.
	signed := func(tg Target, src []byte) *Signature {
		if !SignedBy(alice, V2, tg.Kind, tg.ID, ".md", src) {
			return nil
		}
		return &Signature{Format: V2, Fingerprint: alice.Fingerprint, Owner: "alice", Public: alice.Public}
	}
	asked := 0
	counted := func(k *Key) func() (*Key, error) { return func() (*Key, error) { asked++; return k, nil } }
	outcomes := func(out *Outcomes) string {
		var s []string
		for _, r := range out.Results {
			s = append(s, string(r.ID)+"="+r.Outcome.String())
		}
		return strings.Join(s, " ")
	}

	// Bob: alice's items are kept, without his key.
	req = base
	req.Key, req.PublicKey, req.Signed = counted(bob), func() (ed25519.PublicKey, error) { return bob.Public, nil }, signed
	out, err := Run(req)
	if err != nil || outcomes(out) != "acme/a=kept acme/b=kept" || asked != 0 || out.Results[0].Signer.Owner != "alice" || out.Fingerprint != bob.Fingerprint {
		t.Fatalf("bob: %v %s (key asked %d times)", err, outcomes(out), asked)
	}
	if tl := Count(out.Results); len(tl.Signers) != 1 || tl.Signers[0] != "alice ("+alice.Fingerprint+")" || len(tl.Kept[tl.Signers[0]]) != 2 || tl.Counts[OutcomeKept] != 2 {
		t.Errorf("tally: %+v", tl)
	}
	// Alice: her own, unchanged, without her key.
	req.Key, req.PublicKey = counted(alice), func() (ed25519.PublicKey, error) { return alice.Public, nil }
	if out, err = Run(req); err != nil || outcomes(out) != "acme/a=unchanged acme/b=unchanged" || asked != 0 {
		t.Fatalf("alice: %v %s (key asked %d times)", err, outcomes(out), asked)
	}
	// Her public half unreadable without a passphrase: the key decides,
	// loaded once.
	req.PublicKey = func() (ed25519.PublicKey, error) {
		return nil, &KeyError{Path: "k", Msg: "encrypted", Unavailable: true}
	}
	if out, err = Run(req); err != nil || outcomes(out) != "acme/a=unchanged acme/b=unchanged" || asked != 1 {
		t.Fatalf("alice, no public half: %v %s (key asked %d times)", err, outcomes(out), asked)
	}
	// A dry run never asks, and says what would be signed.
	p := filepath.Join(root, ".ai", "knowledge", "acme", "b.md")
	data, _ := os.ReadFile(p)
	os.WriteFile(p, []byte(strings.Replace(string(data), "title: T", "title: U", 1)), 0o644)
	req.PublicKey, req.DryRun = func() (ed25519.PublicKey, error) { return alice.Public, nil }, true
	if out, err = Run(req); err != nil || outcomes(out) != "acme/a=unchanged acme/b=would sign" || asked != 1 || out.Key != nil {
		t.Fatalf("dry run: %v %s (key asked %d times)", err, outcomes(out), asked)
	}
	// A dry run that cannot compare says why instead of asking.
	req.PublicKey = func() (ed25519.PublicKey, error) {
		return nil, &KeyError{Path: "k", Msg: "encrypted", Unavailable: true}
	}
	if _, err := Run(req); err == nil || !strings.Contains(err.Error(), "encrypted") || asked != 1 {
		t.Fatalf("dry run without a public half: %v (key asked %d times)", err, asked)
	}
	// A key file that cannot sign stops the run at once.
	req.DryRun, req.PublicKey = false, func() (ed25519.PublicKey, error) { return nil, &KeyError{Path: "k", Msg: "a public key"} }
	if _, err := Run(req); err == nil || asked != 1 {
		t.Fatalf("a key that cannot sign: %v", err)
	}
	// Bob, asking to replace: both are his now.
	req = base
	req.Key, req.PublicKey, req.Signed, req.ReplaceOthers = counted(bob), func() (ed25519.PublicKey, error) { return bob.Public, nil }, signed, true
	if out, err = Run(req); err != nil || outcomes(out) != "acme/a=signed acme/b=signed" || asked != 2 {
		t.Fatalf("bob replacing: %v %s (key asked %d times)", err, outcomes(out), asked)
	}
	data, _ = os.ReadFile(filepath.Join(root, ".ai", "knowledge", "acme", "a.md"))
	if !SignedBy(bob, V2, item.Knowledge, "acme/a", ".md", data) {
		t.Error("acme/a is not bob's")
	}
}
