package sign

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/asn1"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/youmark/pkcs8"
	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"

	"github.com/ryekit/rye/internal/agenttest"
	"github.com/ryekit/rye/item"
)

// testPrivateKey is a fixed Ed25519 key, so that a key made by another
// program can be compared with what rye expects.
func testPrivateKey(b byte) ed25519.PrivateKey {
	seed := bytes.Repeat([]byte{b}, ed25519.SeedSize)
	return ed25519.NewKeyFromSeed(seed)
}

// writeKey writes a key file with mode 0600 and returns its path.
func writeKey(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// passphrase answers with p and counts the calls and attempts.
type passphrase struct {
	p        string
	attempts []int
	paths    []string
}

func (pp *passphrase) get(path string, attempt int) ([]byte, error) {
	pp.attempts = append(pp.attempts, attempt)
	pp.paths = append(pp.paths, path)
	return []byte(pp.p), nil
}

// checkSigns signs an item in both formats with key and checks that the
// result verifies with the public key want and carries its fingerprint.
func checkSigns(t *testing.T, key *Key, want ed25519.PublicKey) {
	t.Helper()
	if !key.Public.Equal(want) || key.Fingerprint != Fingerprint(want) {
		t.Fatalf("loaded key %s, want %s", key.Fingerprint, Fingerprint(want))
	}
	src := []byte("#!/usr/bin/env python3\nprint('hi')\n")
	now := time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)
	for _, f := range []Format{V1, V2} {
		out, err := Sign(key, f, item.Tool, "a/b", ".py", src, now)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		found := Find(out, ".py")
		if found.Status != Signed || found.Line.Fingerprint != Fingerprint(want) || !VerifySignature(want, found.Line, item.Tool, "a/b") {
			t.Fatalf("%s: the signed file does not verify:\n%s", f, out)
		}
	}
}

// TestKeyFormsMadeByGo: every private key form rye accepts, written by Go,
// loads, signs, and the signature verifies with the key's public half.
func TestKeyFormsMadeByGo(t *testing.T) {
	dir := t.TempDir()
	priv := testPrivateKey(7)
	pub := priv.Public().(ed25519.PublicKey)
	plainPEM, _ := marshalPrivateKey(priv, nil)
	sigstorePEM, _ := marshalPrivateKey(priv, []byte("pw"))
	der, err := pkcs8.MarshalPrivateKey(priv, []byte("pw"), nil)
	if err != nil {
		t.Fatal(err)
	}
	pkcs8PEM := pem.EncodeToMemory(&pem.Block{Type: encryptedPKCS8PEM, Bytes: der})
	sshPlain, _ := marshalOpenSSHPrivateKey(priv, "c", nil)
	sshEnc, _ := marshalOpenSSHPrivateKey(priv, "c", []byte("pw"))
	for _, c := range []struct {
		name      string
		data      []byte
		encrypted bool
	}{
		{"pkcs8", plainPEM, false},
		{"sigstore-encrypted", sigstorePEM, true},
		{"encrypted-pkcs8", pkcs8PEM, true},
		{"openssh", sshPlain, false},
		{"openssh-encrypted", sshEnc, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := writeKey(t, dir, c.name, c.data)
			pp := &passphrase{p: "pw"}
			key, err := LoadSigningKey(KeySource{Path: path, Passphrase: pp.get, Tries: 3})
			if err != nil {
				t.Fatal(err)
			}
			checkSigns(t, key, pub)
			if c.encrypted != (len(pp.attempts) == 1) {
				t.Errorf("passphrase asked %d times (encrypted: %v)", len(pp.attempts), c.encrypted)
			}
			if c.encrypted && pp.paths[0] != path {
				t.Errorf("the passphrase was asked for %q, want the key file %q", pp.paths[0], path)
			}
			if !c.encrypted {
				return
			}
			// A wrong passphrase is asked again, up to Tries, then refused.
			wrong := &passphrase{p: "nope"}
			_, err = LoadSigningKey(KeySource{Path: path, Passphrase: wrong.get, Tries: 3})
			if !errors.Is(err, errWrongPassphrase) && (err == nil || !strings.Contains(err.Error(), "wrong passphrase, or the key file is damaged (3 tries)")) {
				t.Errorf("wrong passphrase: %v", err)
			}
			if len(wrong.attempts) != 3 || wrong.attempts[2] != 3 {
				t.Errorf("attempts %v, want 1 2 3", wrong.attempts)
			}
			// The second try can be right.
			second := 0
			key, err = LoadSigningKey(KeySource{Path: path, Tries: 3, Passphrase: func(_ string, attempt int) ([]byte, error) {
				second = attempt
				if attempt == 1 {
					return []byte("typo"), nil
				}
				return []byte("pw"), nil
			}})
			if err != nil || second != 2 || !key.Public.Equal(pub) {
				t.Errorf("second try: %v (attempt %d)", err, second)
			}
			// An empty passphrase is wrong, not "unencrypted".
			if _, err := LoadSigningKey(KeySource{Path: path, Passphrase: (&passphrase{}).get}); err == nil || !strings.Contains(err.Error(), "wrong passphrase") {
				t.Errorf("empty passphrase: %v", err)
			}
			// No way to ask: the error says how to give one.
			if _, err := LoadSigningKey(KeySource{Path: path}); err == nil || !strings.Contains(err.Error(), path+": the key is encrypted and there is no terminal") {
				t.Errorf("no passphrase source: %v", err)
			}
		})
	}
}

