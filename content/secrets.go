package content

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"strings"
)

// The secrets rules: credentials in a repository are compromised the day
// they are pushed. Only formats that announce themselves are looked for:
// PEM private keys and the prefixed tokens of the big providers, with the
// format's checksum or structure checked where it has one (GitHub and npm
// tokens carry a CRC32, a JWT's header is JSON naming its algorithm), so
// that a token-shaped string in documentation is not a finding. Generic
// "high entropy" strings are not looked for: they are mostly hashes, ids
// and signatures. Documented example keys (AKIAIOSFODNN7EXAMPLE, the
// jwt.io token) and placeholders (ghp_xxxx…) are not findings either.

// secretRule is one credential format.
type secretRule struct {
	id     string // rule name: "secrets/<id>"
	what   string // "GitHub token"
	prefix []string
	// pattern matches the credential at a prefix (anchored there); its
	// first group, when it has one, is the credential.
	pattern string
	// valid checks what the pattern matched (a checksum, a structure).
	valid func(tok string) bool
}

var secretRules = []secretRule{
	{id: "private-key", what: "private key", prefix: []string{"-----BEGIN "}, pattern: `-----BEGIN ((?:[A-Z0-9]+ )*PRIVATE KEY)-----`},
	{id: "aws-access-key", what: "AWS access key id", prefix: []string{"AKIA", "ASIA", "ABIA", "ACCA"}, pattern: `(?:AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}`},
	{id: "github-token", what: "GitHub token", prefix: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}, pattern: `gh[pousr]_[A-Za-z0-9]{36}`, valid: base62CRC},
	{id: "github-token", what: "GitHub fine-grained token", prefix: []string{"github_pat_"}, pattern: `github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}`},
	{id: "gitlab-token", what: "GitLab token", prefix: []string{"glpat-"}, pattern: `glpat-[A-Za-z0-9_-]{20,}`},
	{id: "slack-token", what: "Slack token", prefix: []string{"xoxb-", "xoxa-", "xoxp-", "xoxr-", "xoxs-", "xoxo-"}, pattern: `xox[abposr]-[0-9]+-[A-Za-z0-9-]{8,}`},
	{id: "slack-webhook", what: "Slack webhook URL", prefix: []string{"hooks.slack.com/"}, pattern: `hooks\.slack\.com/(?:services|workflows|triggers)/T[A-Z0-9]{6,}/[A-Z0-9]{6,}/[A-Za-z0-9]{20,}`},
	{id: "stripe-key", what: "Stripe live key", prefix: []string{"sk_live_", "rk_live_"}, pattern: `[sr]k_live_[A-Za-z0-9]{20,}`},
	{id: "anthropic-key", what: "Anthropic API key", prefix: []string{"sk-ant-"}, pattern: `sk-ant-(?:api|admin)[0-9]{2}-[A-Za-z0-9_-]{80,}`},
	{id: "openai-key", what: "OpenAI API key", prefix: []string{"sk-"}, pattern: `sk-(?:(?:proj|svcacct|admin)-)?[A-Za-z0-9_-]{20,}T3BlbkFJ[A-Za-z0-9_-]{20,}`},
	{id: "google-api-key", what: "Google API key", prefix: []string{"AIza"}, pattern: `AIza[0-9A-Za-z_-]{35}`},
	{id: "npm-token", what: "npm token", prefix: []string{"npm_"}, pattern: `npm_[A-Za-z0-9]{36}`, valid: base62CRC},
	{id: "pypi-token", what: "PyPI token", prefix: []string{"pypi-AgEIcHlwaS5vcmc"}, pattern: `pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}`},
	{id: "huggingface-token", what: "Hugging Face token", prefix: []string{"hf_"}, pattern: `hf_[A-Za-z]{34}`},
	{id: "jwt", what: "JSON Web Token", prefix: []string{"eyJ"}, pattern: `eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}`, valid: jwtShaped},
}

// awsSecretPattern finds an AWS secret access key by the name it is given.
const awsSecretPattern = `(?i)(?:aws_?secret_?(?:access_?)?key|secret_?access_?key)["']?\s*[:=]\s*["']?([A-Za-z0-9/+]{40})`

