package sign

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
)

// KeyPaths are where a signing key lives: the private key and the public
// key beside it (the reference's layout: <user space>/.ai/keys/).
type KeyPaths struct {
	Private string
	Public  string
}

// DefaultKeyPaths returns the key location of spec 2.4: RYE_SIGNING_KEY
// (the private key's path) when set, else <userRoot>/.ai/keys/private_key.pem.
// The public key is public_key.pem in the same folder.
func DefaultKeyPaths(signingKeyEnv, userRoot string) (KeyPaths, error) {
	priv := signingKeyEnv
	if priv == "" {
		if userRoot == "" {
			return KeyPaths{}, errors.New("no key location: set RYE_SIGNING_KEY, USER_SPACE or HOME")
		}
		priv = filepath.Join(userRoot, ".ai", "keys", "private_key.pem")
	}
	return KeyPaths{Private: priv, Public: filepath.Join(filepath.Dir(priv), "public_key.pem")}, nil
}

// FindKey says where the signing key is and how it opens (spec 2.4):
// file (the caller's choice, --key), else RYE_SIGNING_KEY, else
// <userRoot>/.ai/keys/private_key.pem, with public_key.pem beside it. An
// encrypted key's passphrase is RYE_KEY_PASSWORD when set (one try: it
// would only be wrong again), else what ask returns (three tries, as ssh
// gives; nil: no passphrase can be had); an OpenSSH public key file signs
// through ssh-agent at SSH_AUTH_SOCK. rye sign, rye keys and rye mcp
// --allow-sign all find the key here.
func FindKey(file, userRoot string, getenv func(string) string, ask func(path string, attempt int) ([]byte, error)) (KeyPaths, KeySource, error) {
	if file == "" {
		file = getenv("RYE_SIGNING_KEY")
	}
	paths, err := DefaultKeyPaths(file, userRoot)
	if err != nil {
		return KeyPaths{}, KeySource{}, err
	}
	src := KeySource{Path: paths.Private, Passphrase: ask, Tries: 3,
		Agent: func() (agent.Agent, error) { return dialAgent(getenv("SSH_AUTH_SOCK")) }}
	if p := getenv("RYE_KEY_PASSWORD"); p != "" {
		src.Passphrase = func(string, int) ([]byte, error) { return []byte(p), nil }
		src.Tries = 1
	}
	return paths, src, nil
}

// LoadKeyNoPrompt loads the signing key FindKey names (file, else
// RYE_SIGNING_KEY, else the user space's), never asking for a passphrase:
// an encrypted key opens with passphrase alone (the caller's
// RYE_KEY_PASSWORD), and without one it is a *KeyError that is
// Unavailable. rye mcp --allow-sign loads its key so: the server's stdin
// is the protocol, and a prompt on the user's terminal would land in the
// middle of the agent's screen.
func LoadKeyNoPrompt(file, userRoot string, getenv func(string) string, passphrase string) (*Key, error) {
	env := func(k string) string {
		if k == "RYE_KEY_PASSWORD" {
			return passphrase
		}
		return getenv(k)
	}
	needed := false
	_, src, err := FindKey(file, userRoot, env, func(string, int) ([]byte, error) {
		needed = true
		return nil, ErrPassphraseNeeded
	})
	if err != nil {
		return nil, err
	}
	key, err := LoadSigningKey(src)
	if needed {
		return nil, &KeyError{Path: src.Path, Msg: "the key is encrypted, and no passphrase was given", Unavailable: true}
	}
	return key, err
}

// KeyError is a key that cannot be used, with what to do about it.
type KeyError struct {
	Path string
	Msg  string
	Fix  string
	// Exists is a key file that is there already (GenerateKeyFiles):
	// the caller says how to replace it.
	Exists bool
	// Unavailable is a key whose public half cannot be read without
	// unlocking it, or that is not there (SigningPublicKey): a signer
	// that needs it loads the key, and only then.
	Unavailable bool
}

func (e *KeyError) Error() string {
	s := e.Path + ": " + e.Msg
	if e.Fix != "" {
		s += " (" + e.Fix + ")"
	}
	return s
}