// TestKeyFormsMadeBySSHKeygen: keys made by ssh-keygen, with and without a
// passphrase, sign; their public half is read without the passphrase; an
// ECDSA key is refused before a passphrase is asked for.
func TestKeyFormsMadeBySSHKeygen(t *testing.T) {
	if _, err := exec.LookPath("ssh-keygen"); err != nil {
		t.Skip("ssh-keygen is not installed: OpenSSH keys are tested with keys made by Go only")
	}
	dir := t.TempDir()
	keygen := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("ssh-keygen", append([]string{"-q"}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen %v: %v\n%s", args, err, out)
		}
	}
	keygen("-t", "ed25519", "-N", "", "-C", "alice@laptop", "-f", filepath.Join(dir, "plain"))
	keygen("-t", "ed25519", "-N", "open sesame", "-f", filepath.Join(dir, "enc"))
	keygen("-t", "ecdsa", "-N", "secret", "-f", filepath.Join(dir, "ecdsa"))
	for _, name := range []string{"plain", "enc"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			pubData, err := os.ReadFile(path + ".pub")
			if err != nil {
				t.Fatal(err)
			}
			want, comment, err := parsePublicKey(pubData)
			if err != nil {
				t.Fatal(err)
			}
			if name == "plain" && comment != "alice@laptop" {
				t.Errorf("comment %q", comment)
			}
			if line := strings.Fields(string(pubData)); OpenSSHPublicKey(want) != line[0]+" "+line[1] {
				t.Errorf("OpenSSHPublicKey %q, ssh-keygen wrote %q", OpenSSHPublicKey(want), pubData)
			}
			key, err := LoadSigningKey(KeySource{Path: path, Passphrase: (&passphrase{p: "open sesame"}).get})
			if err != nil {
				t.Fatal(err)
			}
			checkSigns(t, key, want)
			// The public half is in clear in the file: no passphrase.
			got, from, err := PublicKeyOf(KeySource{Path: path, Passphrase: func(string, int) ([]byte, error) {
				t.Error("PublicKeyOf asked for a passphrase")
				return nil, ErrPassphraseNeeded
			}}, filepath.Join(dir, "public_key.pem"))
			if err != nil || !got.Equal(want) || from != path {
				t.Errorf("PublicKeyOf: %v from %s, %v", err, from, got)
			}
		})
	}
	asked := false
	_, err := LoadSigningKey(KeySource{Path: filepath.Join(dir, "ecdsa"), Passphrase: func(string, int) ([]byte, error) { asked = true; return []byte("secret"), nil }})
	if err == nil || !strings.Contains(err.Error(), "OpenSSH ecdsa-sha2-nistp256 key; rye uses Ed25519 keys only") || asked {
		t.Errorf("ECDSA: %v (passphrase asked: %v)", err, asked)
	}
	// A key rye generates in OpenSSH format is one ssh-keygen reads.
	paths := KeyPaths{Private: filepath.Join(dir, "gen", "id"), Public: filepath.Join(dir, "gen", "public_key.pem")}
	key, err := GenerateKeyFiles(paths, KeyFileOpenSSH, func() ([]byte, error) { return []byte("pw"), nil }, false)
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("ssh-keygen", "-y", "-P", "pw", "-f", paths.Private).Output()
	if err != nil {
		t.Fatalf("ssh-keygen -y on rye's key: %v", err)
	}
	if got := strings.TrimSpace(string(out)); !strings.HasPrefix(got, OpenSSHPublicKey(key.Public)) {
		t.Errorf("ssh-keygen -y: %q, want %q", got, OpenSSHPublicKey(key.Public))
	}
}

