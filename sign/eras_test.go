package sign

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/ryekit/rye/item"
)

// ryeosLine signs body the way RyeOS 0.2+ does (spec 6.3): the hash of
// the bytes after the line, the hash's 64 ASCII bytes signed, standard
// base64, the 64-hex fingerprint.
func ryeosLine(key *Key, body string) string {
	sum := sha256.Sum256([]byte(body))
	hash := hex.EncodeToString(sum[:])
	sig, err := key.SignMessage([]byte(hash))
	if err != nil {
		panic(err)
	}
	return "# ryeos:signed:2026-07-01T00:00:00Z:" + hash + ":" + base64.StdEncoding.EncodeToString(sig) + ":" + Fingerprint64(key.Public) + "\n" + body
}

// rye sign never stacks its line above another format's line: it replaces
// the user's own RyeOS signature, and refuses anyone else's, a misplaced
// one, and a v1 line after a byte-order mark.
func TestSignNeverStacksAboveAnotherFormat(t *testing.T) {
	mine := vectorKey()
	theirs := NewKey(ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, 32)))
	now := time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)
	body := "version: \"1.0.0\"\ntool_type: runtime\n"

	out, err := Sign(mine, V2, item.Tool, "a/b", ".yaml", []byte(ryeosLine(mine, body)), now)
	if err != nil {
		t.Fatalf("the user's own ryeos signature: %v", err)
	}
	if bytes.Contains(out, []byte("ryeos:signed:")) || !SignedBy(mine, V2, item.Tool, "a/b", ".yaml", out) || !bytes.HasSuffix(out, []byte(body)) {
		t.Errorf("not replaced by a v2 line:\n%s", out)
	}

	_, err = Sign(mine, V2, item.Tool, "a/b", ".yaml", []byte(ryeosLine(theirs, body)), now)
	if err == nil || !strings.Contains(err.Error(), "a ryeos signature by key "+Fingerprint64(theirs.Public)) || !strings.Contains(err.Error(), "does not sign over another format's line") {
		t.Errorf("someone else's ryeos signature: %v", err)
	}

	// On line 2 of a shell script, the Rust engine sees no signature; rye
	// must not put its own line there and push the old one into the body.
	script := "#!/bin/sh\n" + ryeosLine(theirs, "echo hi\n")
	if _, err := Sign(mine, V2, item.Tool, "a/b", ".sh", []byte(script), now); err == nil || !strings.Contains(err.Error(), "RYE OS signature line that rye cannot use") {
		t.Errorf("a misplaced ryeos line: %v", err)
	}

	if _, err := Sign(mine, V1, item.Tool, "a/b", ".yaml", []byte(item.BOM+body), now); err == nil || !strings.Contains(err.Error(), "byte-order mark") {
		t.Errorf("v1 after a BOM: %v", err)
	}
	if _, err := Sign(mine, V2, item.Tool, "a/b", ".yaml", []byte(item.BOM+body), now); err != nil {
		t.Errorf("v2 covers a BOM: %v", err)
	}
}
