package releasesig

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/ryekit/rye/internal/sshsig"
)

// Request is a check of downloaded release files (rye version verify).
type Request struct {
	Checksums string   // the checksums file
	Signature string   // its signature; "" is Checksums + ".sig"
	Files     []string // files to check against it (archives, SBOMs)
	Signers   []signer // nil: the pinned keys
}

// Report is what Verify found. Signer is set once the signature verified;
// each file has its result.
type Report struct {
	Checksums string
	Signature string
	Signer    signer
	Listed    int // files the checksums file lists
	Files     []fileResult
}

// fileResult is one file's check.
type fileResult struct {
	Path   string
	SHA256 string // "" when the file is not listed
	Err    error  // nil: the file is the one the signed checksums file lists
}

// OK reports whether the signature and every file verified.
func (r *Report) OK() bool {
	for _, f := range r.Files {
		if f.Err != nil {
			return false
		}
	}
	return true
}

// Failure is the error of a release file that does not verify (a bad or
// missing signature, a checksums file that does not parse): the files are
// not what the release key signed. Other errors of Verify are the caller's
// (a file that cannot be read, a signers file that does not parse).
type Failure struct {
	Path string
	Err  error
}

func (f *Failure) Error() string { return f.Path + ": " + f.Err.Error() }
func (f *Failure) Unwrap() error { return f.Err }

// Verify checks the checksums file's signature against the signers (the
// pinned keys by default), and then each file against the checksums. A
// file whose checksum differs, or that is not listed, is in the report
// with its error; Verify's error is a *Failure when the signature or the
// checksums file does not verify, any other error when a file cannot be
// read.
func Verify(req Request) (*Report, error) {
	signers := req.Signers
	if signers == nil {
		var err error
		if signers, err = Pinned(); err != nil {
			return nil, err
		}
	}
	rep := &Report{Checksums: req.Checksums, Signature: req.Signature}
	if rep.Signature == "" {
		rep.Signature = req.Checksums + ".sig"
	}
	sums, err := readBounded(req.Checksums, maxChecksums)
	if err != nil {
		return nil, err
	}
	armored, err := readBounded(rep.Signature, 64<<10)
	if err != nil {
		return nil, fmt.Errorf("%w (the signature of %s; --signature names another file)", err, req.Checksums)
	}
	if rep.Signer, err = verifySignature(sums, armored, signers); err != nil {
		return nil, &Failure{Path: rep.Signature, Err: err}
	}
	c, err := parseChecksums(sums)
	if err != nil {
		return nil, &Failure{Path: req.Checksums, Err: err}
	}
	rep.Listed = len(c.Names)
	for _, p := range req.Files {
		r := fileResult{Path: p}
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		r.SHA256, r.Err = c.Check(filepath.Base(p), f)
		f.Close()
		if errors.Is(r.Err, errNotListed) {
			r.SHA256 = ""
		}
		rep.Files = append(rep.Files, r)
	}
	return rep, nil
}

// readBounded reads a file of at most limit bytes.
func readBounded(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &Failure{Path: path, Err: fmt.Errorf("larger than %d bytes: not a release's checksums file or signature", limit)}
	}
	return data, nil
}

// document is the report as rye version verify --json prints it
// (docs/json/version-verify.schema.json).
type document struct {
	Checksums string         `json:"checksums"`
	Signature string         `json:"signature"`
	Signer    string         `json:"signer"`
	Key       string         `json:"key"`
	Listed    int            `json:"listed"`
	Files     []documentFile `json:"files"`
	OK        bool           `json:"ok"`
}

// documentFile is one file of a Document.
type documentFile struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256,omitempty"`
	OK     bool   `json:"ok"`
	Error  string `json:"error,omitempty"`
}

// Document is the report's JSON document.
func (r *Report) Document() *document {
	d := &document{Checksums: r.Checksums, Signature: r.Signature, Signer: r.Signer.Principal, Key: sshsig.Fingerprint(r.Signer.Key), Listed: r.Listed, Files: []documentFile{}, OK: r.OK()}
	for _, f := range r.Files {
		df := documentFile{Path: f.Path, SHA256: f.SHA256, OK: f.Err == nil}
		if f.Err != nil {
			df.Error = f.Err.Error()
		}
		d.Files = append(d.Files, df)
	}
	return d
}