// TestKeyFormsMadeByOpenSSL: openssl's PKCS#8 keys, plain and encrypted.
func TestKeyFormsMadeByOpenSSL(t *testing.T) {
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Skip("openssl is not installed: PKCS#8 is tested with keys made by Go only")
	}
	dir := t.TempDir()
	plain, enc := filepath.Join(dir, "plain.pem"), filepath.Join(dir, "enc.pem")
	for _, args := range [][]string{
		{"genpkey", "-algorithm", "ed25519", "-out", plain},
		{"pkcs8", "-topk8", "-in", plain, "-out", enc, "-passout", "pass:pw"},
	} {
		if out, err := exec.Command("openssl", args...).CombinedOutput(); err != nil {
			t.Skipf("openssl %v: %v\n%s", args, err, out)
		}
	}
	os.Chmod(plain, 0o600)
	os.Chmod(enc, 0o600)
	if data, _ := os.ReadFile(enc); !bytes.Contains(data, []byte("BEGIN "+encryptedPKCS8PEM)) {
		t.Fatalf("openssl wrote %q", data)
	}
	want, err := LoadSigningKey(KeySource{Path: plain})
	if err != nil {
		t.Fatal(err)
	}
	checkSigns(t, want, want.Public)
	key, err := LoadSigningKey(KeySource{Path: enc, Passphrase: (&passphrase{p: "pw"}).get})
	if err != nil {
		t.Fatal(err)
	}
	checkSigns(t, key, want.Public)
}

