package verify

import (
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/space"
)

const vectorTrust = `fingerprint = "f0ff50dacf109dea"
owner = "vectors"
attestation = ""

[public_key]
pem = """
-----BEGIN PUBLIC KEY-----
MCowBQYDK2VwAyEAA6EHv/POEL4dcN0Y50vAmWfk1jCbpQ1fHdyGZBJVMbg=
-----END PUBLIC KEY-----
"""
`

const otherPEM = "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAKay64UG8yvCyLhqU000LxzYeUm0L/hLIl5S8kyKWbdc=\n-----END PUBLIC KEY-----\n"

func TestParseTrustedKey(t *testing.T) {
	k, err := ParseTrustedKey("f0ff50dacf109dea.toml", []byte(vectorTrust))
	if err != nil || k.Fingerprint != "f0ff50dacf109dea" || k.Owner != "vectors" || len(k.Scopes) != 0 || k.Expires != nil {
		t.Fatalf("%+v %v", k, err)
	}
	// Writing it back gives the reference's bytes.
	if got := string(FormatTrustedKey(k)); got != vectorTrust {
		t.Errorf("round trip:\n%s\nwant\n%s", got, vectorTrust)
	}
	extra := strings.Replace(vectorTrust, `attestation = ""`, "attestation = \"\"\nscopes = [\"tool:a/**\", \"*:b/*\"]\nexpires = 2027-06-30", 1)
	k, err = ParseTrustedKey("f0ff50dacf109dea.toml", []byte(extra))
	if err != nil || len(k.Scopes) != 2 || k.Expires.Format("2006-01-02") != "2027-06-30" {
		t.Fatalf("%+v %v", k, err)
	}
	if string(FormatTrustedKey(k)) != strings.Replace(extra, `"tool:a/**", "*:b/*"`, `"tool:a/**", "*:b/*"`, 1) {
		t.Errorf("round trip with scopes:\n%s", FormatTrustedKey(k))
	}
	bad := map[string]string{
		"0000000000000000.toml": "the file is named 0000000000000000 but its key's fingerprint is f0ff50dacf109dea",
	}
	for name, want := range bad {
		if _, err := ParseTrustedKey(name, []byte(vectorTrust)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v", name, err)
		}
	}
	bodies := map[string]string{
		strings.Replace(vectorTrust, `fingerprint = "f0ff50dacf109dea"`, `fingerprint = "1111111111111111"`, 1): "its fingerprint field says 1111111111111111",
		strings.Replace(vectorTrust, `owner = "vectors"`, `owner = "vectors"`+"\nscope = [\"tool:x\"]", 1):      "invalid trusted-key file",
		strings.Replace(vectorTrust, `attestation = ""`, `scopes = ["tool"]`, 1):                                `scope "tool": write kind:glob`,
		strings.Replace(vectorTrust, `attestation = ""`, `scopes = ["gadget:x"]`, 1):                            `unknown item kind "gadget"`,
		strings.Replace(vectorTrust, `attestation = ""`, `expires = "soon"`, 1):                                 "expires: soon is not a date",
		strings.Replace(vectorTrust, "BEGIN PUBLIC KEY", "BEGIN PRIVATE KEY", 1):                                "[public_key] pem",
		"not toml = = =": "invalid trusted-key file",
	}
	for body, want := range bodies {
		if _, err := ParseTrustedKey("f0ff50dacf109dea.toml", []byte(body)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("want %q, got %v", want, err)
		}
	}
	// Release bundles have a scope kind of their own.
	if k, err := ParseTrustedKey("f0ff50dacf109dea.toml", []byte(strings.Replace(vectorTrust, `attestation = ""`, `scopes = ["bundle:my/*"]`, 1))); err != nil || k.Scopes[0] != "bundle:my/*" {
		t.Errorf("bundle scope: %v", err)
	}
	// A string date is accepted too.
	if k, err := ParseTrustedKey("f0ff50dacf109dea.toml", []byte(strings.Replace(vectorTrust, `attestation = ""`, `expires = "2027-01-02"`, 1))); err != nil || k.Expires.Day() != 2 {
		t.Errorf("string date: %v", err)
	}
}

