// Package testscripts runs the end-to-end tests of the rye command: each
// *.txtar file in this folder is one behaviour, asserting stdout, stderr,
// exit codes and files written, in the style of cmd/go's script tests.
package testscripts

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/ryekit/rye/cmd/rye/cli"
	"github.com/ryekit/rye/confine"
	"github.com/ryekit/rye/internal/agenttest"
	"github.com/ryekit/rye/internal/cleancopy"
	"github.com/ryekit/rye/internal/releasesig"
	"github.com/ryekit/rye/internal/sarifcheck"
	"github.com/ryekit/rye/internal/vectors"
	"github.com/ryekit/rye/sign"
)

var update = flag.Bool("update", false, "rewrite cmp golden files in the scripts")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"rye": func() {
			detachTerminal()
			os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
		},
		"rye-confine": confine.HelperMain, // beside rye, as go install ./cmd/... puts it
	})
}

func TestScripts(t *testing.T) {
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 ".",
		UpdateScripts:       *update,
		RequireExplicitExec: false,
		RequireUniqueNames:  true,
		Setup: func(env *testscript.Env) error {
			work := env.WorkDir
			env.Setenv("HOME", filepath.Join(work, "home"))
			env.Setenv("USER_SPACE", "")
			env.Setenv("XDG_CACHE_HOME", filepath.Join(work, "cache"))
			env.Setenv("XDG_CONFIG_HOME", filepath.Join(work, "config"))
			env.Setenv("NO_COLOR", "1")
			env.Setenv("RYE_SYSTEM_PATH", "")
			env.Setenv("RYE_SIGNING_KEY", "")
			env.Setenv("RYE_KEY_PASSWORD", "")
			env.Setenv("SSH_AUTH_SOCK", "")
			env.Setenv("SOURCE_DATE_EPOCH", "")
			env.Setenv("REPO", repo)
			return os.MkdirAll(filepath.Join(work, "home"), 0o755)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"copydir":     copyDir,
			"mtimes":      mtimes,
			"replace":     replace,
			"unescape":    unescape,
			"crlf":        crlf,
			"bom":         bom,
			"sigline":     sigline,
			"sigfield":    sigfield,
			"fingerprint": fingerprintCmd,
			"vectorgroup": vectorGroup,
			"sarifvalid":  sarifValid,
			"pidgone":     pidgone,
			"status":      status,
			"forgecache":  forgeCache,
			"bigfile":     bigFile,
			"items":       itemsCmd,
			"maxlines":    maxLines,
			"signfile":    signFile,
			"sshagent":    sshAgent,
			"mcp":         mcpSession,
			"jsonvalid":   jsonValid,
			"ryebinary":   ryeBinary,
		},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "unix":
				return runtime.GOOS != "windows", nil
			case "linux":
				return runtime.GOOS == "linux", nil
			case "confine":
				return canConfine()
			case "python3", "bash", "setsid", "node":
				_, err := exec.LookPath(cond)
				return err == nil, nil
			case "pinnedkey":
				// The repository pins a release key (rye version verify).
				_, err := releasesig.Pinned()
				return err == nil, nil
			}
			return false, nil
		},
	})
}

// copydir SRC DST copies a folder tree (the example project) into the
// script's work directory, so scripts can change it freely. What git
// ignores is left out (cleancopy): the copy is the example as a fresh clone
// has it, whatever a quickstart run left in the repository's copy.
func copyDir(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: copydir SRC DST")
	}
	ts.Check(cleancopy.Copy(ts.MkAbs(args[1]), ts.MkAbs(args[0])))
}

// mtimes OUT FILE... writes the modification times (nanoseconds) of the
// files to OUT, so that a script can prove with cmp that files were not
// rewritten.
func mtimes(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: mtimes OUT FILE...")
	}
	var b strings.Builder
	for _, f := range args[1:] {
		info, err := os.Stat(ts.MkAbs(f))
		ts.Check(err)
		fmt.Fprintf(&b, "%s %d\n", f, info.ModTime().UnixNano())
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(b.String()), 0o644))
}