// KeySource names a signing key and says how to unlock it.
type KeySource struct {
	// Path is the key file: a private key in any of acceptedForms, or an
	// OpenSSH public key (.pub) whose private half ssh-agent holds.
	Path string
	// Passphrase returns the passphrase of the encrypted key file path;
	// attempt counts from 1 (a prompt says "try again" after the first).
	// It may return ErrPassphraseNeeded. nil: no passphrase can be had.
	Passphrase func(path string, attempt int) ([]byte, error)
	// Tries is how many passphrases are asked for while they are wrong
	// (0 means 1): 3 for a person at a prompt, as ssh does, 1 for a
	// passphrase from the environment, which would only be wrong again.
	Tries int
	// Agent connects to ssh-agent, for a public key file; nil: none.
	Agent func() (agent.Agent, error)
}

// maxKeyFile bounds what is read as a key file: keys are a few hundred
// bytes, and a path that names something else must not be read whole.
const maxKeyFile = 64 << 10

// readKeyFile reads a key file, with errors that say what to do.
func readKeyFile(path string) ([]byte, fs.FileInfo, error) {
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, &KeyError{Path: path, Msg: "no signing key here", Fix: "create one with 'rye keys generate', or point RYE_SIGNING_KEY at yours"}
	}
	if err != nil {
		return nil, nil, &KeyError{Path: path, Msg: err.Error()}
	}
	if !info.Mode().IsRegular() {
		return nil, nil, &KeyError{Path: path, Msg: "not a regular file", Fix: acceptedForms}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, &KeyError{Path: path, Msg: err.Error()}
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxKeyFile+1))
	if err != nil {
		return nil, nil, &KeyError{Path: path, Msg: err.Error()}
	}
	if len(data) > maxKeyFile {
		return nil, nil, &KeyError{Path: path, Msg: "larger than 64 KiB: not a key file", Fix: acceptedForms}
	}
	return data, info, nil
}

// checkPrivateMode refuses, like ssh, a private key file that group or
// others can read.
func checkPrivateMode(path string, info fs.FileInfo) error {
	if runtime.GOOS != "windows" && info.Mode().Perm()&0o077 != 0 {
		return &KeyError{Path: path, Msg: fmt.Sprintf("private key is readable by others (mode %04o)", info.Mode().Perm()), Fix: "run: chmod 600 " + path}
	}
	return nil
}

// privateKeyPEMTypes are the PEM blocks of the private keys rye signs with.
var privateKeyPEMTypes = map[string]bool{privateKeyPEM: true, encryptedPrivateKeyPEM: true, encryptedPKCS8PEM: true, openSSHPrivateKeyPEM: true}

// LoadSigningKey returns the key src names, ready to sign: a private key
// file of any of acceptedForms (unlocked with src.Passphrase when it is
// encrypted), or an OpenSSH public key file whose private half ssh-agent
// holds, the way git's user.signingKey works for SSH signing. Every error
// is a *KeyError that names the file.
func LoadSigningKey(src KeySource) (*Key, error) {
	data, info, err := readKeyFile(src.Path)
	if err != nil {
		return nil, err
	}
	if IsOpenSSHPublicKey(data) {
		return agentKeyFor(src, data)
	}
	if block, _ := pem.Decode(data); block == nil || !privateKeyPEMTypes[block.Type] {
		// Not a key rye signs with: say what it is (a public key, another
		// format) rather than how to protect it.
		_, err := parsePrivateKey(data, nil)
		return nil, &KeyError{Path: src.Path, Msg: err.Error()}
	}
	if err := checkPrivateMode(src.Path, info); err != nil {
		return nil, err
	}
	tries := max(src.Tries, 1)
	for attempt := 1; ; attempt++ {
		var ask func() ([]byte, error)
		if src.Passphrase != nil {
			ask = func() ([]byte, error) { return src.Passphrase(src.Path, attempt) }
		}
		priv, err := parsePrivateKey(data, ask)
		switch {
		case err == nil:
			return NewKey(priv), nil
		case errors.Is(err, errWrongPassphrase) && attempt < tries:
			continue
		case errors.Is(err, errWrongPassphrase) && tries > 1:
			return nil, &KeyError{Path: src.Path, Msg: fmt.Sprintf("%v (%d tries)", err, tries)}
		}
		return nil, &KeyError{Path: src.Path, Msg: err.Error()}
	}
}

