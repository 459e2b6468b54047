package sign

import (
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
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

// KeyError is a key that cannot be used, with what to do about it.
type KeyError struct {
	Path string
	Msg  string
	Fix  string
}

func (e *KeyError) Error() string {
	s := e.Path + ": " + e.Msg
	if e.Fix != "" {
		s += " (" + e.Fix + ")"
	}
	return s
}

// LoadPrivateKey reads a private key file. Like ssh, it refuses a file that
// group or others can read. passphrase is asked only for an encrypted key.
func LoadPrivateKey(path string, passphrase func() ([]byte, error)) (*Key, error) {
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &KeyError{Path: path, Msg: "no signing key here", Fix: "create one with 'rye keys generate', or point RYE_SIGNING_KEY at yours"}
	}
	if err != nil {
		return nil, &KeyError{Path: path, Msg: err.Error()}
	}
	if runtime.GOOS != "windows" && info.Mode().Perm()&0o077 != 0 {
		return nil, &KeyError{Path: path, Msg: fmt.Sprintf("private key is readable by others (mode %04o)", info.Mode().Perm()), Fix: "run: chmod 600 " + path}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &KeyError{Path: path, Msg: err.Error()}
	}
	priv, err := ParsePrivateKey(data, passphrase)
	if err != nil {
		return nil, &KeyError{Path: path, Msg: err.Error()}
	}
	return NewKey(priv), nil
}

// LoadPublicKey reads a public key PEM file.
func LoadPublicKey(path string) (ed25519.PublicKey, error) {
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

// GenerateKeyFiles creates a new key pair at paths: the private key with
// mode 0600 (encrypted when passphrase is not nil) and the public key with
// mode 0644, in a folder of mode 0700. It never overwrites an existing key
// unless force.
func GenerateKeyFiles(paths KeyPaths, passphrase []byte, force bool) (*Key, error) {
	if !force {
		for _, p := range []string{paths.Private, paths.Public} {
			if _, err := os.Lstat(p); err == nil {
				return nil, &KeyError{Path: p, Msg: "a key already exists here", Fix: "use --force to replace it; signatures made with the old key will no longer be yours"}
			}
		}
	}
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	key := NewKey(priv)
	privPEM, err := MarshalPrivateKey(priv, passphrase)
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
	if err := writeNew(paths.Private, privPEM, 0o600); err != nil {
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
