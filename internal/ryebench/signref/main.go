// Command signref is the reference that ryebench -sign times rye sign of
// one item against, standing in for minisign -S (not installed on the
// machines this project is measured on): it reads an Ed25519 private key
// (PKCS#8 PEM, the form of rye's private_key.pem), reads one file, signs
// its bytes and writes the signature to FILE.sig atomically and durably
// (a temporary file beside it, flushed, renamed over the old one, the
// folder flushed): what signing one file needs, done once, nothing of rye
// linked.
//
//	signref KEY FILE
package main

import (
	"crypto/ed25519"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: signref KEY FILE")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "signref:", err)
		os.Exit(1)
	}
}

func run(keyFile, file string) error {
	pemBytes, err := os.ReadFile(keyFile)
	if err != nil {
		return err
	}
	block, _ := pem.Decode(pemBytes)
	if block == nil {
		return fmt.Errorf("%s: no PEM block", keyFile)
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return err
	}
	priv, ok := k.(ed25519.PrivateKey)
	if !ok {
		return fmt.Errorf("%s: not an Ed25519 key", keyFile)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	sig := ed25519.Sign(priv, data)
	out := []byte(base64.StdEncoding.EncodeToString(sig) + "\n")

	target := file + ".sig"
	dir := filepath.Dir(target)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(target)+".tmp-")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(out)
	if err := tmp.Sync(); werr == nil {
		werr = err
	}
	if err := tmp.Close(); werr == nil {
		werr = err
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), target)
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return werr
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
