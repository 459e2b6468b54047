// Package cachedir names rye's folder in the user's cache directory, where
// the search index, the verdict cache and the executor's run folders live.
// One helper, so that every cache moves together when XDG_CACHE_HOME does.
package cachedir

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// Dir is rye's folder in the user cache directory ($XDG_CACHE_HOME/rye,
// ~/Library/Caches/rye, %LocalAppData%\rye). It is not created here.
func Dir() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "rye"), nil
}

// secretSize is the length of the cache secret.
const secretSize = 32

// Secret returns this user's cache secret: 32 random bytes in a 0600 file
// of the user's configuration folder (created on first use). Caches whose
// entries decide something (the verdict cache) authenticate them with it,
// so that an entry written by anyone else (a restored CI cache, another
// step, another user) is ignored. It lives apart from the cache folder,
// so restoring that folder never restores the secret.
func Secret() ([]byte, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return nil, err
	}
	return secretAt(filepath.Join(dir, "rye", "cache.key"))
}

// Keyed is the cache folder with the secret its decisive entries are
// authenticated with: without either, a caller runs without its cache
// (it only saves time).
func Keyed() (dir string, secret []byte, err error) {
	if dir, err = Dir(); err != nil {
		return "", nil, err
	}
	if secret, err = Secret(); err != nil {
		return "", nil, err
	}
	return dir, secret, nil
}

func secretAt(p string) ([]byte, error) {
	for range 2 {
		data, err := readSecret(p)
		if !errors.Is(err, fs.ErrNotExist) {
			return data, err
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return nil, err
		}
		secret := make([]byte, secretSize)
		if _, err := rand.Read(secret); err != nil {
			return nil, err
		}
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue // made by a concurrent run: read theirs
		}
		if err != nil {
			return nil, err
		}
		_, werr := f.Write(secret)
		if err := errors.Join(werr, f.Sync(), f.Close()); err != nil {
			os.Remove(p)
			return nil, err
		}
		return secret, nil
	}
	return nil, fmt.Errorf("%s: cannot be created", p)
}

// readSecret reads the secret file, refusing one that others can read or
// that is not exactly secretSize bytes (a truncated write, a file put
// there by hand).
func readSecret(p string) ([]byte, error) {
	info, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", p)
	}
	if runtime.GOOS != "windows" && info.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("%s can be read by others (chmod 600 %s, or delete it to make a new one)", p, p)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	if len(data) != secretSize {
		return nil, fmt.Errorf("%s is not a cache secret (%d bytes, not %d): delete it to make a new one", p, len(data), secretSize)
	}
	return data, nil
}