// agentKeyFor signs through ssh-agent with the key of the public key file
// data.
func agentKeyFor(src KeySource, data []byte) (*Key, error) {
	pub, _, err := parsePublicKey(data)
	if err != nil {
		return nil, &KeyError{Path: src.Path, Msg: err.Error()}
	}
	const why = "is an OpenSSH public key, so rye signs through ssh-agent, which holds the private half; "
	if src.Agent == nil {
		return nil, &KeyError{Path: src.Path, Msg: why + "but no agent was given"}
	}
	ag, err := src.Agent()
	if err != nil {
		return nil, &KeyError{Path: src.Path, Msg: why + "but " + err.Error()}
	}
	key, err := agentKey(ag, pub)
	if err != nil {
		return nil, &KeyError{Path: src.Path, Msg: err.Error()}
	}
	return key, nil
}

// PublicKeyOf returns the public half of the signing key src names and the
// file it was read from, unlocking the key only when nothing else tells:
// an OpenSSH public key file is the key; an OpenSSH private key carries its
// public half in clear; for a PEM private key, besidePEM (public_key.pem
// beside it) is used when it exists, after checking it against the private
// key when that can be read without a passphrase; otherwise the private key
// is loaded (asking for its passphrase).
func PublicKeyOf(src KeySource, besidePEM string) (ed25519.PublicKey, string, error) {
	data, info, err := readKeyFile(src.Path)
	if err != nil {
		return nil, "", err
	}
	if IsOpenSSHPublicKey(data) {
		pub, _, err := parsePublicKey(data)
		if err != nil {
			return nil, "", &KeyError{Path: src.Path, Msg: err.Error()}
		}
		return pub, src.Path, nil
	}
	if block, _ := pem.Decode(data); block != nil && block.Type == openSSHPrivateKeyPEM {
		if err := checkPrivateMode(src.Path, info); err != nil {
			return nil, "", err
		}
		pub, err := openSSHPublicHalf(data)
		if err != nil {
			return nil, "", &KeyError{Path: src.Path, Msg: err.Error()}
		}
		return pub, src.Path, nil
	}
	if pub, err := loadPublicKey(besidePEM); err == nil {
		locked := src
		locked.Passphrase, locked.Tries = nil, 1
		if priv, err := LoadSigningKey(locked); err == nil && !priv.Public.Equal(pub) {
			return nil, "", &KeyError{Path: besidePEM, Msg: "does not belong to " + src.Path, Fix: "restore the right public key, or delete it so that rye derives it from the private key"}
		}
		return pub, besidePEM, nil
	}
	key, err := LoadSigningKey(src)
	if err != nil {
		return nil, "", err
	}
	return key.Public, src.Path, nil
}

// SigningPublicKey is the public half of the key src names, for a key that
// is to sign, read without unlocking it: no passphrase is asked for (src's
// own Passphrase, such as RYE_KEY_PASSWORD, is still used). The file must
// be one rye signs with: a private key of acceptedForms that only its
// owner can read, or an OpenSSH public key whose private half ssh-agent
// holds; anything else is an error, as LoadSigningKey would give. A key
// that is not there, or an encrypted PEM key without public_key.pem
// beside it (besidePEM), is a *KeyError that is Unavailable: rye sign then
// loads the key only if something needs signing.
func SigningPublicKey(src KeySource, besidePEM string) (ed25519.PublicKey, error) {
	data, info, err := readKeyFile(src.Path)
	if err != nil {
		var ke *KeyError
		if errors.As(err, &ke) && !fileExists(src.Path) {
			ke.Unavailable = true
		}
		return nil, err
	}
	if !IsOpenSSHPublicKey(data) {
		if block, _ := pem.Decode(data); block == nil || !privateKeyPEMTypes[block.Type] {
			_, err := parsePrivateKey(data, nil)
			return nil, &KeyError{Path: src.Path, Msg: err.Error()}
		}
		if err := checkPrivateMode(src.Path, info); err != nil {
			return nil, err
		}
	}
	needed := false
	locked, ask := src, src.Passphrase
	locked.Passphrase = func(path string, attempt int) ([]byte, error) {
		if ask != nil {
			return ask(path, attempt)
		}
		needed = true
		return nil, ErrPassphraseNeeded
	}
	pub, _, err := PublicKeyOf(locked, besidePEM)
	if needed && err != nil {
		return nil, &KeyError{Path: src.Path, Msg: "the key is encrypted and its public half cannot be read without the passphrase", Fix: "write it beside the key: rye keys export > " + besidePEM, Unavailable: true}
	}
	return pub, err
}