// replace FILE REGEXP REPLACEMENT rewrites a file with Go's
// regexp.ReplaceAll (the replacement may use $1); it fails when nothing
// matches, so a tamper that did nothing cannot pass unnoticed.
func replace(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: replace FILE REGEXP REPLACEMENT")
	}
	re, err := regexp.Compile(args[1])
	ts.Check(err)
	data := []byte(ts.ReadFile(args[0]))
	if !re.Match(data) {
		ts.Fatalf("replace: %q does not match in %s", args[1], args[0])
	}
	repl := strings.NewReplacer(`\n`, "\n", `\t`, "\t").Replace(args[2])
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), re.ReplaceAll(data, []byte(repl)), 0o644))
}

// unescape FILE writes the characters that \u{XXXX} escapes name in
// FILE: scripts spell hidden characters (Unicode tags, bidi controls) so
// that a reader of the script sees them.
func unescape(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: unescape FILE")
	}
	re := regexp.MustCompile(`\\u\{([0-9A-Fa-f]{1,6})\}`)
	out := re.ReplaceAllStringFunc(ts.ReadFile(args[0]), func(m string) string {
		v, err := strconv.ParseUint(re.FindStringSubmatch(m)[1], 16, 32)
		ts.Check(err)
		return string(rune(v))
	})
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(out), 0o644))
}

// crlf FILE turns every LF into CRLF (what core.autocrlf does on Windows).
func crlf(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: crlf FILE")
	}
	data := strings.ReplaceAll(ts.ReadFile(args[0]), "\n", "\r\n")
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(data), 0o644))
}

// bom FILE prepends a UTF-8 byte-order mark.
func bom(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: bom FILE")
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte("\xef\xbb\xbf"+ts.ReadFile(args[0])), 0o644))
}

var sigLineRE = regexp.MustCompile(`(?m)^(?:<!-- |# |// )rye:signed:[^\n]*$`)

// sigline SRC DST replaces DST's signature line with SRC's.
func sigline(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: sigline SRC DST")
	}
	line := sigLineRE.FindString(ts.ReadFile(args[0]))
	dst := ts.ReadFile(args[1])
	if line == "" || !sigLineRE.MatchString(dst) {
		ts.Fatalf("sigline: no signature line")
	}
	loc := sigLineRE.FindStringIndex(dst)
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(dst[:loc[0]]+line+dst[loc[1]:]), 0o644))
}

var sigFieldRE = regexp.MustCompile(`:([A-Za-z0-9_-]{86}==):`)

// sigfield SRC DST replaces only the signature field of DST's line with
// SRC's: another key's signature under the same fingerprint.
func sigfield(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: sigfield SRC DST")
	}
	m := sigFieldRE.FindStringSubmatch(ts.ReadFile(args[0]))
	dst := ts.ReadFile(args[1])
	loc := sigFieldRE.FindStringSubmatchIndex(dst)
	if m == nil || loc == nil {
		ts.Fatalf("sigfield: no signature field")
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(dst[:loc[2]]+m[1]+dst[loc[3]:]), 0o644))
}

// fingerprint VAR PUBKEY sets VAR to the fingerprint of a public key file,
// so that a script can name a key's trust file.
func fingerprintCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: fingerprint VAR PUBKEY")
	}
	pub, err := sign.ParsePublicKeyPEM([]byte(ts.ReadFile(args[1])))
	ts.Check(err)
	ts.Setenv(args[0], sign.Fingerprint(pub))
}

// vectorsDir holds the conformance vectors (the repository's copy of
// ../shared/vectors).
var vectorsDir = vectors.Dir()

