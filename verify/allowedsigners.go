package verify

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/ryekit/rye/sign"
)

// This file reads and writes OpenSSH's allowed_signers format (ssh-keygen(1),
// "ALLOWED SIGNERS"): one key per line,
//
//	principals [options] keytype base64-key [comment]
//
// where principals is a comma-separated list of patterns (quoted when it
// holds spaces) and options are cert-authority, namespaces="...",
// valid-after="..." and valid-before="...". It is how git and ssh-keygen -Y
// know who may sign; rye maps it onto its own trust entries: the principals
// are the owner, valid-before the expiry. The fingerprint stays rye's,
// recomputed from the key (spec 2.4).

// keyTextForms names the forms parseKeyText reads, for error messages.
const keyTextForms = `give a PEM public key ("-----BEGIN PUBLIC KEY-----"), an OpenSSH public key line ("ssh-ed25519 AAAA... [comment]", a .pub file) or a line of an allowed_signers file ("alice@example.com ssh-ed25519 AAAA...")`

// parseKeyText reads a public key in the forms a user hands to rye trust
// add: a PEM PUBLIC KEY block; an OpenSSH public key line (a .pub file),
// whose comment becomes the owner; or one line of an allowed_signers file,
// whose principals become the owner and whose valid-before becomes the
// expiry. Blank lines and # comments are skipped; more than one key is an
// error that names the line.
func parseKeyText(data []byte) (*TrustedKey, error) {
	if bytes.HasPrefix(bytes.TrimSpace(data), []byte("-----BEGIN ")) {
		pub, err := sign.ParsePublicKeyPEM(data)
		if err != nil {
			return nil, err
		}
		return &TrustedKey{Fingerprint: sign.Fingerprint(pub), Public: pub}, nil
	}
	line, n := "", 0
	for i, l := range strings.Split(string(data), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		if line != "" {
			return nil, fmt.Errorf("line %d: a second key; rye trust add takes one key at a time (pick its line: grep alice allowed_signers | rye trust add -)", i+1)
		}
		line, n = l, i+1
	}
	if line == "" {
		return nil, errors.New("no key found: " + keyTextForms)
	}
	if !slices.ContainsFunc(strings.Fields(line), sign.IsOpenSSHKeyType) {
		return nil, fmt.Errorf("line %d: not a public key: %s", n, keyTextForms)
	}
	var k *TrustedKey
	if sign.IsOpenSSHPublicKey([]byte(line)) {
		pub, comment, err := sign.ParseOpenSSHPublicKey(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", n, err)
		}
		k = &TrustedKey{Fingerprint: sign.Fingerprint(pub), Owner: comment, Public: pub}
	} else {
		var err error
		if k, err = parseAllowedSigner(line); err != nil {
			return nil, fmt.Errorf("line %d: %v", n, err)
		}
	}
	if strings.IndexFunc(k.Owner, badPrincipalRune) >= 0 {
		return nil, fmt.Errorf("line %d: the owner %q holds a control character or invalid UTF-8", n, k.Owner)
	}
	return k, nil
}

// parseAllowedSigner reads one allowed_signers line into a trust entry.
// Anything rye cannot honour is refused rather than dropped, since dropping
// it would trust the key more widely than the line does: cert-authority (a
// CA, not a key), valid-after (rye has no start date) and unknown options.
// namespaces is accepted and not kept: it limits which ssh-keygen -Y
// signatures the key may make, and rye's signatures have no namespace;
// trusting the key for rye items is what rye trust add says.
func parseAllowedSigner(line string) (*TrustedKey, error) {
	principals, rest, err := principalsField(strings.TrimSpace(line))
	if err != nil {
		return nil, err
	}
	k := &TrustedKey{Owner: principals}
	if !sign.IsOpenSSHPublicKey([]byte(rest)) {
		opts, after := optionsField(rest)
		rest = after
		seen := map[string]bool{}
		for _, o := range opts {
			// ssh-keygen refuses a line that repeats an option: which of
			// two valid-before dates would it mean?
			name, _, _ := strings.Cut(o, "=")
			if name = strings.ToLower(name); seen[name] {
				return nil, fmt.Errorf("option %s is given twice: ssh-keygen refuses such a line, and so does rye; keep one", name)
			}
			seen[name] = true
			if err := k.allowedSignerOption(o); err != nil {
				return nil, err
			}
		}
	}
	pub, _, err := sign.ParseOpenSSHPublicKey(rest)
	if err != nil {
		return nil, err
	}
	k.Public, k.Fingerprint = pub, sign.Fingerprint(pub)
	return k, nil
}

// principalsField splits off the first field: a quoted string (no escapes,
// as OpenSSH reads it) or everything up to white space.
func principalsField(s string) (string, string, error) {
	if strings.HasPrefix(s, `"`) {
		end := strings.IndexByte(s[1:], '"')
		if end < 0 {
			return "", "", errors.New("the principals field opens a quote that is not closed")
		}
		p := s[1 : 1+end]
		if p == "" {
			return "", "", errors.New("empty principals field")
		}
		return p, strings.TrimSpace(s[2+end:]), nil
	}
	i := strings.IndexFunc(s, unicode.IsSpace)
	if i < 0 {
		return "", "", errors.New("no key after the principals: write principals [options] ssh-ed25519 <base64 key>")
	}
	return s[:i], strings.TrimSpace(s[i:]), nil
}