func fileExists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// openSSHPublicHalf reads the public key that an OpenSSH private key file
// stores in clear, without a passphrase.
func openSSHPublicHalf(data []byte) (ed25519.PublicKey, error) {
	raw, err := ssh.ParseRawPrivateKey(data)
	var missing *ssh.PassphraseMissingError
	if errors.As(err, &missing) && missing.PublicKey != nil {
		return sshEd25519(missing.PublicKey)
	}
	if err != nil {
		return nil, fmt.Errorf("not an OpenSSH private key rye can read: %s", strings.TrimPrefix(err.Error(), "ssh: "))
	}
	if k, ok := raw.(*ed25519.PrivateKey); ok {
		return k.Public().(ed25519.PublicKey), nil
	}
	_, err = parsePrivateKey(data, nil)
	return nil, err
}

// loadPublicKey reads a public key PEM file.
func loadPublicKey(path string) (ed25519.PublicKey, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &KeyError{Path: path, Msg: err.Error()}
	}
	pub, err := ParsePublicKeyPEM(data)
	if err != nil {
		return nil, &KeyError{Path: path, Msg: err.Error()}
	}
	return pub, nil
}

// keyFileFormat is how GenerateKeyFiles writes the private key.
type keyFileFormat int

const (
	// keyFilePEM is PKCS#8 (the reference's format), or sigstore's
	// encrypted PEM with a passphrase.
	keyFilePEM keyFileFormat = iota
	// KeyFileOpenSSH is ssh-keygen's format, which ssh-add and git read:
	// one key for SSH, git commit signing and rye.
	KeyFileOpenSSH
)

// ParseKeyFileFormat reads a format name: pem or openssh.
func ParseKeyFileFormat(s string) (keyFileFormat, error) {
	switch s {
	case "pem", "":
		return keyFilePEM, nil
	case "openssh":
		return KeyFileOpenSSH, nil
	}
	return 0, fmt.Errorf("key format %q: use pem or openssh", s)
}

// GenerateKeyFiles creates a new key pair at paths: the private key with
// mode 0600 in format and the public key PEM with mode 0644, in a folder of
// mode 0700. The private key is encrypted with the passphrase that
// passphrase returns, asked only once the paths are known to be free; nil
// writes it unencrypted. It never overwrites an existing key unless force,
// and never writes a private key to a .pub path.
func GenerateKeyFiles(paths KeyPaths, format keyFileFormat, passphrase func() ([]byte, error), force bool) (*Key, error) {
	if strings.HasSuffix(paths.Private, ".pub") {
		return nil, &KeyError{Path: paths.Private, Msg: "a .pub file holds a public key; rye will not write a private key there", Fix: "point RYE_SIGNING_KEY at where the private key should go"}
	}
	if !force {
		for _, p := range []string{paths.Private, paths.Public} {
			if _, err := os.Lstat(p); err == nil {
				return nil, &KeyError{Path: p, Msg: "a key already exists here", Exists: true}
			}
		}
	}
	var pass []byte
	if passphrase != nil {
		p, err := passphrase()
		if err != nil {
			return nil, err
		}
		pass = p
	}
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	key := NewKey(priv)
	var privData []byte
	if format == KeyFileOpenSSH {
		privData, err = marshalOpenSSHPrivateKey(priv, "rye:"+key.Fingerprint, pass)
	} else {
		privData, err = marshalPrivateKey(priv, pass)
	}
	if err != nil {
		return nil, err
	}
	pubPEM, err := CanonicalPublicPEM(key.Public)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(paths.Private), 0o700); err != nil {
		return nil, err
	}
	if err := writeNew(paths.Private, privData, 0o600); err != nil {
		return nil, err
	}
	if err := writeNew(paths.Public, []byte(pubPEM), 0o644); err != nil {
		return nil, err
	}
	return key, nil
}

// writeNew writes a file with exactly mode perm (not widened by the umask,
// and a replaced file does not keep a looser old mode).
func writeNew(path string, data []byte, perm fs.FileMode) error {
	tmp := path + ".new"
	os.Remove(tmp)
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	if err := f.Chmod(perm); werr == nil {
		werr = err
	}
	if err := f.Sync(); werr == nil {
		werr = err
	}
	if err := f.Close(); werr == nil {
		werr = err
	}
	if werr != nil {
		os.Remove(tmp)
		return werr
	}
	return os.Rename(tmp, path)
}
