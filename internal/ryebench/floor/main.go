// Command floor is the floor of verification that ryebench compares rye
// with: every regular file below a folder read, hashed with SHA-256 and
// checked with one Ed25519 verification, on every CPU. It links nothing of
// rye, so that its time and memory are those of the work alone, without
// rye's start-up (a floor linked into a rye binary carries that too):
//
//	floor DIR
//
// ryebench builds it into its temporary folder and runs it as a process of
// its own, like every rye command it times.
package main

import (
	"crypto/ed25519"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: floor DIR")
		os.Exit(2)
	}
	var files []string
	err := filepath.WalkDir(os.Args[1], func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		fail(err)
	}
	pub, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		fail(err)
	}
	msg := []byte("rye floor")
	sig := ed25519.Sign(priv, msg)
	var next, bad atomic.Int64
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(files) {
					return
				}
				data, err := os.ReadFile(files[i])
				if err != nil {
					fail(err)
				}
				// The hash is used (compared), so that it is not optimised away.
				if sum := sha256.Sum256(data); !ed25519.Verify(pub, msg, sig) || sum == [32]byte{} {
					bad.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if bad.Load() != 0 {
		fail(fmt.Errorf("the floor's signature did not verify"))
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}
