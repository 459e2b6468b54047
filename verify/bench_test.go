package verify

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/space"
)

// bench10k is a signed project of 10,000 generated items (2 KiB each),
// made once for all benchmarks.
var bench10k struct {
	once sync.Once
	root string
	sp   *space.Space
	ts   *TrustStore
}

func benchProject(b *testing.B) (*space.Space, *TrustStore) {
	bench10k.once.Do(func() {
		root, err := os.MkdirTemp("", "rye-verify-bench")
		if err != nil {
			b.Fatal(err)
		}
		bench10k.root = root
		bench10k.sp = signedProject(b, root, 10000)
		bench10k.ts, err = LoadTrustStore(TrustSources([]*space.Space{bench10k.sp}))
		if err != nil {
			b.Fatal(err)
		}
	})
	return bench10k.sp, bench10k.ts
}

func TestMain(m *testing.M) {
	code := m.Run()
	if bench10k.root != "" {
		os.RemoveAll(bench10k.root)
	}
	os.Exit(code)
}

var benchPolicy = Policy{Now: time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)}

// BenchmarkVerify10kCold: walk, read, parse the line, hash, check the
// location, verify the signature, for every item; no cache.
func BenchmarkVerify10kCold(b *testing.B) {
	sp, ts := benchProject(b)
	for b.Loop() {
		sources, _ := allSources(b, sp)
		rs := (&verifier{Trust: ts, Policy: benchPolicy}).Run(sources)
		if len(rs) != 10000 || rs[0].Verdict != Verified {
			b.Fatalf("%d results, first %s", len(rs), rs[0].Verdict)
		}
	}
}

// BenchmarkVerify10kWarm: the same with a verdict cache that already holds
// every item: walk, read and hash each file, look it up.
func BenchmarkVerify10kWarm(b *testing.B) {
	sp, ts := benchProject(b)
	file := filepath.Join(b.TempDir(), "verify.cache")
	c := openCache(file, testSecret)
	sources, _ := allSources(b, sp)
	(&verifier{Trust: ts, Policy: benchPolicy, Cache: c}).Run(sources)
	if err := c.Save(); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		cache := openCache(file, testSecret)
		sources, _ := allSources(b, sp)
		rs := (&verifier{Trust: ts, Policy: benchPolicy, Cache: cache}).Run(sources)
		if len(rs) != 10000 || rs[0].Verdict != Verified {
			b.Fatal("bad run")
		}
		cache.Save()
	}
}

// BenchmarkVerify10kChangedSince10: ten items edited since the commit;
// compare every file's blob id with the commit's tree, verify the ten.
func BenchmarkVerify10kChangedSince10(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git is not installed")
	}
	sp, ts := benchProject(b)
	root := bench10k.root
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", root, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if _, err := os.Stat(filepath.Join(root, ".git")); err != nil {
		git("init", "-q")
		git("add", "-A")
		git("commit", "-q", "-m", "base")
	}
	sources, _ := allSources(b, sp)
	var edited []string
	for i := 0; i < 10; i++ {
		p := sources[i*997].Path
		data, _ := os.ReadFile(p)
		os.WriteFile(p, append(data, '\n'), 0o644)
		edited = append(edited, p)
	}
	defer git("checkout", "-q", "--", ".")
	repo, _, err := OpenRepo(root)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		sources, _ := allSources(b, sp)
		changed, _, err := ChangedSince(repo, "HEAD", ".ai", sources, item.Kinds, sp, true)
		if err != nil {
			b.Fatal(err)
		}
		rs := (&verifier{Trust: ts, Policy: benchPolicy}).Run(changed)
		if len(rs) != 10 || rs[0].Verdict != Modified {
			b.Fatalf("%d changed (%v)", len(rs), edited)
		}
	}
}

// BenchmarkMinimalLoop10k is the floor the verifier is compared with: walk,
// read each file, find the line, SHA-256 the rest and ed25519-verify the v2
// message, on the same worker pool. No location check, no trust store, no
// verdict logic.
func BenchmarkMinimalLoop10k(b *testing.B) {
	sp, ts := benchProject(b)
	pub := ts.Keys()[0].Public
	for b.Loop() {
		found, _, _ := sp.Walk(item.Kinds)
		var wg sync.WaitGroup
		next := make(chan space.Found)
		for w := 0; w < runtime.GOMAXPROCS(0); w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for f := range next {
					data, err := os.ReadFile(filepath.Join(sp.AI(), f.Rel))
					if err != nil {
						b.Error(err)
						continue
					}
					nl := bytes.IndexByte(data, '\n')
					start := 0
					if bytes.HasPrefix(data, []byte("#!")) {
						start = nl + 1
						nl = start + bytes.IndexByte(data[start:], '\n')
					}
					line := string(data[start:nl])
					fields := strings.Split(strings.TrimSuffix(line, " -->"), ":")
					h := sha256.New()
					h.Write(data[:start])
					h.Write(data[nl+1:])
					sum := h.Sum(nil)
					sig, _ := base64.URLEncoding.DecodeString(fields[len(fields)-2])
					msg := "rye-signature-v2\n" + string(f.Kind) + "\n" + string(f.ID) + "\n" + strings.Join(fields[3:6], ":") + "\n" + fields[len(fields)-1] + "\n" + hexString(sum)
					if !ed25519.Verify(pub, []byte(msg), sig) {
						b.Errorf("%s does not verify", f.Rel)
					}
				}
			}()
		}
		for _, f := range found {
			next <- f
		}
		close(next)
		wg.Wait()
	}
}

func hexString(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 2*len(b))
	for i, c := range b {
		out[2*i], out[2*i+1] = digits[c>>4], digits[c&15]
	}
	return string(out)
}
