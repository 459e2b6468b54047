package secretenv

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The test binary, started with SECRETENV_CHILD=1, scrubs its secrets,
// says so, and waits for its stdin to close: the test reads its
// /proc/<pid>/environ meanwhile.
func TestMain(m *testing.M) {
	if os.Getenv("SECRETENV_CHILD") == "1" {
		err := Scrub("RYE_KEY_PASSWORD", "RYE_SIGNING_KEY", "ABSENT")
		fmt.Printf("scrubbed %v %q\n", err, os.Getenv("RYE_KEY_PASSWORD"))
		bufio.NewReader(os.Stdin).ReadString('\n')
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestScrubBlock(t *testing.T) {
	block := []byte("A=1\x00RYE_KEY_PASSWORD=s3cret\x00RYE_KEY_PASSWORD_X=keep\x00B=RYE_KEY_PASSWORD=keep\x00RYE_KEY_PASSWORD=\x00RYE_SIGNING_KEY=/k\x00")
	if !scrubBlock(block, []string{"RYE_KEY_PASSWORD", "RYE_SIGNING_KEY"}) {
		t.Fatal("nothing changed")
	}
	want := "A=1\x00RYE_KEY_PASSWORD=\x00\x00\x00\x00\x00\x00\x00RYE_KEY_PASSWORD_X=keep\x00B=RYE_KEY_PASSWORD=keep\x00RYE_KEY_PASSWORD=\x00RYE_SIGNING_KEY=\x00\x00\x00"
	if string(block) != want {
		t.Errorf("got  %q\nwant %q", block, want)
	}
	if scrubBlock(block, []string{"RYE_KEY_PASSWORD"}) {
		t.Error("a scrubbed block changed again")
	}
}

// A process that scrubbed its secrets shows none in /proc/<pid>/environ
// (which it would without Scrub: os.Unsetenv does not change it), and
// still reads them through os.Getenv.
func TestScrubProcEnviron(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), "SECRETENV_CHILD=1", "RYE_KEY_PASSWORD=correct-horse", "RYE_SIGNING_KEY=/keys/k.pem", "OTHER=visible")
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { in.Close(); cmd.Wait() }()
	line, _ := bufio.NewReader(out).ReadString('\n')
	if line != "scrubbed <nil> \"correct-horse\"\n" {
		t.Fatalf("child: %q", line)
	}
	env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(env), "correct-horse") || strings.Contains(string(env), "k.pem") {
		t.Errorf("the secret is still in /proc/<pid>/environ")
	}
	if !strings.Contains(string(env), "OTHER=visible") || !strings.Contains(string(env), "RYE_KEY_PASSWORD=\x00") {
		t.Errorf("the rest of the environment changed: %q", env)
	}
}
