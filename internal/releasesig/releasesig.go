// Package releasesig checks the files of a rye release: the checksums
// file, its SSH signature (internal/sshsig, namespace "rye-release"), and
// each downloaded file against its checksum.
//
// The keys that may sign a release are the ones pinned in this repository
// (allowed_signers, beside this file, compiled into rye), never a key that
// comes with the release: a release that could name its own key would
// prove nothing. So a rye checks the next one with the keys of the source
// it was built from, and `ssh-keygen -Y verify -f allowed_signers` checks
// the same signature with the same file, trusting nothing downloaded.
//
// The pinned file is read strictly, so that the two verifiers cannot
// disagree on what it trusts: every key line names the principal
// rye-release (what ssh-keygen -Y verify -I is given), limits its key to
// the rye-release namespace (namespaces="rye-release") and carries no
// other option, and only Ed25519 keys are accepted.
package releasesig

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/crypto/ssh"

	"github.com/ryekit/rye/internal/sshsig"
)

// namespace is the SSHSIG namespace of release signatures.
const namespace = "rye-release"

// Principal is the principals field of every release key line: the
// identity ssh-keygen -Y verify -I checks.
const Principal = "rye-release"

// PinnedFile is where the pinned keys live in the repository, for
// messages and for the install script, which reads the same file.
const PinnedFile = "internal/releasesig/allowed_signers"

// maxChecksums bounds the checksums file: a release lists a few dozen
// files, about 100 bytes each.
const maxChecksums = 1 << 20

//go:embed allowed_signers
var pinned []byte

// signer is a key that may sign releases.
type signer struct {
	Principal string
	Key       ed25519.PublicKey
	Line      int // in the allowed_signers file
}

// ErrNoKey is the error of a signers file without a key line.
var ErrNoKey = errors.New("no release key: the file has no key line")

// Pinned returns the keys compiled into this rye (PinnedFile of the source
// it was built from).
func Pinned() ([]signer, error) {
	s, err := parseSigners(pinned)
	if err != nil {
		return nil, fmt.Errorf("%s (compiled into this rye): %w", PinnedFile, err)
	}
	return s, nil
}

