package testscripts

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/sign"
	"github.com/ryekit/rye/space"
	"github.com/ryekit/rye/verify"
)

// forgecache CACHEFILE KIND ID FILE [v1|v2] plays an attacker who can
// write the verdict cache file (a restored CI cache) but does not hold the
// user's cache secret: it writes an entry that says "item KIND ID with
// FILE's bytes verified", keyed with a SHA-256 of public facts only (the
// binary, the item, the trust store's digest, the policy, the day): the
// way rye keyed entries before they were authenticated (v1, the default),
// or the same in the current file format (v2, with a made-up MAC), which
// only the secret in the key keeps out. rye must ignore both.
func forgeCache(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 4 || len(args) > 5 {
		ts.Fatalf("usage: forgecache CACHEFILE KIND ID FILE [v1|v2]")
	}
	magic := "rye-verify-cache-v1\n"
	if len(args) == 5 && args[4] == "v2" {
		magic = "rye-verify-cache-v2\n"
	}
	data, err := os.ReadFile(ts.MkAbs(args[3]))
	ts.Check(err)
	ss, err := space.Discover(space.Options{WorkDir: ts.MkAbs("."), Getenv: ts.Getenv})
	ts.Check(err)
	trust, err := verify.LoadTrustStore(verify.TrustTiers(ss, nil, true))
	ts.Check(err)
	// rye runs as a copy of the test binary placed on PATH by testscript.
	exe, err := exec.LookPath("rye")
	ts.Check(err)
	info, err := os.Stat(exe)
	ts.Check(err)
	self := exe + "\x00" + info.ModTime().UTC().String() + "\x00" + string(binary.AppendVarint(nil, info.Size()))
	content := sha256.Sum256(data)
	h := sha256.New()
	for _, part := range [][]byte{[]byte(magic), []byte(self), []byte(args[1]), []byte(args[2]), []byte("project"),
		[]byte(filepath.Ext(args[3])), content[:], []byte(trust.Digest()), []byte("v1-allowed"), []byte(time.Now().UTC().Format("2006-01-02"))} {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(part)))
		h.Write(n[:])
		h.Write(part)
	}
	key := hex.EncodeToString(h.Sum(nil))
	forged := magic + "{\"" + key + "\":{\"m\":\"" + strings.Repeat("0", 64) + "\"}}"
	p := ts.MkAbs(args[0])
	ts.Check(os.MkdirAll(filepath.Dir(p), 0o700))
	ts.Check(os.WriteFile(p, []byte(forged), 0o600))
}

// bigfile FILE SIZE writes a file of SIZE bytes of "#" (a comment in every
// form rye reads), for the limits on files a change controls.
func bigFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: bigfile FILE SIZE")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	p := ts.MkAbs(args[0])
	ts.Check(os.MkdirAll(filepath.Dir(p), 0o755))
	ts.Check(os.WriteFile(p, bytes.Repeat([]byte("#"), n), 0o644))
}

// items N DIR writes N small YAML tools into DIR/.ai/tools/gen/, for the
// scripts that need many items.
func itemsCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: items N DIR")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	dir := filepath.Join(ts.MkAbs(args[1]), ".ai", "tools", "gen")
	ts.Check(os.MkdirAll(dir, 0o755))
	for i := range n {
		src := fmt.Sprintf("version: \"1.0.0\"\ntool_type: runtime\nexecutor_id: rye/core/primitives/subprocess\ncategory: gen\ndescription: generated %d\nconfig:\n  command: \"true\"\n", i)
		ts.Check(os.WriteFile(filepath.Join(dir, fmt.Sprintf("t%03d.yaml", i)), []byte(src), 0o644))
	}
}

// maxlines N FILE fails when FILE has more than N lines.
func maxLines(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: maxlines N FILE")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	if got := strings.Count(ts.ReadFile(args[1]), "\n"); got > n {
		ts.Fatalf("%s has %d lines, more than %d", args[1], got, n)
	}
}

// signfile KIND ID FILE signs FILE (v2) with the user's key without
// checking its metadata, as an attacker's own tooling would: for the
// scripts that need a validly signed hostile item.
func signFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: signfile KIND ID FILE")
	}
	paths, err := sign.DefaultKeyPaths("", ts.Getenv("HOME"))
	ts.Check(err)
	key, err := sign.LoadSigningKey(sign.KeySource{Path: paths.Private})
	ts.Check(err)
	p := ts.MkAbs(args[2])
	data, err := os.ReadFile(p)
	ts.Check(err)
	out, err := sign.Sign(key, sign.V2, item.Kind(args[0]), item.ID(args[1]), filepath.Ext(p), data, time.Now().UTC())
	ts.Check(err)
	ts.Check(os.WriteFile(p, out, 0o644))
}
