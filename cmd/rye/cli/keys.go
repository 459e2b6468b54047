package cli

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/ryekit/rye/internal/tty"
	"github.com/ryekit/rye/sign"
)

func (a *app) keysCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "keys",
		Short: "Create and show your signing key",
		Long: `Your signing key lives outside every project: the file named by --key (on the
verbs that take it), else RYE_SIGNING_KEY, else <user space>/.ai/keys/
private_key.pem, with public_key.pem beside it (the reference
implementation's layout). rye refuses a private key file that group or
others can read.

The key file may be a PKCS#8 PEM key, an encrypted PKCS#8 key, the
sigstore-encrypted key that rye keys generate writes, an OpenSSH ed25519
private key (such as ~/.ssh/id_ed25519), or an OpenSSH public key file
(~/.ssh/id_ed25519.pub) whose private half ssh-agent holds (SSH_AUTH_SOCK),
as git's user.signingKey works for SSH signing. An encrypted key's
passphrase comes from RYE_KEY_PASSWORD, else a prompt on your terminal
(/dev/tty, even when stdin is not a terminal). See docs/keys.md.`,
	}
	cmd.AddCommand(a.keysGenerateCommand(), a.keysShowCommand(), a.keysExportCommand())
	verbGroup(cmd)
	return cmd
}

// keyFlag adds --key to a verb that signs with or shows your key.
func (a *app) keyFlag(cmd *cobra.Command) {
	cmd.Flags().StringVar(&a.keyFile, "key", "", "your signing key `FILE` (default: RYE_SIGNING_KEY, else <user space>/.ai/keys/private_key.pem); an OpenSSH .pub file signs through ssh-agent")
}

// findKey is where your key is and how it opens (sign.FindKey): --key,
// else RYE_SIGNING_KEY, else the user space's keys folder; passphrases
// from RYE_KEY_PASSWORD, else asked on the terminal.
func (a *app) findKey() (sign.KeyPaths, sign.KeySource, error) {
	paths, src, err := sign.FindKey(a.keyFile, a.userRoot(), os.Getenv, a.askPassphrase)
	return paths, src, asUsage(err)
}

// askPassphrase asks for the passphrase of the key file path on the
// terminal, naming the file.
func (a *app) askPassphrase(path string, attempt int) ([]byte, error) {
	t, err := tty.Open(a.stdin, a.stderr)
	if err != nil {
		return nil, sign.ErrPassphraseNeeded
	}
	defer t.Close()
	prompt := "Enter passphrase for " + path + ": "
	if attempt > 1 {
		prompt = "Wrong passphrase; try again for " + path + ": "
	}
	return t.ReadSecret(prompt)
}

// newPassphrase is the passphrase of a new key: RYE_KEY_PASSWORD, else
// asked twice on the terminal, and asked again (three times in all) while
// the two differ or it is empty.
func (a *app) newPassphrase(path string) ([]byte, error) {
	if p := os.Getenv("RYE_KEY_PASSWORD"); p != "" {
		return []byte(p), nil
	}
	t, err := tty.Open(a.stdin, a.stderr)
	if err != nil {
		return nil, usageError("no passphrase: there is no terminal to ask on; set RYE_KEY_PASSWORD or use --no-passphrase")
	}
	defer t.Close()
	for range 3 {
		p, err := t.ReadSecret("Enter a passphrase for the new key " + path + ": ")
		if err != nil {
			return nil, asUsage(err)
		}
		if len(p) == 0 {
			fmt.Fprintln(t.Out, "The passphrase is empty: type one (for a key without one, stop and use --no-passphrase).")
			continue
		}
		again, err := t.ReadSecret("Enter the same passphrase again: ")
		if err != nil {
			return nil, asUsage(err)
		}
		if bytes.Equal(p, again) {
			return p, nil
		}
		fmt.Fprintln(t.Out, "The passphrases differ; try again.")
	}
	return nil, usageError("no key written: three tries without two equal, non-empty passphrases")
}

// signingKey loads your key, ready to sign; every failure is a
// configuration error (exit 2).
func (a *app) signingKey() (*sign.Key, error) {
	_, src, err := a.findKey()
	if err != nil {
		return nil, err
	}
	key, err := sign.LoadSigningKey(src)
	return key, asUsage(err)
}

// publicKey returns your public key and the file it was read from
// (sign.PublicKeyOf: without unlocking the key when the files tell).
func (a *app) publicKey() (ed25519.PublicKey, string, error) {
	paths, src, err := a.findKey()
	if err != nil {
		return nil, "", err
	}
	pub, from, err := sign.PublicKeyOf(src, paths.Public)
	return pub, from, asUsage(err)
}

