// Package cachedir names rye's folder in the user's cache directory, where
// the search index, the verdict cache and the executor's run folders live.
// One helper, so that every cache moves together when XDG_CACHE_HOME does.
package cachedir

import (
	"os"
	"path/filepath"
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
