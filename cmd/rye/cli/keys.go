package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/ryekit/rye/sign"
)

func (a *app) keysCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "keys",
		Short: "Create and show your signing key",
		Long: `Your signing key lives outside every project: at RYE_SIGNING_KEY when that is
set, else in <user space>/.ai/keys/private_key.pem with public_key.pem beside
it (the reference implementation's layout). rye refuses a private key file
that group or others can read.`,
	}
	cmd.AddCommand(a.keysGenerateCommand(), a.keysShowCommand(), a.keysExportCommand())
	return cmd
}

// userRoot is the user space's root: USER_SPACE, else HOME.
func (a *app) userRoot() string {
	ss, err := a.getSpaces()
	if err != nil || ss.User == nil {
		return ""
	}
	return ss.User.Root
}

func (a *app) keyPaths() (sign.KeyPaths, error) {
	p, err := sign.DefaultKeyPaths(os.Getenv("RYE_SIGNING_KEY"), a.userRoot())
	return p, asUsage(err)
}

// passphrase returns the key passphrase: RYE_KEY_PASSWORD (for CI), else a
// prompt on the terminal (twice when creating a key), else an error.
func (a *app) passphrase(confirm bool) ([]byte, error) {
	if p, ok := os.LookupEnv("RYE_KEY_PASSWORD"); ok && p != "" {
		return []byte(p), nil
	}
	f, ok := a.stdin.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil, sign.ErrPassphraseNeeded
	}
	fmt.Fprint(a.stderr, "Passphrase for the signing key: ")
	p, err := term.ReadPassword(int(f.Fd()))
	fmt.Fprintln(a.stderr)
	if err != nil {
		return nil, err
	}
	if confirm {
		fmt.Fprint(a.stderr, "Repeat the passphrase: ")
		again, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(a.stderr)
		if err != nil {
			return nil, err
		}
		if !bytes.Equal(p, again) {
			return nil, errors.New("the passphrases differ")
		}
	}
	if len(p) == 0 {
		return nil, errors.New("empty passphrase: use --no-passphrase for a key without one")
	}
	return p, nil
}

// signingKey loads the user's private key; every failure is a
// configuration error (exit 2).
func (a *app) signingKey() (*sign.Key, error) {
	paths, err := a.keyPaths()
	if err != nil {
		return nil, err
	}
	key, err := sign.LoadPrivateKey(paths.Private, func() ([]byte, error) { return a.passphrase(false) })
	return key, asUsage(err)
}

func (a *app) keysGenerateCommand() *cobra.Command {
	var noPassphrase, force bool
	cmd := &cobra.Command{
		Use:   "generate",
		Short: "Create a new Ed25519 signing key",
		Long: `rye keys generate writes a new key pair. The private key is encrypted with a
passphrase (asked on the terminal, or taken from RYE_KEY_PASSWORD) in
sigstore's format, or stored as plain PKCS#8 with --no-passphrase (the
reference implementation's format). It never replaces an existing key
without --force.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			paths, err := a.keyPaths()
			if err != nil {
				return err
			}
			var pass []byte
			if !noPassphrase {
				if pass, err = a.passphrase(true); err != nil {
					if errors.Is(err, sign.ErrPassphraseNeeded) {
						return usageError("no passphrase: there is no terminal to ask on; set RYE_KEY_PASSWORD or use --no-passphrase")
					}
					return asUsage(err)
				}
			}
			key, err := sign.GenerateKeyFiles(paths, pass, force)
			if err != nil {
				return asUsage(err)
			}
			a.info("created %s (private, mode 0600) and %s", paths.Private, paths.Public)
			a.info("trust it in this project with: rye trust self")
			if a.json {
				return writeJSON(a.stdout, map[string]string{"fingerprint": key.Fingerprint, "private_key": paths.Private, "public_key": paths.Public})
			}
			fmt.Fprintln(a.stdout, key.Fingerprint)
			return nil
		},
	}
	cmd.Flags().BoolVar(&noPassphrase, "no-passphrase", false, "store the private key unencrypted (PKCS#8)")
	cmd.Flags().BoolVar(&force, "force", false, "replace an existing key")
	return cmd
}

// publicKey returns your public key and where it came from: public_key.pem
// beside the private key (checked against the private key when that can be
// read without a passphrase), else derived from the private key.
func (a *app) publicKey() (*sign.Key, string, error) {
	paths, err := a.keyPaths()
	if err != nil {
		return nil, "", err
	}
	pub, pubErr := sign.LoadPublicKey(paths.Public)
	if pubErr == nil {
		priv, err := sign.LoadPrivateKey(paths.Private, func() ([]byte, error) { return nil, sign.ErrPassphraseNeeded })
		if err == nil && !priv.Public.Equal(pub) {
			return nil, "", usageError("%s does not belong to %s: restore the right public key, or delete it so that rye derives it from the private key", paths.Public, paths.Private)
		}
		return &sign.Key{Public: pub, Fingerprint: sign.Fingerprint(pub)}, paths.Public, nil
	}
	key, err := a.signingKey()
	if err != nil {
		return nil, "", err
	}
	return key, paths.Private, nil
}

func (a *app) keysShowCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "show",
		Short: "Print your key's fingerprint and public key",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			key, from, err := a.publicKey()
			if err != nil {
				return err
			}
			pemText, _ := sign.CanonicalPublicPEM(key.Public)
			if a.json {
				return writeJSON(a.stdout, map[string]string{"fingerprint": key.Fingerprint, "public_key_pem": pemText, "from": from})
			}
			fmt.Fprintf(a.stdout, "fingerprint: %s\nfrom: %s\n%s", key.Fingerprint, from, pemText)
			return nil
		},
	}
}

func (a *app) keysExportCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "export",
		Short: "Print your public key (PEM), to give to others",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			key, _, err := a.publicKey()
			if err != nil {
				return err
			}
			pemText, _ := sign.CanonicalPublicPEM(key.Public)
			_, err = fmt.Fprint(a.stdout, pemText)
			return err
		},
	}
}