// publicHalf is your public key when it can be had without a prompt
// (sign.PublicKeyOf with no passphrase to ask): rye sign compares items
// with it before it loads the key, if it must.
func (a *app) publicHalf() (ed25519.PublicKey, error) {
	paths, src, err := sign.FindKey(a.keyFile, a.userRoot(), os.Getenv, nil)
	if err != nil {
		return nil, err
	}
	return sign.SigningPublicKey(src, paths.Public)
}

func (a *app) keysGenerateCommand() *cobra.Command {
	var noPassphrase, force bool
	var format string
	cmd := &cobra.Command{
		Use:   "generate",
		Short: "Create a new Ed25519 signing key",
		Long: `rye keys generate writes a new key pair. The private key is encrypted with a
passphrase (asked twice on your terminal, again while the two differ, up to
three times; or taken from RYE_KEY_PASSWORD) in sigstore's format, or stored
as plain PKCS#8 with --no-passphrase (the reference implementation's format).
With --format openssh it is written in OpenSSH's format instead, which
ssh-add and git read: one key signs git commits and rye items. The public
key is written beside it as public_key.pem. It never replaces an existing
key without --force.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			kf, err := sign.ParseKeyFileFormat(format)
			if err != nil {
				return usageError("--format: %v", err)
			}
			paths, _, err := a.findKey()
			if err != nil {
				return err
			}
			var pass func() ([]byte, error)
			if !noPassphrase {
				pass = func() ([]byte, error) { return a.newPassphrase(paths.Private) }
			}
			key, err := sign.GenerateKeyFiles(paths, kf, pass, force)
			var ke *sign.KeyError
			switch {
			case errors.As(err, &ke) && ke.Exists:
				return usageError("%v (use --force to replace it; signatures made with the old key will no longer be yours)", err)
			case err != nil:
				return asUsage(err)
			}
			if kf == sign.KeyFileOpenSSH {
				a.info("created %s (OpenSSH format, private, mode 0600) and %s", paths.Private, paths.Public)
				a.info("for git: ssh-add %s; git config gpg.format ssh; git config user.signingKey %s", paths.Private, paths.Private)
			} else {
				a.info("created %s (private, mode 0600) and %s", paths.Private, paths.Public)
			}
			a.info("trust it in this project with: rye trust self")
			if a.json {
				return writeJSON(a.stdout, map[string]string{"fingerprint": key.Fingerprint, "private_key": paths.Private, "public_key": paths.Public})
			}
			fmt.Fprintln(a.stdout, key.Fingerprint)
			return nil
		},
	}
	cmd.Flags().BoolVar(&noPassphrase, "no-passphrase", false, "store the private key unencrypted")
	cmd.Flags().BoolVar(&force, "force", false, "replace an existing key")
	cmd.Flags().StringVar(&format, "format", "pem", "private key `FORMAT`: pem (PKCS#8, or sigstore-encrypted) or openssh")
	cmd.RegisterFlagCompletionFunc("format", fixedValues("pem", "openssh"))
	return cmd
}

func (a *app) keysShowCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "show",
		Short: "Print your key's fingerprint and public key (PEM and OpenSSH)",
		Long: `rye keys show prints your key's rye fingerprint, the file the public key was
read from, the public key as PEM (what rye's trust store holds) and as an
OpenSSH public key line (for ~/.ssh/*.pub, authorized_keys, allowed_signers
and git's user.signingKey).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			pub, from, err := a.publicKey()
			if err != nil {
				return err
			}
			fp := sign.Fingerprint(pub)
			pemText, _ := sign.CanonicalPublicPEM(pub)
			line := sign.OpenSSHPublicKey(pub)
			if a.json {
				return writeJSON(a.stdout, map[string]string{"fingerprint": fp, "public_key_pem": pemText, "public_key_openssh": line, "from": from})
			}
			fmt.Fprintf(a.stdout, "fingerprint: %s\nfrom: %s\n%s%s\n", fp, from, pemText, line)
			return nil
		},
	}
	a.keyFlag(cmd)
	return cmd
}

func (a *app) keysExportCommand() *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Print your public key (PEM, or --format openssh), to give to others",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "pem" && format != "openssh" {
				return usageError("--format %q: use pem or openssh", format)
			}
			pub, _, err := a.publicKey()
			if err != nil {
				return err
			}
			if format == "openssh" {
				_, err = fmt.Fprintln(a.stdout, sign.OpenSSHPublicKey(pub))
				return err
			}
			pemText, _ := sign.CanonicalPublicPEM(pub)
			_, err = fmt.Fprint(a.stdout, pemText)
			return err
		},
	}
	cmd.Flags().StringVar(&format, "format", "pem", "`FORMAT`: pem or openssh (an ssh-ed25519 line)")
	cmd.RegisterFlagCompletionFunc("format", fixedValues("pem", "openssh"))
	a.keyFlag(cmd)
	return cmd
}
