package lint

import "golang.org/x/tools/go/analysis"

// secrets reports credentials under .ai/.
var secrets = &analysis.Analyzer{
	Name: "secrets",
	Doc: `report private keys and credentials anywhere under .ai/

A credential in a repository is compromised once pushed: revoke it, remove
it, and have tools read it from the environment. Any PEM private key block
(PKCS#8, encrypted, RSA, EC, OpenSSH, sigstore, cosign; signing keys live in
RYE_SIGNING_KEY or the user space's .ai/keys/), and the prefixed tokens of
AWS (access key ids, and secret keys by their name), GitHub (ghp_, gho_,
ghu_, ghs_, ghr_ with their checksum, github_pat_), GitLab, Slack (tokens
and webhooks), Stripe live keys, OpenAI, Anthropic, Google API keys, npm
(with its checksum), PyPI, Hugging Face, and JSON Web Tokens (whose header
decodes to JSON naming an algorithm). Documented examples
(AKIAIOSFODNN7EXAMPLE, the jwt.io token) and placeholders are not findings.
Items and every other file under .ai/ are read.` + securityNote,
	URL:      docURL("secrets"),
	Requires: []*analysis.Analyzer{input, contentScan},
	Run: func(pass *analysis.Pass) (any, error) {
		reportContent(pass)
		return nil, nil
	},
}
