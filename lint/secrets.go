package lint

import (
	"bytes"
	"fmt"
	"regexp"

	"golang.org/x/tools/go/analysis"
)

// Secrets reports private key material under .ai/.
var Secrets = &analysis.Analyzer{
	Name: "secrets",
	Doc: `report private key material anywhere under .ai/

Signing keys live outside projects (RYE_SIGNING_KEY or the user space's
.ai/keys/). A private key in a repository is compromised: rotate it, remove
it from git history, and trust the new public key instead. Any PEM private
key block is reported (PKCS#8, encrypted, RSA, EC, OpenSSH, sigstore,
cosign), in items and in every other file under .ai/.`,
	URL:      DocURL("secrets"),
	Requires: []*analysis.Analyzer{Input},
	Run:      runSecrets,
}

var privateKeyRE = regexp.MustCompile(`-----BEGIN ((?:[A-Z0-9]+ )*PRIVATE KEY)-----`)

func runSecrets(pass *analysis.Pass) (any, error) {
	e, r := env(pass), reporter{pass}
	for _, group := range [][]*File{e.Files, e.Others} {
		for _, f := range group {
			if f.Oddity != nil && f.Oddity.Symlink {
				continue
			}
			for _, m := range privateKeyRE.FindAllSubmatchIndex(f.Src, -1) {
				line := 1 + bytes.Count(f.Src[:m[0]], []byte("\n"))
				r.at(sevError, "private-key", f.tok.Pos(m[0]), f.tok.Pos(m[1]), fmt.Sprintf("%s block on line %d: private key material must never be under .ai/; remove it, rotate the key and trust its replacement", f.Src[m[2]:m[3]], line))
			}
		}
	}
	return nil, nil
}
