package testscripts

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// installEnv is what the Action's install script (action/install.sh) is
// run with here: a fake action folder whose pinned release key is a
// throw-away key, and a fake release served by a local HTTP server.
type installEnv struct {
	t        *testing.T
	action   string // the action's folder: install.sh, allowed_signers
	releases string // served: <releases>/<tag>/<file>
	url      string
	keys     string // the throw-away keys
	tools    map[string]string
}

func newInstallEnv(t *testing.T) *installEnv {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the install script is POSIX sh; on Windows runners it runs in Git Bash, not tested here")
	}
	e := &installEnv{t: t, tools: map[string]string{}}
	for _, name := range []string{"sh", "curl", "ssh-keygen", "tar", "unzip", "awk"} {
		p, err := exec.LookPath(name)
		if err != nil {
			t.Skipf("%s is not installed: the Action's install script needs it (as GitHub's runners have it)", name)
		}
		e.tools[name] = p
	}
	root := t.TempDir()
	e.action = filepath.Join(root, "action-ref")
	e.releases = filepath.Join(root, "releases")
	e.keys = filepath.Join(root, "keys")
	for _, d := range []string{filepath.Join(e.action, "action"), filepath.Join(e.action, "internal", "releasesig"), e.releases, e.keys} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	script, err := os.ReadFile(filepath.Join("..", "action", "install.sh"))
	if err != nil {
		t.Fatal(err)
	}
	e.write(filepath.Join(e.action, "action", "install.sh"), script)
	for _, k := range []string{"release", "other"} {
		e.run("", "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", k, "-f", filepath.Join(e.keys, k))
	}
	pub, err := os.ReadFile(filepath.Join(e.keys, "release.pub"))
	if err != nil {
		t.Fatal(err)
	}
	e.write(filepath.Join(e.action, "internal", "releasesig", "allowed_signers"),
		[]byte("# the test's release key\nrye-release namespaces=\"rye-release\" "+string(pub)))
	srv := httptest.NewServer(http.FileServer(http.Dir(e.releases)))
	t.Cleanup(srv.Close)
	e.url = srv.URL
	return e
}

func (e *installEnv) write(path string, data []byte) {
	e.t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		e.t.Fatal(err)
	}
}

