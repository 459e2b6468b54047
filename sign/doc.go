// Package sign is rye's signature format: the signature line embedded in
// every item (spec 2.1-2.3), its strict parser, the content hashes of v1
// (the Python reference's format) and v2 (rye's own), the v2 message, keys
// and fingerprints (spec 2.4), key sources (PKCS#8, encrypted PKCS#8,
// sigstore-encrypted and OpenSSH key files, and ssh-agent for a key named by
// its OpenSSH public key), and the batch signer that rewrites items
// atomically and leaves validly signed ones alone.
//
// A Key signs through a crypto.Signer, so that its private half may live
// outside rye (in ssh-agent); every signature is checked against the public
// key before it is used. Nothing here prompts: a caller passes the
// passphrase source (KeySource.Passphrase) and the agent connection.
//
// The parser fails closed: a line that starts like a signature but does not
// match its grammar is malformed, never "unsigned"; only a missing line, a
// placeholder or a legacy rye:validated: line counts as unsigned.
package sign