// secrets runs the secrets rules over the whole file (signature line
// excepted).
func (p *parsed) secrets() []Finding {
	var out []Finding
	src := p.src
	c := patterns()
	try := func(k, start int) {
		rule := secretRules[k]
		if start >= p.sigStart && start < p.sigEnd {
			return
		}
		m := c.secrets[k].FindSubmatchIndex(src[start:min(len(src), start+512)])
		if m == nil {
			return
		}
		end := start + m[1]
		if rule.id != "private-key" && end < len(src) && wordByte(src[end]) && src[end] != '-' {
			return // part of a longer word: not this format
		}
		tok := string(src[start:end])
		if placeholder(tok) || rule.valid != nil && !rule.valid(tok) {
			return
		}
		out = append(out, p.secretFinding(rule, start, end, tok, m))
	}
	// The prefixes are found with every other needle of the file, in one
	// pass (hits); a rule's pattern is tried where its prefix, in its
	// exact case, starts a word (or anywhere, for a PEM header and a Slack
	// webhook's host).
	secret := false
	for _, h := range p.hits() {
		switch h.needle.kind {
		case needleAWS:
			secret = true
		case needleSecret:
			k := h.needle.arg
			rule := secretRules[k]
			start := h.start
			if rule.id == "slack-webhook" {
				start = h.start // hooks.slack.com/ is inside a URL
			} else if rule.id != "private-key" && start > 0 && wordByte(src[start-1]) {
				continue
			}
			for _, prefix := range rule.prefix {
				if bytes.HasPrefix(src[start:], []byte(prefix)) {
					try(k, start)
					break
				}
			}
		}
	}
	if secret {
		for _, m := range c.awsSecret.FindAllSubmatchIndex(src, -1) {
			tok := string(src[m[2]:m[3]])
			if m[3] < len(src) && (wordByte(src[m[3]]) || src[m[3]] == '/' || src[m[3]] == '+') || placeholder(tok) || !mixedCase(tok) {
				continue
			}
			out = append(out, p.secretFinding(secretRule{id: "aws-secret-key", what: "AWS secret access key"}, m[2], m[3], tok, nil))
		}
	}
	return out
}

func (p *parsed) secretFinding(rule secretRule, start, end int, tok string, m []int) Finding {
	msg := ""
	if rule.id == "private-key" {
		line, _ := p.position(start)
		msg = fmt.Sprintf("%s block on line %d: private key material must never be under .ai/; remove it, rotate the key and trust its replacement", p.src[start+m[2]:start+m[3]], line)
	} else {
		msg = fmt.Sprintf("%s %s: a credential in a repository is compromised once pushed; revoke it, remove it, and have the tool read it from the environment at run time", rule.what, redact(tok))
	}
	line := p.lineAt(start)
	return Finding{Rule: "secrets/" + rule.id, Severity: Error, Offset: start, End: end, Message: msg,
		Shown: reveal(strings.Replace(line, tok, redact(tok), 1))}
}

// redact shows the start of a credential: enough to find it, not to use it.
func redact(tok string) string {
	n := min(len(tok)/3, 10)
	if i := strings.IndexAny(tok, "_-"); i >= 0 && i < 16 {
		n = max(n, i+1)
	}
	return tok[:min(n, len(tok))] + "…"
}

func wordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c|0x20 && c|0x20 <= 'z'
}

// placeholder reports documented examples and placeholders: AWS's
// ...EXAMPLE keys, "xxxx", "your_token", long runs of one character, and
// the alphabet written out.
func placeholder(tok string) bool {
	low := strings.ToLower(tok)
	for _, s := range []string{"example", "xxxx", "your", "placeholder", "dummy", "redacted", "abcdefghij", "0123456789", "1234567890", "****", "...."} {
		if strings.Contains(low, s) {
			return true
		}
	}
	if tok == jwtIOExample {
		return true
	}
	run, longest := 1, 1
	for i := 1; i < len(tok); i++ {
		if tok[i] == tok[i-1] {
			run++
			longest = max(longest, run)
		} else {
			run = 1
		}
	}
	return longest >= 8
}

// jwtIOExample is the token jwt.io and countless tutorials show.
const jwtIOExample = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"

// mixedCase reports whether s has upper and lower case letters and digits
// or symbols: a 40-character AWS secret key does (it is base64).
func mixedCase(s string) bool {
	var up, low bool
	for i := 0; i < len(s); i++ {
		up = up || 'A' <= s[i] && s[i] <= 'Z'
		low = low || 'a' <= s[i] && s[i] <= 'z'
	}
	return up && low
}

// base62CRC checks the checksum of a GitHub or npm token: its last six
// characters are the CRC32 of the 30 before them (after the prefix), in
// base 62 (0-9A-Za-z).
func base62CRC(tok string) bool {
	_, body, ok := strings.Cut(tok, "_")
	if !ok || len(body) != 36 {
		return false
	}
	return Base62CRC32(body[:30]) == body[30:]
}

// Base62CRC32 is the six-character checksum GitHub and npm tokens end
// with: CRC32 (IEEE) of the random part, in base 62, zero-padded.
func Base62CRC32(s string) string {
	const digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	v := crc32.ChecksumIEEE([]byte(s))
	var b [6]byte
	for i := 5; i >= 0; i-- {
		b[i] = digits[v%62]
		v /= 62
	}
	return string(b[:])
}

// jwtShaped checks that a JWT's header and payload are base64url JSON
// objects and the header names its algorithm ("alg").
func jwtShaped(tok string) bool {
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		return false
	}
	var header, payload map[string]any
	for k, dst := range []*map[string]any{&header, &payload} {
		raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[k], "="))
		if err != nil || json.Unmarshal(raw, dst) != nil {
			return false
		}
	}
	_, ok := header["alg"]
	return ok
}