// run runs a tool and fails the test when it fails.
func (e *installEnv) run(dir, tool string, args ...string) string {
	e.t.Helper()
	cmd := exec.Command(e.tools[tool], args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		e.t.Fatalf("%s %s: %v\n%s", tool, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// release writes a release of version tag for the platforms given (the
// archive of each holds an executable rye that prints its version), its
// checksums file, and that file's signature by key in namespace ns.
func (e *installEnv) release(tag, key, ns string, platforms ...string) string {
	e.t.Helper()
	dir := filepath.Join(e.releases, tag)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		e.t.Fatal(err)
	}
	v := strings.TrimPrefix(tag, "v")
	var sums strings.Builder
	for _, p := range platforms {
		name := "rye_" + v + "_" + p
		var data []byte
		if strings.HasPrefix(p, "windows") {
			name += ".zip"
			data = zipOf(e.t, "rye.exe", fakeRye(tag))
		} else {
			name += ".tar.gz"
			data = tarOf(e.t, "rye", fakeRye(tag))
		}
		e.write(filepath.Join(dir, name), data)
		sum := sha256.Sum256(data)
		sums.WriteString(hex.EncodeToString(sum[:]) + "  " + name + "\n")
	}
	file := filepath.Join(dir, "rye_"+v+"_checksums.txt")
	e.write(file, []byte(sums.String()))
	os.Remove(file + ".sig")
	e.run("", "ssh-keygen", "-Y", "sign", "-q", "-f", filepath.Join(e.keys, key), "-n", ns, file)
	return dir
}

// fakeRye is an executable that answers --version as a release rye does.
// A shell script, so that the zip of a Windows release runs here too.
func fakeRye(tag string) []byte {
	return []byte("#!/bin/sh\necho 'rye " + tag + " (commit 0123456, 2026-01-01T00:00:00Z, go1.26.8)'\n")
}

func tarOf(t *testing.T, name string, data []byte) []byte {
	var b bytes.Buffer
	gz := gzip.NewWriter(&b)
	tw := tar.NewWriter(gz)
	for _, f := range []struct {
		name string
		data []byte
		mode int64
	}{{"README.md", []byte("# rye\n"), 0o644}, {name, data, 0o755}} {
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: f.mode, Size: int64(len(f.data)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write(f.data)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	gz.Close()
	return b.Bytes()
}

func zipOf(t *testing.T, name string, data []byte) []byte {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, f := range []struct {
		name string
		data []byte
	}{{"README.md", []byte("# rye\n")}, {name, data}} {
		h := &zip.FileHeader{Name: f.name, Method: zip.Deflate}
		h.SetMode(0o755)
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(f.data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// install runs install.sh install DEST with env; it returns the output and
// whether it succeeded.
func (e *installEnv) install(dest string, env ...string) (string, bool) {
	e.t.Helper()
	cmd := exec.Command(e.tools["sh"], filepath.Join(e.action, "action", "install.sh"), "install", dest)
	cmd.Env = append(os.Environ(), "RYE_RELEASES_URL="+e.url, "RYE_ACTION_PATH=", "RYE_VERSION=", "RYE_ACTION_REF=", "RYE_OS=", "RYE_ARCH=")
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	return string(out), err == nil
}

// TestInstallScriptVerifiesDownloads runs the Action's install script
// against a fake release: it installs a release whose checksums file is
// signed by the pinned key and whose archive matches, and refuses, leaving
// nothing installed, a tampered archive, a checksums file changed to
// match it, a signature by another key or for another namespace, and a
// release without a signature.
func TestInstallScriptVerifiesDownloads(t *testing.T) {
	e := newInstallEnv(t)
	platforms := []string{"linux_amd64", "linux_arm64", "darwin_amd64", "darwin_arm64", "windows_amd64", "windows_arm64"}
	dir := e.release("v1.2.3", "release", "rye-release", platforms...)

	// The runner's own platform, from uname.
	dest := filepath.Join(t.TempDir(), "bin")
	out, ok := e.install(dest, "RYE_ACTION_REF=v1.2.3")
	if !ok {
		t.Fatalf("a good release is refused:\n%s", out)
	}
	for _, want := range []string{
		`Good "rye-release" signature for rye-release`,
		"_checksums.txt",
		"sha256 ",
		"as signed",
		"rye v1.2.3 (commit 0123456",
		"rye=" + filepath.Join(dest, "rye") + "\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the install output lacks %q:\n%s", want, out)
		}
	}
	if got, err := exec.Command(filepath.Join(dest, "rye"), "--version").Output(); err != nil || !strings.HasPrefix(string(got), "rye v1.2.3 ") {
		t.Errorf("the installed rye: %q, %v", got, err)
	}

	// Windows: the zip, rye.exe. The version input chooses the release
	// when the action is pinned by commit.
	dest = filepath.Join(t.TempDir(), "bin")
	out, ok = e.install(dest, "RYE_ACTION_REF=0123456789abcdef0123456789abcdef01234567", "RYE_VERSION=v1.2.3", "RYE_OS=windows", "RYE_ARCH=arm64")
	if !ok || !strings.Contains(out, "rye_1.2.3_windows_arm64.zip: sha256") {
		t.Fatalf("the Windows zip:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(dest, "rye.exe")); err != nil {
		t.Errorf("no rye.exe: %v", err)
	}

	refused := func(name string, want string, env ...string) {
		t.Helper()
		dest := filepath.Join(t.TempDir(), "bin")
		out, ok := e.install(dest, env...)
		if ok {
			t.Errorf("%s: installed:\n%s", name, out)
		}
		if !strings.Contains(out, want) {
			t.Errorf("%s: the output lacks %q:\n%s", name, want, out)
		}
		if entries, _ := os.ReadDir(dest); len(entries) != 0 {
			t.Errorf("%s: left %d files in the install folder", name, len(entries))
		}
	}
	linux := []string{"RYE_ACTION_REF=v1.2.3", "RYE_OS=linux", "RYE_ARCH=amd64"}
	archive := filepath.Join(dir, "rye_1.2.3_linux_amd64.tar.gz")
	sums := filepath.Join(dir, "rye_1.2.3_checksums.txt")
	good, _ := os.ReadFile(archive)
	goodSums, _ := os.ReadFile(sums)

	// A tampered binary: another rye in the archive, checksums unchanged.
	evil := tarOf(t, "rye", []byte("#!/bin/sh\necho 'rye v1.2.3 (evil)'\n"))
	e.write(archive, evil)
	refused("tampered archive", "the download was changed or damaged", linux...)

	// The checksums file changed to match the tampered archive.
	sum := sha256.Sum256(evil)
	goodSum := sha256.Sum256(good)
	e.write(sums, bytes.Replace(goodSums, []byte(hex.EncodeToString(goodSum[:])), []byte(hex.EncodeToString(sum[:])), 1))
	refused("tampered checksums", "the signature of rye_1.2.3_checksums.txt does not verify", linux...)
	e.write(archive, good)
	e.write(sums, goodSums)

	// Signed by a key the action does not pin, or for another namespace.
	e.release("v1.2.4", "other", "rye-release", "linux_amd64")
	refused("other key", "does not verify against the release keys", "RYE_ACTION_REF=v1.2.4", "RYE_OS=linux", "RYE_ARCH=amd64")
	e.release("v1.2.5", "release", "git", "linux_amd64")
	refused("other namespace", "does not verify against the release keys", "RYE_ACTION_REF=v1.2.5", "RYE_OS=linux", "RYE_ARCH=amd64")

	// No signature at all, and a platform the release does not have.
	os.Remove(filepath.Join(e.release("v1.2.6", "release", "rye-release", "linux_amd64"), "rye_1.2.6_checksums.txt.sig"))
	refused("no signature", "could not download", "RYE_ACTION_REF=v1.2.6", "RYE_OS=linux", "RYE_ARCH=amd64")
	refused("no archive", "could not download", "RYE_ACTION_REF=v1.2.6", "RYE_OS=darwin", "RYE_ARCH=arm64")

	// An archive listed twice is not a checksum to trust.
	d := e.release("v1.2.7", "release", "rye-release", "linux_amd64")
	twice, _ := os.ReadFile(filepath.Join(d, "rye_1.2.7_checksums.txt"))
	e.write(filepath.Join(d, "rye_1.2.7_checksums.txt"), append(twice, twice...))
	os.Remove(filepath.Join(d, "rye_1.2.7_checksums.txt.sig"))
	e.run("", "ssh-keygen", "-Y", "sign", "-q", "-f", filepath.Join(e.keys, "release"), "-n", "rye-release", filepath.Join(d, "rye_1.2.7_checksums.txt"))
	refused("listed twice", "lists rye_1.2.7_linux_amd64.tar.gz not exactly once", "RYE_ACTION_REF=v1.2.7", "RYE_OS=linux", "RYE_ARCH=amd64")

	// A binary that is not the version asked for (a release whose
	// archive holds another version's rye) is refused too.
	d = e.release("v1.2.8", "release", "rye-release", "linux_amd64")
	old := tarOf(t, "rye", fakeRye("v1.2.7"))
	e.write(filepath.Join(d, "rye_1.2.8_linux_amd64.tar.gz"), old)
	oldSum := sha256.Sum256(old)
	e.write(filepath.Join(d, "rye_1.2.8_checksums.txt"), []byte(hex.EncodeToString(oldSum[:])+"  rye_1.2.8_linux_amd64.tar.gz\n"))
	os.Remove(filepath.Join(d, "rye_1.2.8_checksums.txt.sig"))
	e.run("", "ssh-keygen", "-Y", "sign", "-q", "-f", filepath.Join(e.keys, "release"), "-n", "rye-release", filepath.Join(d, "rye_1.2.8_checksums.txt"))
	refused("wrong version", "not rye v1.2.8", "RYE_ACTION_REF=v1.2.8", "RYE_OS=linux", "RYE_ARCH=amd64")

	// A version input that is not a release tag.
	refused("bad version input", "is not a release version", "RYE_VERSION=main")
}

// TestInstallScriptPlan: a release tag (or the version input) downloads;
// a branch, a commit or no ref (uses: ./) builds, with the ref as the
// version.
func TestInstallScriptPlan(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("sh is not installed: the Action's install script is POSIX sh")
	}
	for _, tc := range []struct{ ref, version, want string }{
		{"v1.2.3", "", "mode=download\nversion=v1.2.3\n"},
		{"v1.2.3-rc.1", "", "mode=download\nversion=v1.2.3-rc.1\n"},
		{"main", "", "mode=build\nversion=main\n"},
		{"v1", "", "mode=build\nversion=v1\n"},
		{"0123456789abcdef0123456789abcdef01234567", "v1.2.3", "mode=download\nversion=v1.2.3\n"},
		{"0123456789abcdef0123456789abcdef01234567", "", "mode=build\nversion=0123456789abcdef0123456789abcdef01234567\n"},
		{"feature/it's", "", "mode=build\nversion=feature/it-s\n"},
		{"", "", "mode=build\nversion=unreleased\n"},
	} {
		cmd := exec.Command(sh, filepath.Join("..", "action", "install.sh"), "plan")
		cmd.Env = append(os.Environ(), "RYE_ACTION_REF="+tc.ref, "RYE_VERSION="+tc.version)
		out, err := cmd.Output()
		if err != nil || string(out) != tc.want {
			t.Errorf("ref %q, version %q: %q, %v; want %q", tc.ref, tc.version, out, err, tc.want)
		}
	}
}

// TestInstallScriptBuildsNonReleaseRefs builds rye from this repository as
// the Action does for a branch: the binary calls itself by the ref, never
// devel (an action has no .git to read a version from).
func TestInstallScriptBuildsNonReleaseRefs(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: building rye takes a while")
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("sh is not installed: the Action's install script is POSIX sh")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not installed: a build from source needs it")
	}
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dest := filepath.Join(t.TempDir(), "bin")
	cmd := exec.Command(sh, filepath.Join(repo, "action", "install.sh"), "install", dest)
	cmd.Env = append(os.Environ(), "RYE_ACTION_REF=feature/x", "RYE_VERSION=", "RYE_ACTION_PATH="+repo, "RYE_COMMIT=abc1234", "GOPROXY=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("install.sh install (build): %v\n%s", err, out)
	}
	exe := filepath.Join(dest, "rye")
	if !strings.Contains(string(out), "rye="+exe) {
		t.Errorf("no rye= line:\n%s", out)
	}
	got, err := exec.Command(exe, "--version").Output()
	if err != nil || !strings.HasPrefix(string(got), "rye feature/x (commit abc1234, ") {
		t.Errorf("the built rye says %q (%v), want rye feature/x (commit abc1234, ...)", got, err)
	}
}