// TestRefusedKeyForms: every form rye does not sign with is refused with
// its own message, naming the file.
func TestRefusedKeyForms(t *testing.T) {
	dir := t.TempDir()
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ecDER, _ := x509.MarshalPKCS8PrivateKey(ec)
	rsaKey, _ := rsa.GenerateKey(rand.Reader, 1024)
	rsaSSH, _ := ssh.MarshalPrivateKey(rsaKey, "")
	rsaSSHPub, _ := ssh.NewPublicKey(&rsaKey.PublicKey)
	pub := testPrivateKey(1).Public().(ed25519.PublicKey)
	pubPEM, _ := CanonicalPublicPEM(pub)
	// A PKCS#8 file whose ciphertext is not whole AES blocks: the library
	// under sigstore would panic on it.
	der, _ := pkcs8.MarshalPrivateKey(testPrivateKey(2), []byte("pw"), nil)
	damaged := pem.EncodeToMemory(&pem.Block{Type: encryptedPKCS8PEM, Bytes: truncateEncrypted(t, der)})
	cases := []struct {
		name, data, want string
	}{
		{"text", "hello\n", "not a key file rye reads: rye signs with a PKCS#8 private key"},
		{"pem-public", pubPEM, `this is a PEM public key ("PUBLIC KEY"): signing needs the private key`},
		{"rsa-pem", "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n", `PEM block is "RSA PRIVATE KEY"; rye signs with`},
		{"ecdsa-pkcs8", string(pem.EncodeToMemory(&pem.Block{Type: privateKeyPEM, Bytes: ecDER})), "rye signs with Ed25519 keys only"},
		{"rsa-openssh", string(pem.EncodeToMemory(rsaSSH)), "the key is an OpenSSH ssh-rsa key; rye uses Ed25519 keys only"},
		{"rsa-pub", string(ssh.MarshalAuthorizedKey(rsaSSHPub)), "the key is an OpenSSH ssh-rsa key; rye uses Ed25519 keys only"},
		{"sk-pub", "sk-ssh-ed25519@openssh.com AAAAGnNrLXNzaC1lZDI1NTE5QG9wZW5zc2guY29tAAAAIA== x\n", "is a security-key (FIDO) key"},
		{"openssh-damaged", "-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n-----END OPENSSH PRIVATE KEY-----\n", "not an OpenSSH private key rye can read"},
		{"pkcs8-damaged", string(damaged), "the encrypted key is damaged"},
		{"big", strings.Repeat("x", 70<<10), "larger than 64 KiB: not a key file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := writeKey(t, dir, c.name, []byte(c.data))
			_, err := LoadSigningKey(KeySource{Path: path, Passphrase: (&passphrase{p: "pw"}).get})
			if err == nil || !strings.HasPrefix(err.Error(), path+": ") || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v\nwant %q", err, c.want)
			}
		})
	}
	if _, err := LoadSigningKey(KeySource{Path: dir}); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("folder: %v", err)
	}
	if runtime.GOOS != "windows" {
		p := writeKey(t, dir, "loose", []byte(pubPEM))
		os.Chmod(p, 0o644)
		priv, _ := marshalOpenSSHPrivateKey(testPrivateKey(3), "", nil)
		loose := writeKey(t, dir, "loose-ssh", priv)
		os.Chmod(loose, 0o640)
		if _, err := LoadSigningKey(KeySource{Path: loose}); err == nil || !strings.Contains(err.Error(), "chmod 600 "+loose) {
			t.Errorf("group-readable OpenSSH key: %v", err)
		}
	}
}

