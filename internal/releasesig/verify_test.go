package releasesig

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ryekit/rye/internal/sshsig"
)

func TestVerify(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	release := testKey(0)
	signers, err := parseSigners([]byte(`rye-release namespaces="rye-release" ` + keyText(release) + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	archive := write("rye_1.0.0_linux_amd64.tar.gz", "abc")
	sums := "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  rye_1.0.0_linux_amd64.tar.gz\n"
	checksums := write("checksums.txt", sums)
	sig, err := sshsig.Sign(release, namespace, strings.NewReader(sums))
	if err != nil {
		t.Fatal(err)
	}
	write("checksums.txt.sig", string(sig.Marshal()))
	other := write("other.zip", "abc")

	rep, err := Verify(Request{Checksums: checksums, Files: []string{archive, other}, Signers: signers})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Signer.Principal != "rye-release" || rep.Listed != 1 || len(rep.Files) != 2 || rep.Files[0].Err != nil || !errors.Is(rep.Files[1].Err, errNotListed) || rep.OK() {
		t.Fatalf("report %+v", rep)
	}

	// A checksums file changed after signing is a *Failure.
	write("checksums.txt", strings.Replace(sums, "ba78", "ba79", 1))
	_, err = Verify(Request{Checksums: checksums, Signers: signers})
	var f *Failure
	if !errors.As(err, &f) || !errors.Is(err, sshsig.ErrBadSignature) || f.Path != checksums+".sig" {
		t.Errorf("a changed checksums file: %v", err)
	}
	// A missing file is not a Failure (the caller's mistake).
	_, err = Verify(Request{Checksums: filepath.Join(dir, "none.txt"), Signers: signers})
	if err == nil || errors.As(err, &f) {
		t.Errorf("a missing checksums file: %v", err)
	}
	// An oversized signature is a Failure, read no further than the bound.
	write("checksums.txt", sums)
	write("big.sig", string(bytes.Repeat([]byte("x"), 64<<10+1)))
	_, err = Verify(Request{Checksums: checksums, Signature: filepath.Join(dir, "big.sig"), Signers: signers})
	if !errors.As(err, &f) || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("an oversized signature: %v", err)
	}
}