func TestScopesAndExpiry(t *testing.T) {
	k := &TrustedKey{Scopes: []string{"tool:a/**", "directive:b/*", "*:shared/x", "bundle:rel/*"}}
	cases := map[string]bool{
		"tool a/x": true, "tool a/x/y": true, "directive a/x": false, "directive b/y": true,
		"directive b/y/z": false, "knowledge shared/x": true, "tool other": false,
		"bundle rel/one": true, "bundle a/x": false, "tool rel/one": false, "bundle shared/x": true,
	}
	for in, want := range cases {
		kind, id, _ := strings.Cut(in, " ")
		if got := k.Allows(item.Kind(kind), item.ID(id)); got != want {
			t.Errorf("%s: %v", in, got)
		}
	}
	if !(&TrustedKey{}).Allows(item.Tool, "anything") {
		t.Error("no scopes should allow everything")
	}
	exp := time.Date(2027, 6, 30, 0, 0, 0, 0, time.UTC)
	k = &TrustedKey{Expires: &exp}
	if k.ExpiredAt(time.Date(2027, 6, 30, 23, 59, 59, 0, time.UTC)) || !k.ExpiredAt(time.Date(2027, 7, 1, 0, 0, 0, 0, time.UTC)) {
		t.Error("the expiry day itself is still valid, the next is not")
	}
	if !k.ExpiresWithin(time.Date(2027, 6, 10, 0, 0, 0, 0, time.UTC), 30*24*time.Hour) || k.ExpiresWithin(time.Date(2027, 5, 1, 0, 0, 0, 0, time.UTC), 30*24*time.Hour) {
		t.Error("30-day warning window")
	}
}

func TestLoadTrustStore(t *testing.T) {
	project := fstest.MapFS{
		"f0ff50dacf109dea.toml": {Data: []byte(vectorTrust)},
		"0000000000000000.toml": {Data: []byte(vectorTrust)},
		"README.md":             {Data: []byte("hi")},
		".hidden.toml":          {Data: []byte("x")},
	}
	user := fstest.MapFS{
		"f0ff50dacf109dea.toml": {Data: []byte(strings.Replace(vectorTrust, `owner = "vectors"`, `owner = "user copy"`, 1))},
		"a2bf86faa1298f7a.toml": {Data: []byte("fingerprint = \"a2bf86faa1298f7a\"\nowner = \"other\"\nattestation = \"\"\n\n[public_key]\npem = \"\"\"\n" + otherPEM + "\"\"\"\n")},
	}
	ts, err := LoadTrustStore([]TrustSource{{Label: "project", Files: project, Shown: "p"}, {Label: "user", Files: user, Shown: "u"}, {Label: "system"}})
	if err != nil {
		t.Fatal(err)
	}
	if k := ts.Lookup("f0ff50dacf109dea"); k == nil || k.Space != "project" || k.Owner != "vectors" || k.Path != "p/f0ff50dacf109dea.toml" {
		t.Errorf("project key: %+v", k)
	}
	if k := ts.Lookup("a2bf86faa1298f7a"); k == nil || k.Space != "user" {
		t.Errorf("user key: %+v", k)
	}
	if ts.Lookup("0000000000000000") != nil {
		t.Error("a misnamed file was trusted")
	}
	var problems []string
	for _, p := range ts.Problems {
		problems = append(problems, p.Path+": "+p.Reason)
	}
	if len(problems) != 2 || !strings.Contains(problems[0], "p/0000000000000000.toml: the file is named") || !strings.Contains(problems[1], "p/README.md: not a .toml file") {
		t.Errorf("problems: %v", problems)
	}
	// The digest changes with any byte of any tier.
	d1 := ts.Digest()
	user["a2bf86faa1298f7a.toml"].Data = append(user["a2bf86faa1298f7a.toml"].Data, ' ')
	ts2, _ := LoadTrustStore([]TrustSource{{Label: "project", Files: project}, {Label: "user", Files: user}})
	if ts2.Digest() == d1 {
		t.Error("digest ignores a changed file")
	}
}

func TestTrustTiers(t *testing.T) {
	dir := t.TempDir()
	ss := &space.Spaces{
		Project: space.NewDiskSpace(space.Project, filepath.Join(dir, "p"), ""),
		User:    space.NewDiskSpace(space.User, filepath.Join(dir, "u"), ""),
		System:  []*space.Space{space.EmbeddedSpace(), space.NewDiskSpace(space.System, filepath.Join(dir, "s"), "system:s")},
	}
	labels := func(ts []TrustSource) string {
		var l []string
		for _, s := range ts {
			l = append(l, s.Label)
		}
		return strings.Join(l, " ")
	}
	atRef := MemTrustSource("project@main", "main:.ai/trusted_keys", nil)
	for _, c := range []struct {
		project []TrustSource
		user    bool
		want    string
	}{
		{nil, true, "project user system system:s"},
		{[]TrustSource{atRef}, false, "project@main system system:s"},
		{[]TrustSource{atRef}, true, "project@main user system system:s"},
	} {
		if got := labels(TrustTiers(ss, c.project, c.user)); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}
