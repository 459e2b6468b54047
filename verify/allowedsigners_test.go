package verify

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ryekit/rye/sign"
)

// The key of otherPEM as an OpenSSH public key line.
const otherSSH = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAICmsuuFBvMrwsi4alNNNC8c2HlJtC/4SyJeUvJMilm3X"

func TestParseKeyText(t *testing.T) {
	pub, _ := sign.ParsePublicKeyPEM([]byte(otherPEM))
	if sign.OpenSSHPublicKey(pub) != otherSSH {
		t.Fatalf("otherSSH is %s", sign.OpenSSHPublicKey(pub))
	}
	fp := sign.Fingerprint(pub)
	for _, c := range []struct {
		in, owner, expires string
	}{
		{otherPEM, "", ""},
		{otherSSH, "", ""},
		{otherSSH + " bob@laptop\n", "bob@laptop", ""},
		{"# bob's key\n\n" + otherSSH + " bob@laptop\n", "bob@laptop", ""},
		{"bob@example.com " + otherSSH, "bob@example.com", ""},
		{"bob@example.com,*@bob.dev " + otherSSH + " comment", "bob@example.com,*@bob.dev", ""},
		{`"Bob Smith" ` + otherSSH, "Bob Smith", ""},
		{`bob namespaces="git,file" ` + otherSSH, "bob", ""},
		{`bob valid-before="20270701Z" ` + otherSSH, "bob", "2027-06-30"},
		{`bob valid-before="20270630235959Z" ` + otherSSH, "bob", "2027-06-30"},
		{`bob valid-before="202707011230Z" ` + otherSSH, "bob", "2027-06-30"},
		{`bob Namespaces="git",VALID-BEFORE="20270702000000Z" ` + otherSSH, "bob", "2027-07-01"},
	} {
		k, err := parseKeyText([]byte(c.in))
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		got := ""
		if k.Expires != nil {
			got = k.Expires.Format("2006-01-02")
		}
		if k.Fingerprint != fp || !k.Public.Equal(pub) || k.Owner != c.owner || got != c.expires {
			t.Errorf("%q: fp %s owner %q expires %q; want owner %q expires %q", c.in, k.Fingerprint, k.Owner, got, c.owner, c.expires)
		}
	}
	for in, want := range map[string]string{
		"":                                           "no key found: give a PEM public key",
		"hello":                                      "line 1: not a public key: give a PEM public key",
		otherSSH + "\n" + otherSSH:                   "line 2: a second key; rye trust add takes one key at a time",
		"\n# x\nbob " + otherSSH[:32]:                "line 3: not a valid ssh-ed25519 key",
		`bob valid-after="20200101" ` + otherSSH:     "valid-after: rye's trust has no start date",
		`bob cert-authority ` + otherSSH:             "cert-authority: the line trusts a certificate authority",
		`bob no-touch-required ` + otherSSH:          "unknown option \"no-touch-required\"",
		`bob valid-before=20270101 ` + otherSSH:      "write the value in double quotes",
		`bob valid-before="2027" ` + otherSSH:        "write YYYYMMDD[Z] or YYYYMMDDHHMM[SS][Z]",
		`bob valid-before="19000101Z" ` + otherSSH:   "out of range",
		`"bob ` + otherSSH:                           "opens a quote that is not closed",
		"bob ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ": "OpenSSH ssh-rsa key; rye uses Ed25519 keys only",
		otherSSH + " bob\x01":                        "holds a control character",
		"-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n": "asn1",
	} {
		if _, err := parseKeyText([]byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", in, err, want)
		}
	}
}

func TestFormatAllowedSigners(t *testing.T) {
	pub, _ := sign.ParsePublicKeyPEM([]byte(otherPEM))
	fp := sign.Fingerprint(pub)
	exp := time.Date(2027, 6, 30, 0, 0, 0, 0, time.UTC)
	keys := []*TrustedKey{
		{Fingerprint: fp, Owner: "bob@example.com", Public: pub, Space: "project", Path: ".ai/trusted_keys/" + fp + ".toml", Scopes: []string{"tool:bob/**"}, Expires: &exp},
		{Fingerprint: fp, Owner: "Bob Smith", Public: pub, Space: "user", Path: "u.toml"},
		{Fingerprint: fp, Owner: "", Public: pub, Space: "user", Path: "v.toml"},
	}
	data, err := FormatAllowedSigners(keys, []string{"git"})
	if err != nil {
		t.Fatal(err)
	}
	want := "# OpenSSH allowed_signers, written by rye trust export from rye's trust store.\n" +
		"# a2bf86faa1298f7a  project  .ai/trusted_keys/a2bf86faa1298f7a.toml  (rye scopes, not expressible here: tool:bob/**)\n" +
		`bob@example.com namespaces="git",valid-before="20270630235959Z" ` + otherSSH + "\n" +
		"# a2bf86faa1298f7a  user  u.toml\n" +
		`"Bob Smith" namespaces="git" ` + otherSSH + "\n" +
		"# a2bf86faa1298f7a  user  v.toml\n" +
		`a2bf86faa1298f7a namespaces="git" ` + otherSSH + "\n"
	if string(data) != want {
		t.Errorf("got\n%s\nwant\n%s", data, want)
	}
	// Each line reads back as the key it was written from.
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	for i, k := range keys {
		back, err := parseKeyText([]byte(lines[2*i+2]))
		if err != nil {
			t.Fatal(err)
		}
		owner := k.Owner
		if owner == "" {
			owner = fp
		}
		if back.Owner != owner || !back.Public.Equal(pub) || (k.Expires == nil) != (back.Expires == nil) || (k.Expires != nil && !k.Expires.Equal(*back.Expires)) {
			t.Errorf("line %d reads back as %+v", i, back)
		}
	}
	for _, owner := range []string{`Bob "the" Smith`, "bob\nmallory ssh-ed25519 AAAA"} {
		bad := []*TrustedKey{{Fingerprint: fp, Owner: owner, Public: pub, Path: "x.toml"}}
		if _, err := FormatAllowedSigners(bad, nil); err == nil || !strings.Contains(err.Error(), "x.toml: owner") {
			t.Errorf("owner %q: %v", owner, err)
		}
	}
	if _, err := FormatAllowedSigners(keys, []string{`git" cert-authority`}); err == nil || !strings.Contains(err.Error(), "namespace") {
		t.Errorf("bad namespace: %v", err)
	}
}