// truncateEncrypted cuts the last byte off the ciphertext of an encrypted
// PKCS#8 DER structure (the OCTET STRING at its end), keeping the DER valid.
func truncateEncrypted(t *testing.T, der []byte) []byte {
	t.Helper()
	var v struct {
		Algorithm asn1.RawValue
		Data      []byte
	}
	if _, err := asn1.Unmarshal(der, &v); err != nil {
		t.Fatal(err)
	}
	v.Data = v.Data[:len(v.Data)-1]
	out, err := asn1.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// agentKeyFile writes the OpenSSH public key line of pub.
func agentKeyFile(t *testing.T, dir string, pub ed25519.PublicKey) string {
	t.Helper()
	p := filepath.Join(dir, "id_ed25519.pub")
	if err := os.WriteFile(p, []byte(OpenSSHPublicKey(pub)+" alice@laptop\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestAgentKeyring signs through golang.org/x/crypto/ssh/agent's in-memory
// keyring: the agent signs rye's exact message, so its signatures are the
// very bytes the private key makes (Ed25519 is deterministic).
func TestAgentKeyring(t *testing.T) {
	priv := testPrivateKey(9)
	pub := priv.Public().(ed25519.PublicKey)
	ring := agent.NewKeyring()
	dir := t.TempDir()
	path := agentKeyFile(t, dir, pub)
	src := KeySource{Path: path, Agent: func() (agent.Agent, error) { return ring, nil }}
	if _, err := LoadSigningKey(src); err == nil || !strings.Contains(err.Error(), path+": ssh-agent does not hold this key (SHA256:") || !strings.Contains(err.Error(), "ssh-add") {
		t.Errorf("empty agent: %v", err)
	}
	if err := ring.Add(agent.AddedKey{PrivateKey: priv}); err != nil {
		t.Fatal(err)
	}
	key, err := LoadSigningKey(src)
	if err != nil {
		t.Fatal(err)
	}
	checkSigns(t, key, pub)
	src2 := []byte("---\nname: x\n---\nbody\n")
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, f := range []Format{V1, V2} {
		viaAgent, err := Sign(key, f, item.Knowledge, "k/x", ".md", src2, now)
		if err != nil {
			t.Fatal(err)
		}
		direct, _ := Sign(NewKey(priv), f, item.Knowledge, "k/x", ".md", src2, now)
		if !bytes.Equal(viaAgent, direct) {
			t.Errorf("%s: the agent's signature differs from the key's:\n%s\n%s", f, viaAgent, direct)
		}
	}
	// Without an agent, or without SSH_AUTH_SOCK, the error says so.
	if _, err := LoadSigningKey(KeySource{Path: path}); err == nil || !strings.Contains(err.Error(), "is an OpenSSH public key, so rye signs through ssh-agent") {
		t.Errorf("no agent: %v", err)
	}
	noSock := KeySource{Path: path, Agent: func() (agent.Agent, error) { return dialAgent("") }}
	if _, err := LoadSigningKey(noSock); err == nil || !strings.Contains(err.Error(), "SSH_AUTH_SOCK is not set") {
		t.Errorf("no SSH_AUTH_SOCK: %v", err)
	}
	// The public half is the .pub file itself: no agent needed.
	if got, from, err := PublicKeyOf(KeySource{Path: path}, ""); err != nil || !got.Equal(pub) || from != path {
		t.Errorf("PublicKeyOf: %v %s", err, from)
	}
}

// lyingAgent answers every signing request with its own signature.
type lyingAgent struct {
	agent.Agent
	sign func(data []byte) (*ssh.Signature, error)
}

func (l lyingAgent) Sign(_ ssh.PublicKey, data []byte) (*ssh.Signature, error) { return l.sign(data) }

// TestAgentAnswerChecked: a signature that does not verify against the
// key, or that is not an Ed25519 signature, fails the signing: nothing is
// signed with it.
func TestAgentAnswerChecked(t *testing.T) {
	priv := testPrivateKey(4)
	other := testPrivateKey(5)
	ring := agent.NewKeyring()
	ring.Add(agent.AddedKey{PrivateKey: priv})
	path := agentKeyFile(t, t.TempDir(), priv.Public().(ed25519.PublicKey))
	for _, c := range []struct {
		name string
		sign func([]byte) (*ssh.Signature, error)
		want string
	}{
		{"other key", func(d []byte) (*ssh.Signature, error) {
			return &ssh.Signature{Format: ssh.KeyAlgoED25519, Blob: ed25519.Sign(other, d)}, nil
		}, "does not verify against its public key: nothing signed"},
		{"other message", func(d []byte) (*ssh.Signature, error) {
			return &ssh.Signature{Format: ssh.KeyAlgoED25519, Blob: ed25519.Sign(priv, append(d, '!'))}, nil
		}, "does not verify against its public key"},
		{"not ed25519", func(d []byte) (*ssh.Signature, error) {
			return &ssh.Signature{Format: "rsa-sha2-256", Blob: make([]byte, 256)}, nil
		}, `ssh-agent answered with a "rsa-sha2-256" signature of 256 bytes`},
		{"refused", func([]byte) (*ssh.Signature, error) { return nil, errors.New("agent: failure") }, "ssh-agent did not sign (agent: failure)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			key, err := LoadSigningKey(KeySource{Path: path, Agent: func() (agent.Agent, error) { return lyingAgent{ring, c.sign}, nil }})
			if err != nil {
				t.Fatal(err)
			}
			_, err = Sign(key, V2, item.Tool, "a/b", ".py", []byte("x = 1\n"), time.Now())
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want %q", err, c.want)
			}
		})
	}
}

// TestRealSSHAgent starts ssh-agent, adds a key made by ssh-keygen,
// deletes the private key file, and signs through the agent with the .pub.
func TestRealSSHAgent(t *testing.T) {
	for _, tool := range []string{"ssh-agent", "ssh-add", "ssh-keygen"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: signing through a real agent is not tested", tool)
		}
	}
	sock, stop, err := agenttest.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	dir := t.TempDir()
	id := filepath.Join(dir, "id_ed25519")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", id).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v\n%s", err, out)
	}
	direct, err := LoadSigningKey(KeySource{Path: id})
	if err != nil {
		t.Fatal(err)
	}
	add := exec.Command("ssh-add", id)
	add.Env = append(os.Environ(), "SSH_AUTH_SOCK="+sock)
	if out, err := add.CombinedOutput(); err != nil {
		t.Fatalf("ssh-add: %v\n%s", err, out)
	}
	if err := os.Remove(id); err != nil {
		t.Fatal(err)
	}
	key, err := LoadSigningKey(KeySource{Path: id + ".pub", Agent: func() (agent.Agent, error) { return dialAgent(sock) }})
	if err != nil {
		t.Fatal(err)
	}
	checkSigns(t, key, direct.Public)
	msg := []byte(messageV2(item.Directive, "x/y", "2026-01-01T00:00:00Z", key.Fingerprint, strings.Repeat("ab", 32)))
	viaAgent, err := key.SignMessage(msg)
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := direct.SignMessage(msg); !bytes.Equal(viaAgent, want) {
		t.Errorf("ssh-agent signed %s, the key signs %s", base64.StdEncoding.EncodeToString(viaAgent), base64.StdEncoding.EncodeToString(want))
	}
	if _, err := dialAgent(filepath.Join(dir, "no-agent.sock")); err == nil || !strings.Contains(err.Error(), "cannot reach ssh-agent at") {
		t.Errorf("missing socket: %v", err)
	}
}

