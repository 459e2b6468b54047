package releasesig

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"

	"github.com/ryekit/rye/internal/sshsig"
)

func testKey(first byte) ed25519.PrivateKey {
	seed := make([]byte, ed25519.SeedSize)
	for i := range seed {
		seed[i] = first + byte(i)
	}
	return ed25519.NewKeyFromSeed(seed)
}

func keyText(priv ed25519.PrivateKey) string {
	k, err := ssh.NewPublicKey(priv.Public())
	if err != nil {
		panic(err)
	}
	return strings.TrimSpace(string(ssh.MarshalAuthorizedKey(k)))
}

// The committed file is either without a key (before the first release
// key is added) or a valid list of keys: a malformed line would make
// every release check fail, or worse, disagree with ssh-keygen.
func TestPinnedFileParses(t *testing.T) {
	s, err := Pinned()
	switch {
	case errors.Is(err, ErrNoKey):
		t.Logf("%s has no key yet: release checks fail until one is added (docs/releasing.md)", PinnedFile)
	case err != nil:
		t.Fatal(err)
	default:
		t.Logf("%d pinned release key(s)", len(s))
	}
}

func TestParseSigners(t *testing.T) {
	k := keyText(testKey(0))
	good := "# release keys\n\nrye-release namespaces=\"rye-release\" " + k + " first key\n" +
		"rye-release namespaces=\"file,rye-release\" " + keyText(testKey(0x20)) + " old key\n"
	s, err := parseSigners([]byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if len(s) != 2 || s[0].Principal != Principal || s[0].Line != 3 || !s[0].Key.Equal(testKey(0).Public()) || s[1].Line != 4 {
		t.Fatalf("got %+v", s)
	}
	for name, tc := range map[string]struct{ in, err string }{
		"empty":             {"# nothing\n", "no release key"},
		"no namespaces":     {"rye-release " + k, `add namespaces="rye-release"`},
		"other namespace":   {`rye-release namespaces="git" ` + k, "does not include rye-release"},
		"valid-before":      {`rye-release namespaces="rye-release",valid-before="20300101" ` + k, "no other option"},
		"cert-authority":    {`rye-release cert-authority,namespaces="rye-release" ` + k, "no other option"},
		"rsa":               {`rye-release namespaces="rye-release" ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAAgQDHfq7sZ2y0vVgQu9tJYhsH0Kz8Q2VXo3bP+ZyPjQOeC8pX2N6T0pG5c3jvU6xB5y6V2o2sYyE5kVJb0D0gCq0sQpZx6Y1a1l2u3nE0y2x9Q7Hc8P2m8bE7YbZr5Gx7h1hL1m3p3x7vR2u9xS3cE5t5Zp8Q8rM9k6yV1c7gq8nD3w==`, "ssh-rsa key"},
		"key only":          {k, "not a key line"},
		"quoted principals": {`"rye release" namespaces="rye-release" ` + k, "not a key line"},
		"other principal":   {`alice@example.com namespaces="rye-release" ` + k, "starts with rye-release"},
		"garbage":           {"rye-release namespaces=\"rye-release\" ssh-ed25519 !!!", "allowed_signers"},
	} {
		_, err := parseSigners([]byte("# x\n" + tc.in + "\n"))
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: got %v, want an error with %q", name, err, tc.err)
			continue
		}
		if name != "empty" && !strings.HasPrefix(err.Error(), "line 2: ") {
			t.Errorf("%s: the error does not name the line: %v", name, err)
		}
	}
}

