// Package agenttest runs a real ssh-agent for tests: rye signs through one
// when its key file is an OpenSSH public key. The sign package's tests and
// the command's scripts share it.
package agenttest

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// Start runs ssh-agent in the foreground on a socket of its own and returns
// the socket's path (the value for SSH_AUTH_SOCK) once the agent listens,
// and stop, which ends the agent and removes its folder. The folder is made
// under the system's temporary folder, not a test's: socket paths are
// limited to about 100 bytes.
func Start() (sock string, stop func(), err error) {
	dir, err := os.MkdirTemp("", "rye-agent")
	if err != nil {
		return "", nil, err
	}
	sock = filepath.Join(dir, "agent.sock")
	cmd := exec.Command("ssh-agent", "-D", "-a", sock)
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	stop = func() {
		cmd.Process.Kill()
		cmd.Wait()
		os.RemoveAll(dir)
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(sock); err == nil {
			return sock, stop, nil
		}
	}
	stop()
	return "", nil, errors.New("ssh-agent did not create its socket within 10 s")
}