// TestPublicKeyOf: where the public half of each kind of key comes from.
func TestPublicKeyOf(t *testing.T) {
	dir := t.TempDir()
	paths := KeyPaths{Private: filepath.Join(dir, "private_key.pem"), Public: filepath.Join(dir, "public_key.pem")}
	key, err := GenerateKeyFiles(paths, keyFilePEM, func() ([]byte, error) { return []byte("pw"), nil }, false)
	if err != nil {
		t.Fatal(err)
	}
	never := func(string, int) ([]byte, error) { t.Error("asked for a passphrase"); return nil, ErrPassphraseNeeded }
	if pub, from, err := PublicKeyOf(KeySource{Path: paths.Private, Passphrase: never}, paths.Public); err != nil || !pub.Equal(key.Public) || from != paths.Public {
		t.Errorf("encrypted with public_key.pem: %v %s", err, from)
	}
	// Without public_key.pem the key is unlocked.
	os.Remove(paths.Public)
	pp := &passphrase{p: "pw"}
	if pub, from, err := PublicKeyOf(KeySource{Path: paths.Private, Passphrase: pp.get}, paths.Public); err != nil || !pub.Equal(key.Public) || from != paths.Private || len(pp.attempts) != 1 {
		t.Errorf("encrypted alone: %v %s %v", err, from, pp.attempts)
	}
	// A public_key.pem of another key beside a plain key is an error.
	plain := KeyPaths{Private: filepath.Join(dir, "p", "k.pem"), Public: filepath.Join(dir, "p", "public_key.pem")}
	if _, err := GenerateKeyFiles(plain, keyFilePEM, nil, false); err != nil {
		t.Fatal(err)
	}
	otherPEM, _ := CanonicalPublicPEM(testPrivateKey(8).Public().(ed25519.PublicKey))
	os.WriteFile(plain.Public, []byte(otherPEM), 0o644)
	if _, _, err := PublicKeyOf(KeySource{Path: plain.Private}, plain.Public); err == nil || !strings.Contains(err.Error(), plain.Public+": does not belong to "+plain.Private) {
		t.Errorf("mismatch: %v", err)
	}
	// rye never writes a private key over a .pub file.
	if _, err := GenerateKeyFiles(KeyPaths{Private: filepath.Join(dir, "id.pub"), Public: filepath.Join(dir, "x.pem")}, KeyFileOpenSSH, nil, true); err == nil || !strings.Contains(err.Error(), "a .pub file holds a public key") {
		t.Errorf(".pub target: %v", err)
	}
}

