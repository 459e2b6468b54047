package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ryekit/rye/gitrepo"
	"github.com/ryekit/rye/project"
	"github.com/ryekit/rye/sign"
	"github.com/ryekit/rye/verify"
)

func (a *app) trustCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "trust",
		Short: "Manage the trusted keys (.ai/trusted_keys/<fingerprint>.toml)",
		Long: `The trust store is the set of public keys whose signatures rye accepts:
.ai/trusted_keys/ of the project (tracked in git), then of the user space,
then of the system space. Each key is a TOML file named after its
fingerprint; a file whose name does not match its key is ignored.

rye trust add takes a PEM public key, an OpenSSH public key (ssh-ed25519,
a .pub file) or a line of an OpenSSH allowed_signers file; rye trust export
--format allowed-signers writes the store for git and ssh-keygen -Y. The
fingerprint is always rye's, recomputed from the key. See docs/keys.md.`,
	}
	cmd.AddCommand(a.trustAddCommand(), a.trustSelfCommand(), a.trustListCommand(), a.trustRemoveCommand(), a.trustExportCommand())
	verbGroup(cmd)
	return cmd
}

// trustOptions are the flags shared by trust add and trust self.
type trustOptions struct {
	owner   string
	scopes  []string
	expires string
	user    bool
	force   bool
}

func (o *trustOptions) flags(cmd *cobra.Command) {
	cmd.Flags().StringVar(&o.owner, "owner", "", "who the key belongs to")
	cmd.Flags().StringArrayVar(&o.scopes, "scope", nil, "limit the key to `KIND:GLOB` (repeatable), e.g. tool:my-project/**")
	cmd.Flags().StringVar(&o.expires, "expires", "", "last day (`YYYY-MM-DD`, UTC) on which the key's signatures are accepted")
	cmd.Flags().BoolVar(&o.user, "user", false, "trust it in your user space instead of the project")
	cmd.Flags().BoolVar(&o.force, "force", false, "replace an existing entry for the key")
}

// trustDir is the trusted_keys folder that trust add/self/remove write.
func (a *app) trustDir(user bool) (string, error) {
	_, sp, err := a.openSpace(project.Options{SpacesOnly: true}, user)
	if err != nil {
		return "", err
	}
	return filepath.Join(sp.AI(), verify.TrustedKeysDir), nil
}

// addTrust writes the trust entry for k (its key, and the owner and
// expiry its input carried), with the flags applied over them.
func (a *app) addTrust(k *verify.TrustedKey, o *trustOptions) error {
	if o.owner != "" {
		k.Owner = o.owner
	}
	k.Scopes = o.scopes
	if o.expires != "" {
		t, err := time.Parse("2006-01-02", o.expires)
		if err != nil {
			return usageError("--expires %q: write a date as YYYY-MM-DD", o.expires)
		}
		k.Expires = &t
	}
	dir, err := a.trustDir(o.user)
	if err != nil {
		return err
	}
	target, err := verify.WriteTrustedKey(dir, k, o.force)
	var exists *verify.KeyExistsError
	switch {
	case errors.As(err, &exists):
		return usageError("%v; use --force to replace the entry", err)
	case err != nil:
		return asUsage(err)
	}
	a.info("trusted %s%s: %s", k.Fingerprint, verify.OwnerText(k.Owner), target)
	if a.json {
		return writeJSON(a.stdout, map[string]string{"fingerprint": k.Fingerprint, "path": target})
	}
	fmt.Fprintln(a.stdout, k.Fingerprint)
	return nil
}

// allTrust is every tier's trusted keys, as they are on disk (trust list
// and export show them, whatever a run would trust).
func (a *app) allTrust() (*verify.TrustStore, error) {
	ss, err := a.spaces()
	if err != nil {
		return nil, err
	}
	ts, err := verify.LoadTrustStore(verify.TrustTiers(ss, nil, true))
	return ts, asUsage(err)
}