// vectorgroup GROUP DIR lays out the vector cases of one group (a folder
// of ../shared/vectors/files, such as v2-modified) as a project in DIR:
// each file at the path its case names, and the vectors' trusted keys.
// Within a group the paths are distinct, so one verify run checks them all.
func vectorGroup(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: vectorgroup GROUP DIR")
	}
	abs, err := filepath.Abs(vectorsDir)
	ts.Check(err)
	data, err := os.ReadFile(filepath.Join(abs, "vectors.json"))
	ts.Check(err)
	var v struct {
		Cases []struct{ Path, File string }
	}
	ts.Check(json.Unmarshal(data, &v))
	dir := ts.MkAbs(args[1])
	n := 0
	for _, c := range v.Cases {
		if filepath.Base(filepath.Dir(c.File)) != args[0] {
			continue
		}
		src, err := os.ReadFile(filepath.Join(abs, c.File))
		ts.Check(err)
		dst := filepath.Join(dir, filepath.FromSlash(c.Path))
		ts.Check(os.MkdirAll(filepath.Dir(dst), 0o755))
		ts.Check(os.WriteFile(dst, src, 0o644))
		n++
	}
	if n == 0 {
		ts.Fatalf("vectorgroup: no cases in group %s", args[0])
	}
	keys := filepath.Join(dir, ".ai", "trusted_keys")
	ts.Check(os.MkdirAll(keys, 0o755))
	entries, err := os.ReadDir(filepath.Join(abs, "trusted_keys"))
	ts.Check(err)
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(abs, "trusted_keys", e.Name()))
		ts.Check(err)
		ts.Check(os.WriteFile(filepath.Join(keys, e.Name()), b, 0o644))
	}
}

// sarifvalid FILE checks a file against the SARIF 2.1.0 schema and what
// GitHub code scanning needs beyond it (sarifcheck.GitHub: a
// fullDescription on every rule, bases for relative URIs).
func sarifValid(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: sarifvalid FILE")
	}
	data := []byte(ts.ReadFile(args[0]))
	err := sarifcheck.Validate(data)
	if err == nil {
		err = sarifcheck.GitHub(data)
	}
	if neg && err == nil {
		ts.Fatalf("%s is valid SARIF", args[0])
	}
	if !neg && err != nil {
		ts.Fatalf("%s: %v", args[0], err)
	}
}

// sshagent starts a real ssh-agent for the rest of the script and sets
// SSH_AUTH_SOCK; the agent stops when the script ends. Scripts check
// [exec:ssh-agent] first.
func sshAgent(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: sshagent")
	}
	sock, stop, err := agenttest.Start()
	ts.Check(err)
	ts.Defer(stop)
	ts.Setenv("SSH_AUTH_SOCK", sock)
}

// canConfine is the condition [confine]: the kernel enforces a sandbox
// block with ports (Landlock ABI 4 or newer, seccomp). On a kernel that
// has Landlock but cannot, it is an error, not a skip: a skipped
// enforcement test must never read as a pass. RYE_REQUIRE_CONFINEMENT=1
// makes a kernel without Landlock an error too.
func canConfine() (bool, error) {
	k := confine.Probe()
	err := confine.Check(k, confine.Needs{Ports: true})
	switch {
	case err == nil:
		return true, nil
	case k.LandlockABI > 0 || os.Getenv("RYE_REQUIRE_CONFINEMENT") != "":
		return false, fmt.Errorf("this kernel has Landlock (or RYE_REQUIRE_CONFINEMENT is set) but cannot run the confinement scripts: %v", err)
	}
	return false, nil
}

// ryebinary DST copies the rye program alone (without rye-confine beside
// it) to DST, so that a script can run rye as it runs when the helper is
// not installed.
func ryeBinary(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: ryebinary DST")
	}
	src, err := exec.LookPath("rye") // testscript.Main put it on PATH
	ts.Check(err)
	data, err := os.ReadFile(src)
	ts.Check(err)
	dst := ts.MkAbs(args[0])
	ts.Check(os.MkdirAll(filepath.Dir(dst), 0o755))
	ts.Check(os.WriteFile(dst, data, 0o755))
}