// SigningPublicKey reads the public half of a key that is to sign
// without asking for a passphrase: an encrypted key without
// public_key.pem, or no key at all, is Unavailable (the signer decides
// later); a file that cannot sign is an error now.
func TestSigningPublicKey(t *testing.T) {
	dir := t.TempDir()
	paths := KeyPaths{Private: filepath.Join(dir, "private_key.pem"), Public: filepath.Join(dir, "public_key.pem")}
	key, err := GenerateKeyFiles(paths, keyFilePEM, func() ([]byte, error) { return []byte("pw"), nil }, false)
	if err != nil {
		t.Fatal(err)
	}
	if pub, err := SigningPublicKey(KeySource{Path: paths.Private}, paths.Public); err != nil || !pub.Equal(key.Public) {
		t.Errorf("encrypted with public_key.pem: %v", err)
	}
	unavailable := func(err error) bool {
		var ke *KeyError
		return errors.As(err, &ke) && ke.Unavailable
	}
	if _, err := SigningPublicKey(KeySource{Path: paths.Private}, filepath.Join(dir, "none.pem")); !unavailable(err) {
		t.Errorf("encrypted alone: %v", err)
	}
	if _, err := SigningPublicKey(KeySource{Path: filepath.Join(dir, "missing.pem")}, paths.Public); !unavailable(err) {
		t.Errorf("no key: %v", err)
	}
	if _, err := SigningPublicKey(KeySource{Path: paths.Public}, paths.Public); err == nil || unavailable(err) || !strings.Contains(err.Error(), "signing needs the private key") {
		t.Errorf("a public key as the signing key: %v", err)
	}
	if runtime.GOOS != "windows" {
		os.Chmod(paths.Private, 0o644)
		if _, err := SigningPublicKey(KeySource{Path: paths.Private}, paths.Public); err == nil || unavailable(err) || !strings.Contains(err.Error(), "readable by others") {
			t.Errorf("a key others can read: %v", err)
		}
	}
}

// TestParsePublicKey: both forms a public key comes in, and what is
// refused.
func TestParsePublicKey(t *testing.T) {
	pub := testPrivateKey(6).Public().(ed25519.PublicKey)
	pemText, _ := CanonicalPublicPEM(pub)
	line := OpenSSHPublicKey(pub)
	for _, in := range []string{pemText, line, line + " bob@host\n", "# my key\n\n" + line + "\n"} {
		got, _, err := parsePublicKey([]byte(in))
		if err != nil || !got.Equal(pub) || Fingerprint(got) != Fingerprint(pub) {
			t.Errorf("%q: %v", in, err)
		}
	}
	if _, c, _ := parsePublicKey([]byte(line + " bob  at host")); c != "bob at host" {
		t.Errorf("comment %q", c)
	}
	blob := strings.Fields(line)[1]
	for in, want := range map[string]string{
		"":                 "no key found",
		line + "\n" + line: "line 2: a second key",
		"ssh-ed25519 !!!":  "is not base64",
		"ssh-rsa " + blob:  "the key is an OpenSSH ssh-rsa key; rye uses Ed25519 keys only",
		"ssh-ed25519-cert-v01@openssh.com " + blob: "is an OpenSSH certificate",
		"ecdsa-sha2-nistp256 " + blob:              "rye uses Ed25519 keys only",
		"hello world":                              `"hello" is not an OpenSSH key type`,
		"ssh-ed25519 AAAA":                         "not a valid ssh-ed25519 key",
	} {
		if _, _, err := parsePublicKey([]byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", in, err, want)
		}
	}
	// The type named on the line must be the key's.
	ecPub, _ := ssh.NewPublicKey(&func() *ecdsa.PrivateKey { k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader); return k }().PublicKey)
	lie := "ssh-ed25519 " + base64.StdEncoding.EncodeToString(ecPub.Marshal())
	if _, _, err := parsePublicKey([]byte(lie)); err == nil || !strings.Contains(err.Error(), "the line says ssh-ed25519 but holds a ecdsa-sha2-nistp256 key") {
		t.Errorf("mislabelled: %v", err)
	}
}

