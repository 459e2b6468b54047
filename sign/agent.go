package sign

import (
	"bytes"
	"crypto"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"net"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
)

// dialAgent connects to the ssh-agent listening on socket, the value of
// SSH_AUTH_SOCK. The connection stays open for the life of the process:
// rye signs a batch through it and exits.
func dialAgent(socket string) (agent.ExtendedAgent, error) {
	if socket == "" {
		return nil, errors.New("SSH_AUTH_SOCK is not set, so there is no ssh-agent to ask (start one with: eval $(ssh-agent), then ssh-add your key)")
	}
	conn, err := net.Dial("unix", socket)
	if err != nil {
		return nil, fmt.Errorf("cannot reach ssh-agent at %s (SSH_AUTH_SOCK): %v", socket, err)
	}
	return agent.NewClient(conn), nil
}

// agentKey is the signing key whose public half is pub and whose private
// half ag holds. It fails unless the agent lists the key, so that a missing
// key is said once, before anything is signed.
//
// For an Ed25519 key, an agent's signature is a plain Ed25519 signature of
// the bytes it is given (the "ssh-ed25519" signature blob is the 64 bytes;
// SSH agent protocol, draft-miller-ssh-agent, and RFC 8709): rye hands it
// the exact message of spec 2 (the v2 message, or v1's 64 hash characters),
// and Key.SignMessage verifies every answer against pub.
func agentKey(ag agent.Agent, pub ed25519.PublicKey) (*Key, error) {
	sshPub, err := ssh.NewPublicKey(pub)
	if err != nil {
		return nil, err
	}
	held, err := ag.List()
	if err != nil {
		return nil, fmt.Errorf("ssh-agent did not list its keys: %v", err)
	}
	want := sshPub.Marshal()
	for _, k := range held {
		if bytes.Equal(k.Marshal(), want) {
			return newSignerKey(&agentSigner{agent: ag, key: sshPub, pub: pub})
		}
	}
	return nil, fmt.Errorf("ssh-agent does not hold this key (%s; rye fingerprint %s): add its private key with ssh-add", ssh.FingerprintSHA256(sshPub), Fingerprint(pub))
}

// agentSigner is a crypto.Signer whose private key is in ssh-agent.
type agentSigner struct {
	agent agent.Agent
	key   ssh.PublicKey
	pub   ed25519.PublicKey
}

func (s *agentSigner) Public() crypto.PublicKey { return s.pub }

// Sign asks the agent to sign msg itself: Ed25519 signs messages, not
// digests, so opts must be crypto.Hash(0).
func (s *agentSigner) Sign(_ io.Reader, msg []byte, opts crypto.SignerOpts) ([]byte, error) {
	if opts.HashFunc() != 0 {
		return nil, errors.New("an Ed25519 key signs the message itself, not a digest")
	}
	sig, err := s.agent.Sign(s.key, msg)
	if err != nil {
		return nil, fmt.Errorf("ssh-agent did not sign (%v): was the key removed from the agent, or a confirmation declined?", err)
	}
	if sig.Format != ssh.KeyAlgoED25519 || len(sig.Blob) != ed25519.SignatureSize {
		return nil, fmt.Errorf("ssh-agent answered with a %q signature of %d bytes, not an Ed25519 signature", sig.Format, len(sig.Blob))
	}
	return sig.Blob, nil
}