func TestVerifySignature(t *testing.T) {
	release, other := testKey(0), testKey(0x20)
	signers, err := parseSigners([]byte(`rye-release namespaces="rye-release" ` + keyText(release) + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	sums := []byte(strings.Repeat("a", 64) + "  rye_1.0.0_linux_amd64.tar.gz\n")
	sign := func(k ed25519.PrivateKey, ns string, msg []byte) []byte {
		s, err := sshsig.Sign(k, ns, bytes.NewReader(msg))
		if err != nil {
			t.Fatal(err)
		}
		return s.Marshal()
	}
	got, err := verifySignature(sums, sign(release, namespace, sums), signers)
	if err != nil || got.Principal != "rye-release" {
		t.Fatalf("a good signature: %+v, %v", got, err)
	}
	tampered := bytes.Replace(sums, []byte("aaaa"), []byte("aaab"), 1)
	for name, tc := range map[string]struct {
		sums, sig []byte
		err       string
	}{
		"tampered checksums": {tampered, sign(release, namespace, sums), "the signed file or the signature was changed"},
		"other key":          {sums, sign(other, namespace, sums), "which is not a release key"},
		"other namespace":    {sums, sign(release, "git", sums), `namespace "git"`},
		"not a signature":    {sums, []byte("hello\n"), "not an SSH signature"},
	} {
		_, err := verifySignature(tc.sums, tc.sig, signers)
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: got %v, want an error with %q", name, err, tc.err)
		}
	}
}

func TestChecksums(t *testing.T) {
	a := "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" // sha256("abc")
	c, err := parseChecksums([]byte(a + "  rye_1.0.0_linux_amd64.tar.gz\n" + strings.Repeat("0", 64) + "  rye_1.0.0_windows_arm64.zip\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Names) != 2 || c.Names[1] != "rye_1.0.0_windows_arm64.zip" {
		t.Fatalf("names %q", c.Names)
	}
	if sum, err := c.Check("rye_1.0.0_linux_amd64.tar.gz", strings.NewReader("abc")); err != nil || sum != a {
		t.Errorf("a matching file: %s, %v", sum, err)
	}
	if _, err := c.Check("rye_1.0.0_linux_amd64.tar.gz", strings.NewReader("abd")); err == nil || !strings.Contains(err.Error(), "was changed or damaged") {
		t.Errorf("a changed file: %v", err)
	}
	if _, err := c.Check("rye_1.0.0_linux_386.tar.gz", strings.NewReader("abc")); !errors.Is(err, errNotListed) {
		t.Errorf("an unlisted file: %v", err)
	}

	for name, tc := range map[string]struct{ in, err string }{
		"empty":        {"", "empty"},
		"no newline":   {a + "  x", "newline"},
		"one space":    {a + " x\n", "line 1: not <64"},
		"upper hex":    {strings.ToUpper(a) + "  x\n", "line 1: not <64"},
		"short":        {a[1:] + "  x\n", "line 1: not <64"},
		"folder":       {a + "  dist/x\n", "has a folder"},
		"backslash":    {a + "  dist\\x\n", "has a folder"},
		"dot dot":      {a + "  ..\n", `file name ".."`},
		"control":      {a + "  x\ty\n", "control character"},
		"twice":        {a + "  x\n" + a + "  x\n", "line 2: x is listed twice"},
		"blank line":   {a + "  x\n\n", "line 2: not <64"},
		"binary mode":  {a + " *x\n", "line 1: not <64"},
		"too big":      {strings.Repeat("a", maxChecksums+1), "at most"},
		"empty name":   {a + "  \n", `file name ""`},
		"invalid utf8": {a + "  \xff\n", "invalid UTF-8"},
	} {
		_, err := parseChecksums([]byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: got %v, want an error with %q", name, err, tc.err)
		}
	}
}

func FuzzParseChecksums(f *testing.F) {
	f.Add([]byte(strings.Repeat("0", 64) + "  rye_1.0.0_linux_amd64.tar.gz\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		c, err := parseChecksums(in)
		if err != nil {
			return
		}
		for _, n := range c.Names {
			if checkName(n) != nil {
				t.Fatalf("accepted name %q", n)
			}
			if _, err := c.Check(n, strings.NewReader("")); err != nil && errors.Is(err, errNotListed) {
				t.Fatalf("a listed name is not found: %q", n)
			}
		}
	})
}

func FuzzParseSigners(f *testing.F) {
	f.Add([]byte(`rye-release namespaces="rye-release" ` + keyText(testKey(0)) + " comment\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		s, err := parseSigners(in)
		if err != nil {
			return
		}
		for _, k := range s {
			if len(k.Key) != ed25519.PublicKeySize || k.Principal == "" {
				t.Fatalf("accepted %+v", k)
			}
		}
	})
}

// ReadSigners names the file in what it finds wrong with it, and keeps
// ErrNoKey for a file without a key.
func TestReadSigners(t *testing.T) {
	dir := t.TempDir()
	good, empty := filepath.Join(dir, "allowed_signers"), filepath.Join(dir, "empty")
	os.WriteFile(good, []byte(`rye-release namespaces="rye-release" `+keyText(testKey(0))+"\n"), 0o644)
	os.WriteFile(empty, []byte("# no keys\n"), 0o644)
	if s, err := ReadSigners(good); err != nil || len(s) != 1 || !s[0].Key.Equal(testKey(0).Public()) {
		t.Errorf("%+v %v", s, err)
	}
	if _, err := ReadSigners(empty); !errors.Is(err, ErrNoKey) || !strings.HasPrefix(err.Error(), empty+": ") {
		t.Errorf("a file without a key: %v", err)
	}
	if _, err := ReadSigners(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
}