// TestAllowedSignersWithSSHKeygen: ssh-keygen -Y verify accepts a file rye
// exported, for the principal rye wrote, until the end of the expiry day and
// not after; and a key made by ssh-keygen keeps rye's fingerprint whichever
// form it is read in.
func TestAllowedSignersWithSSHKeygen(t *testing.T) {
	if _, err := exec.LookPath("ssh-keygen"); err != nil {
		t.Skip("ssh-keygen is not installed: allowed_signers is tested without it")
	}
	dir := t.TempDir()
	id := filepath.Join(dir, "id")
	run := func(stdin string, args ...string) (string, error) {
		cmd := exec.Command("ssh-keygen", args...)
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := run("", "-q", "-t", "ed25519", "-N", "", "-C", "alice@laptop", "-f", id); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	pubLine, _ := os.ReadFile(id + ".pub")
	k, err := parseKeyText(pubLine)
	if err != nil {
		t.Fatal(err)
	}
	priv, err := sign.LoadSigningKey(sign.KeySource{Path: id})
	if err != nil {
		t.Fatal(err)
	}
	if k.Fingerprint != priv.Fingerprint || k.Owner != "alice@laptop" {
		t.Fatalf("fingerprint %s owner %q, the private key's is %s", k.Fingerprint, k.Owner, priv.Fingerprint)
	}
	exp := time.Date(2027, 6, 30, 0, 0, 0, 0, time.UTC)
	k.Expires, k.Owner = &exp, "alice@example.com"
	data, err := FormatAllowedSigners([]*TrustedKey{k}, []string{"git"})
	if err != nil {
		t.Fatal(err)
	}
	signers := filepath.Join(dir, "allowed_signers")
	os.WriteFile(signers, data, 0o644)
	msg := filepath.Join(dir, "msg")
	os.WriteFile(msg, []byte("a commit\n"), 0o644)
	if out, err := run("", "-Y", "sign", "-f", id, "-n", "git", msg); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	verifyAt := func(when string) (string, error) {
		return run("a commit\n", "-Y", "verify", "-f", signers, "-I", "alice@example.com", "-n", "git", "-s", msg+".sig", "-Overify-time="+when)
	}
	if out, err := verifyAt("20270630235959Z"); err != nil || !strings.Contains(out, `Good "git" signature for alice@example.com`) {
		t.Errorf("last second of the expiry day: %v\n%s", err, out)
	}
	if out, err := verifyAt("20270701000001Z"); err == nil {
		t.Errorf("after the expiry day ssh-keygen accepts the key:\n%s", out)
	}
	// And the file reads back into the same trust entry.
	back, err := parseKeyText(data)
	if err != nil || back.Fingerprint != k.Fingerprint || !back.Expires.Equal(exp) || back.Owner != "alice@example.com" {
		t.Errorf("read back: %+v %v", back, err)
	}
}

// FuzzParseKeyText: what rye trust add reads never panics, and a key it
// accepts is exported as an allowed_signers line that reads back as the
// same key, owner and expiry (or the export refuses the owner).
func FuzzParseKeyText(f *testing.F) {
	f.Add([]byte(otherPEM))
	f.Add([]byte(otherSSH + " bob@laptop\n"))
	f.Add([]byte(`"Bob Smith",bob@x namespaces="git",valid-before="20270630235959Z" ` + otherSSH + " c"))
	f.Add([]byte(`bob valid-before="202707011230" ` + otherSSH))
	f.Add([]byte(`bob cert-authority,valid-after="20200101" ` + otherSSH))
	f.Add([]byte("# a\n\nbob " + otherSSH + "\n" + otherSSH))
	f.Fuzz(func(t *testing.T, data []byte) {
		k, err := parseKeyText(data)
		if err != nil {
			return
		}
		if k.Fingerprint != sign.Fingerprint(k.Public) {
			t.Fatalf("fingerprint %s is not the key's", k.Fingerprint)
		}
		out, err := FormatAllowedSigners([]*TrustedKey{k}, nil)
		if err != nil {
			return
		}
		back, err := parseKeyText(out)
		if err != nil {
			t.Fatalf("the export does not read back: %v\n%s", err, out)
		}
		owner := k.Owner
		if owner == "" {
			owner = k.Fingerprint
		}
		if !back.Public.Equal(k.Public) || back.Owner != owner || (back.Expires == nil) != (k.Expires == nil) || (k.Expires != nil && !back.Expires.Equal(*k.Expires)) {
			t.Fatalf("read back as %+v, was %+v\n%s", back, k, out)
		}
		if _, err := ParseTrustedKey(k.Fingerprint+".toml", FormatTrustedKey(k)); err != nil {
			t.Fatalf("the trust entry does not read back: %v", err)
		}
	})
}