// ReadSigners reads the allowed_signers file at path (rye version verify
// --signers FILE) with parseSigners; an error it finds in the file names
// the file.
func ReadSigners(path string) ([]signer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s, err := parseSigners(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// parseSigners reads an allowed_signers file of release keys: one key per
// line, as principals, options, key type, base64 key and an optional
// comment; blank lines and # comments are skipped. A line that ssh-keygen
// would read differently from rye (any option other than namespaces, a
// namespaces option without rye-release, no namespaces option at all, a key
// that is not Ed25519) is an error that names the line; a file without a
// key is ErrNoKey.
func parseSigners(data []byte) ([]signer, error) {
	var out []signer
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		s, err := parseSigner(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", i+1, err)
		}
		s.Line = i + 1
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, ErrNoKey
	}
	return out, nil
}

const signerForm = `write principals namespaces="rye-release" ssh-ed25519 AAAA... (a line of an OpenSSH allowed_signers file)`

func parseSigner(line string) (signer, error) {
	i := strings.IndexFunc(line, unicode.IsSpace)
	if i <= 0 || strings.HasPrefix(line, `"`) {
		return signer{}, errors.New("not a key line: " + signerForm)
	}
	principal := line[:i]
	if strings.HasPrefix(principal, "ssh-") || strings.HasPrefix(principal, "ecdsa-") || strings.HasPrefix(principal, "sk-") {
		return signer{}, errors.New("not a key line (no principals before the key): " + signerForm)
	}
	// ssh-keygen -Y verify is told -I rye-release by every script: a
	// line for another principal would verify in rye and not there.
	if principal != Principal {
		return signer{}, fmt.Errorf("principals %.40q: every release key line starts with %s (tell keys apart in the comment at the end)", principal, Principal)
	}
	// The rest is an authorized_keys line: options, type, key, comment.
	key, _, options, rest, err := ssh.ParseAuthorizedKey([]byte(strings.TrimSpace(line[i:])))
	if err != nil {
		return signer{}, fmt.Errorf("%v: %s", err, signerForm)
	}
	if len(rest) != 0 {
		return signer{}, errors.New("more than one key on the line")
	}
	if key.Type() != ssh.KeyAlgoED25519 {
		return signer{}, fmt.Errorf("a %s key: release keys are Ed25519 (ssh-keygen -t ed25519)", key.Type())
	}
	ck, ok := key.(ssh.CryptoPublicKey)
	if !ok {
		return signer{}, errors.New("cannot read the key")
	}
	pub, ok := ck.CryptoPublicKey().(ed25519.PublicKey)
	if !ok {
		return signer{}, errors.New("cannot read the key")
	}
	limited := false
	for _, o := range options {
		name, value, _ := strings.Cut(o, "=")
		if !strings.EqualFold(name, "namespaces") {
			return signer{}, fmt.Errorf("option %.40q: a release key line has namespaces=%q and no other option", o, namespace)
		}
		value = strings.Trim(value, `"`)
		if !slices.Contains(strings.Split(value, ","), namespace) {
			return signer{}, fmt.Errorf("namespaces=%q does not include %s: the key could not sign releases", value, namespace)
		}
		limited = true
	}
	if !limited {
		return signer{}, fmt.Errorf("the key is not limited to release signatures: add namespaces=%q before the key type", namespace)
	}
	return signer{Principal: principal, Key: pub}, nil
}

// verifySignature checks that armored is a signature of checksums, for
// Namespace, by one of signers, and returns that signer.
func verifySignature(checksums, armored []byte, signers []signer) (signer, error) {
	sig, err := sshsig.Parse(armored)
	if err != nil {
		return signer{}, err
	}
	if sig.Namespace != namespace {
		return signer{}, fmt.Errorf("the signature is for namespace %q, not %s: it does not sign a rye release", sig.Namespace, namespace)
	}
	for _, s := range signers {
		if bytes.Equal(s.Key, sig.PublicKey) {
			if err := sig.Verify(s.Key, namespace, bytes.NewReader(checksums)); err != nil {
				return signer{}, err
			}
			return s, nil
		}
	}
	return signer{}, fmt.Errorf("%w: it was made by key %s, which is not a release key", sshsig.ErrBadSignature, sshsig.Fingerprint(sig.PublicKey))
}

// checksums is a parsed checksums file: the SHA-256 of each file of a
// release, by file name (what sha256sum writes and sha256sum -c reads).
type checksums struct {
	Names []string // in file order
	sums  map[string]string
}

// parseChecksums reads a checksums file: lines of 64 lowercase hex
// digits, two spaces and a file name (no folder, no control character),
// each name once. Anything else is an error that names the line.
func parseChecksums(data []byte) (*checksums, error) {
	if len(data) > maxChecksums {
		return nil, fmt.Errorf("%d bytes: a checksums file has at most %d", len(data), maxChecksums)
	}
	if len(data) == 0 || data[len(data)-1] != '\n' {
		return nil, errors.New("empty, or the last line does not end with a newline")
	}
	c := &checksums{sums: map[string]string{}}
	for i, line := range strings.Split(string(data[:len(data)-1]), "\n") {
		sum, name, ok := strings.Cut(line, "  ")
		if !ok || len(sum) != sha256.Size*2 || strings.Trim(sum, "0123456789abcdef") != "" {
			return nil, fmt.Errorf("line %d: not <64 lowercase hex digits><two spaces><file name>", i+1)
		}
		if err := checkName(name); err != nil {
			return nil, fmt.Errorf("line %d: %v", i+1, err)
		}
		if _, dup := c.sums[name]; dup {
			return nil, fmt.Errorf("line %d: %s is listed twice", i+1, name)
		}
		c.sums[name] = sum
		c.Names = append(c.Names, name)
	}
	return c, nil
}

func checkName(name string) error {
	switch {
	case name == "" || name == "." || name == "..":
		return fmt.Errorf("file name %q", name)
	case strings.ContainsAny(name, `/\`):
		return fmt.Errorf("file name %q has a folder: a release lists plain file names", name)
	case !utf8.ValidString(name) || strings.IndexFunc(name, unicode.IsControl) >= 0:
		return fmt.Errorf("file name %q has a control character or invalid UTF-8", name)
	}
	return nil
}

// errNotListed is the error of a file the checksums file does not list.
var errNotListed = errors.New("not listed in the checksums file")

// Check hashes r and compares it with the checksum of name; it returns
// the file's SHA-256 in hex.
func (c *checksums) Check(name string, r io.Reader) (string, error) {
	want, ok := c.sums[name]
	if !ok {
		return "", fmt.Errorf("%s: %w", name, errNotListed)
	}
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		return "", err
	}
	got := hex.EncodeToString(h.Sum(nil))
	if got != want {
		return got, fmt.Errorf("%s: SHA-256 %s, but the checksums file says %s: the file was changed or damaged", name, got, want)
	}
	return got, nil
}