// BenchmarkSignMessage: one v2 signature, made and checked, by a key in
// memory, by golang.org/x/crypto's in-memory agent, and by a real
// ssh-agent over its socket (BENCHMARKS.md).
func BenchmarkSignMessage(b *testing.B) {
	priv := testPrivateKey(11)
	pub := priv.Public().(ed25519.PublicKey)
	msg := []byte(messageV2(item.Tool, "my-project/deploy", "2026-01-01T00:00:00Z", Fingerprint(pub), strings.Repeat("ab", 32)))
	run := func(b *testing.B, key *Key) {
		for b.Loop() {
			if _, err := key.SignMessage(msg); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("key", func(b *testing.B) { run(b, NewKey(priv)) })
	b.Run("ed25519.Sign-alone", func(b *testing.B) {
		for b.Loop() {
			ed25519.Sign(priv, msg)
		}
	})
	ring := agent.NewKeyring()
	ring.Add(agent.AddedKey{PrivateKey: priv})
	b.Run("keyring", func(b *testing.B) {
		key, err := agentKey(ring, pub)
		if err != nil {
			b.Fatal(err)
		}
		run(b, key)
	})
	b.Run("ssh-agent", func(b *testing.B) {
		sock, stop, err := agenttest.Start()
		if err != nil {
			b.Skip(err)
		}
		defer stop()
		ag, err := dialAgent(sock)
		if err != nil {
			b.Fatal(err)
		}
		if err := ag.Add(agent.AddedKey{PrivateKey: priv}); err != nil {
			b.Fatal(err)
		}
		key, err := agentKey(ag, pub)
		if err != nil {
			b.Fatal(err)
		}
		run(b, key)
	})
}

// An encrypted OpenSSH key file whose public half in clear is another
// key's is refused when it is loaded, naming the file: rye trust self
// (which reads the clear half) would trust one key and sign with another.
func TestOpenSSHHalvesDisagree(t *testing.T) {
	mine := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{1}, 32))
	other := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{2}, 32))
	data, err := marshalOpenSSHPrivateKey(mine, "me", []byte("pw"))
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(data)
	i := bytes.Index(block.Bytes, mine.Public().(ed25519.PublicKey))
	if i < 0 {
		t.Fatal("no public half in clear")
	}
	copy(block.Bytes[i:], other.Public().(ed25519.PublicKey))
	file := filepath.Join(t.TempDir(), "id_ed25519")
	if err := os.WriteFile(file, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	src := KeySource{Path: file, Passphrase: func(string, int) ([]byte, error) { return []byte("pw"), nil }}
	pub, _, err := PublicKeyOf(src, "")
	if err != nil || !pub.Equal(other.Public()) {
		t.Fatalf("the clear half: %v", err)
	}
	_, err = LoadSigningKey(src)
	var ke *KeyError
	if !errors.As(err, &ke) || ke.Path != file || !strings.Contains(err.Error(), "the public key it stores in clear is not its private key's") {
		t.Errorf("halves that disagree: %v", err)
	}
	// The file as written loads.
	os.WriteFile(file, data, 0o600)
	if k, err := LoadSigningKey(src); err != nil || !k.Public.Equal(mine.Public()) {
		t.Errorf("a good file: %v", err)
	}
}