// optionsField splits off the options field: comma-separated options up to
// the first white space outside double quotes.
func optionsField(s string) ([]string, string) {
	var opts []string
	quoted, start := false, 0
	for i, r := range s {
		switch {
		case r == '"':
			quoted = !quoted
		case r == ',' && !quoted:
			opts = append(opts, s[start:i])
			start = i + 1
		case unicode.IsSpace(r) && !quoted:
			return append(opts, s[start:i]), strings.TrimSpace(s[i:])
		}
	}
	return append(opts, s[start:]), ""
}

// allowedSignerOption applies one option to k.
func (k *TrustedKey) allowedSignerOption(o string) error {
	name, value, hasValue := strings.Cut(o, "=")
	if hasValue {
		if len(value) < 2 || value[0] != '"' || value[len(value)-1] != '"' {
			return fmt.Errorf("option %.40q: write the value in double quotes", o)
		}
		value = value[1 : len(value)-1]
	}
	switch strings.ToLower(name) {
	case "namespaces":
		return nil
	case "valid-before":
		t, err := parseSSHTime(value)
		if err != nil {
			return fmt.Errorf("valid-before=%q: %v", value, err)
		}
		// ssh-keygen accepts a signature until t, to the second; rye's
		// expiry is the last whole day (UTC) accepted: the last day that
		// ends by t, so that rye never accepts more than the line does.
		y, m, d := t.Add(time.Second).UTC().Date()
		e := time.Date(y, m, d, 0, 0, 0, 0, time.UTC).AddDate(0, 0, -1)
		if e.Year() < 1970 || e.Year() > 9998 {
			return fmt.Errorf("valid-before=%q: out of range (1970 to 9998)", value)
		}
		k.Expires = &e
		return nil
	case "valid-after":
		return errors.New("valid-after: rye's trust has no start date; trust the key from now on by removing the option, or wait until that date")
	case "cert-authority":
		return errors.New("cert-authority: the line trusts a certificate authority; rye trusts keys, so give the key itself")
	}
	return fmt.Errorf("unknown option %.40q: rye reads namespaces and valid-before (and refuses valid-after and cert-authority)", name)
}

// parseSSHTime reads an allowed_signers time: YYYYMMDD, YYYYMMDDHHMM or
// YYYYMMDDHHMMSS, in UTC with a Z suffix, else in local time (as
// ssh-keygen reads it).
func parseSSHTime(s string) (time.Time, error) {
	loc := time.Local
	if strings.HasSuffix(s, "Z") || strings.HasSuffix(s, "z") {
		s, loc = s[:len(s)-1], time.UTC
	}
	layout := map[int]string{8: "20060102", 12: "200601021504", 14: "20060102150405"}[len(s)]
	if layout == "" || strings.Trim(s, "0123456789") != "" {
		return time.Time{}, errors.New("write YYYYMMDD[Z] or YYYYMMDDHHMM[SS][Z]")
	}
	return time.ParseInLocation(layout, s, loc)
}

// FormatAllowedSigners writes keys as an allowed_signers file, for git's
// gpg.ssh.allowedSignersFile and ssh-keygen -Y verify: for each key, a
// comment with its rye fingerprint, tier, file and scopes (which the format
// cannot express), then the line. The owner is the principals field (the
// fingerprint when there is no owner); the expiry becomes valid-before, the
// last second of the expiry day in UTC; namespaces, when given, limit what
// ssh-keygen -Y accepts the key for. An owner or namespace that cannot be
// written without changing the line's meaning (a quote, a control
// character) is an error naming the key.
func FormatAllowedSigners(keys []*TrustedKey, namespaces []string) ([]byte, error) {
	for _, ns := range namespaces {
		if ns == "" || strings.ContainsAny(ns, "\",") || strings.IndexFunc(ns, badPrincipalRune) >= 0 || strings.IndexFunc(ns, unicode.IsSpace) >= 0 {
			return nil, fmt.Errorf("namespace %q: use letters, digits and dots, such as git or file", ns)
		}
	}
	var b strings.Builder
	b.WriteString("# OpenSSH allowed_signers, written by rye trust export from rye's trust store.\n")
	for _, k := range keys {
		principals := k.Owner
		if principals == "" {
			principals = k.Fingerprint
		}
		if strings.ContainsRune(principals, '"') || strings.IndexFunc(principals, badPrincipalRune) >= 0 {
			return nil, fmt.Errorf("%s: owner %q cannot be written as allowed_signers principals (it holds a quote or a control character): change the owner with rye trust add --force --owner", k.Path, k.Owner)
		}
		if strings.IndexFunc(principals, unicode.IsSpace) >= 0 || strings.HasPrefix(principals, "#") {
			principals = `"` + principals + `"`
		}
		fmt.Fprintf(&b, "# %s  %s  %s", k.Fingerprint, k.Space, k.Path)
		if len(k.Scopes) > 0 {
			fmt.Fprintf(&b, "  (rye scopes, not expressible here: %s)", strings.Join(k.Scopes, " "))
		}
		b.WriteString("\n" + principals)
		var opts []string
		if len(namespaces) > 0 {
			opts = append(opts, `namespaces="`+strings.Join(namespaces, ",")+`"`)
		}
		if k.Expires != nil {
			last := k.Expires.UTC().AddDate(0, 0, 1).Add(-time.Second)
			opts = append(opts, `valid-before="`+last.Format("20060102150405")+`Z"`)
		}
		if len(opts) > 0 {
			b.WriteString(" " + strings.Join(opts, ","))
		}
		b.WriteString(" " + sign.OpenSSHPublicKey(k.Public) + "\n")
	}
	return []byte(b.String()), nil
}

func badPrincipalRune(r rune) bool { return unicode.IsControl(r) || r == unicode.ReplacementChar }