func (a *app) trustAddCommand() *cobra.Command {
	o := &trustOptions{}
	cmd := &cobra.Command{
		Use:   "add FILE",
		Short: "Trust a public key: PEM, OpenSSH (.pub) or an allowed_signers line (FILE, or - for standard input)",
		Long: `rye trust add writes .ai/trusted_keys/<fingerprint>.toml for the public key in
FILE (- reads standard input). FILE holds one key, in any of these forms:

  a PEM public key           -----BEGIN PUBLIC KEY----- ...
  an OpenSSH public key      ssh-ed25519 AAAA... alice@laptop   (a .pub file)
  an allowed_signers line    alice@example.com ssh-ed25519 AAAA...

The owner is --owner, else the .pub file's comment or the allowed_signers
line's principals; the expiry is --expires, else the line's valid-before.
An allowed_signers line with valid-after or cert-authority is refused (rye
cannot honour them); namespaces are not kept, since rye's signatures have
none. The fingerprint is rye's, recomputed from the key.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			k, err := verify.ImportKeyFile(args[0], a.stdin)
			if err != nil {
				return asUsage(err)
			}
			return a.addTrust(k, o)
		},
	}
	o.flags(cmd)
	return cmd
}

func (a *app) trustSelfCommand() *cobra.Command {
	o := &trustOptions{}
	cmd := &cobra.Command{
		Use:   "self",
		Short: "Trust your own signing key in this project (or --user)",
		Long: `rye trust self trusts the public half of your signing key (--key, else
RYE_SIGNING_KEY, else your user space's key). The owner is --owner, else
the name and email git records for you (user.name and user.email of the
repository's or your global git configuration, or GIT_AUTHOR_NAME and
GIT_AUTHOR_EMAIL), else your login name.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			pub, _, err := a.publicKey()
			if err != nil {
				return err
			}
			if o.owner == "" {
				if o.owner = gitrepo.Owner(a.workDir(), os.Getenv); o.owner == "" {
					return usageError("no owner for the key: git has no user.name or user.email here and your login name is unknown; pass --owner NAME")
				}
			}
			return a.addTrust(&verify.TrustedKey{Fingerprint: sign.Fingerprint(pub), Public: pub}, o)
		},
	}
	o.flags(cmd)
	a.keyFlag(cmd)
	return cmd
}

func (a *app) trustListCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the trusted keys of every tier, and the files that were ignored",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ts, err := a.allTrust()
			if err != nil {
				return err
			}
			if a.json {
				return writeJSON(a.stdout, ts.Listing())
			}
			for _, k := range ts.Keys() {
				scope := "any item"
				if len(k.Scopes) > 0 {
					scope = strings.Join(k.Scopes, " ")
				}
				expires := ""
				if k.Expires != nil {
					expires = "  expires " + k.Expires.Format("2006-01-02")
				}
				fmt.Fprintf(a.stdout, "%s  %-8s  %-12s  %s%s\n", k.Fingerprint, k.Space, orDash(k.Owner), scope, expires)
			}
			for _, p := range ts.Problems {
				fmt.Fprintf(a.stderr, "rye: ignored %s: %s\n", p.Path, p.Reason)
			}
			if len(ts.Keys()) == 0 {
				a.info("no trusted keys (add one with 'rye trust add FILE' or 'rye trust self')")
			}
			return nil
		},
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func (a *app) trustRemoveCommand() *cobra.Command {
	var user bool
	cmd := &cobra.Command{
		Use:   "remove FINGERPRINT",
		Short: "Stop trusting a key in this project (or --user)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, err := a.trustDir(user)
			if err != nil {
				return err
			}
			target, err := verify.RemoveTrustedKey(dir, args[0])
			if err != nil {
				return asUsage(err)
			}
			a.info("removed %s", target)
			return nil
		},
	}
	cmd.Flags().BoolVar(&user, "user", false, "remove it from your user space")
	return cmd
}

func (a *app) trustExportCommand() *cobra.Command {
	var format string
	var namespaces []string
	cmd := &cobra.Command{
		Use:   "export --format allowed-signers",
		Short: "Print the trusted keys as an OpenSSH allowed_signers file",
		Long: `rye trust export prints the keys that rye trust list shows (every tier) in
OpenSSH's allowed_signers format, for git (gpg.ssh.allowedSignersFile) and
ssh-keygen -Y verify: one line per key, its owner as the principals (the
fingerprint when it has none), its expiry as valid-before (the last second
of that day, UTC), after a comment with its rye fingerprint, tier, file and
scopes (allowed_signers cannot limit a key to items). No namespaces are
written unless --namespace names them (git signs in namespace git).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "allowed-signers" {
				return usageError("--format %q: the one format is allowed-signers", format)
			}
			ts, err := a.allTrust()
			if err != nil {
				return err
			}
			a.warnTrustProblems(ts)
			data, err := verify.FormatAllowedSigners(ts.Keys(), namespaces)
			if err != nil {
				return usageError("%v", err)
			}
			_, err = a.stdout.Write(data)
			return err
		},
	}
	cmd.Flags().StringVar(&format, "format", "allowed-signers", "output `FORMAT`: allowed-signers")
	cmd.RegisterFlagCompletionFunc("format", fixedValues("allowed-signers"))
	cmd.Flags().StringArrayVar(&namespaces, "namespace", nil, "limit every key to ssh-keygen -Y `NAMESPACE` (repeatable), e.g. git")
	return cmd
}
