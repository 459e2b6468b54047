package cli

import (
	"errors"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/ryekit/rye/mcp"
	"github.com/ryekit/rye/project"
	"github.com/ryekit/rye/sign"
)

func (a *app) mcpCommand() *cobra.Command {
	var allowSign, allowUserSpace bool
	var roots []string
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the MCP tools search, load, execute and sign to an agent, on stdin and stdout",
		Long: `rye mcp is an MCP server (stdio transport) with the four tools of RYE OS,
search, load, execute and sign, under the reference's names and input
schemas: an agent set up for RYE OS uses it unchanged. Each tool runs the
pipeline of the rye verb of the same name, so nothing runs or loads unless
it verifies against the project's trust store.

Every call names its project (project_path). With -C DIR or --project DIR
the server serves that project only and refuses any other: the safest way
to run it, where project_path may be left out. Without, it serves any project that you own (the folder and its
.ai/), trusting that project's own trusted keys; --root DIR narrows that
to projects in DIR or below.

sign is refused unless the server was started with --allow-sign: an agent
that signs with your key is your choice, not a default. Likewise the server
writes only to the named project (load's destination, sign's source) unless
started with --allow-user-space: items in your user space are used by every
project. The key must load
without a prompt (stdin is the protocol): an unencrypted key, or its
passphrase in RYE_KEY_PASSWORD.

stdout carries the protocol only; warnings go to stderr.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if timeout < 0 {
				return usageError("--timeout %s: give a positive duration such as 30s or 2m", timeout)
			}
			// The passphrase is read once, now, and leaves the process
			// environment: nothing the server starts later (a tool, a
			// runtime, a child of either) can read it there. The executor
			// drops it from every run as well (executor.SecretVars).
			passphrase := os.Getenv("RYE_KEY_PASSWORD")
			os.Unsetenv("RYE_KEY_PASSWORD")
			if err := scrubSecrets(); err != nil { // and from /proc/<pid>/environ
				return err
			}
			var err error
			o := mcp.Options{Timeout: timeout, Log: a.stderr, AllowUserSpace: allowUserSpace}
			o.Version, _, _ = Version()
			if len(a.dirs) > 0 || a.projectDir != "" {
				if len(roots) > 0 {
					return usageError("--root: the server is pinned to one project (-C or --project); give one or the other")
				}
				_, sp, err := a.openSpace(project.Options{SpacesOnly: true}, false)
				if err != nil {
					return err
				}
				o.Pin = sp.Root
			}
			if o.Roots, err = mcp.Folders(roots); err != nil {
				return usageError("--root %v", err)
			}
			if allowSign {
				key, err := a.mcpKey(passphrase)
				if err != nil {
					return err
				}
				o.Key = key
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if err := mcp.Serve(ctx, o, a.stdin, a.stdout); err != nil && ctx.Err() == nil {
				return findings("mcp: %v", err)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&allowSign, "allow-sign", false, "let the sign tool sign with your key (loaded now, without a prompt)")
	cmd.Flags().BoolVar(&allowUserSpace, "allow-user-space", false, "let load copy items into your user space, and sign sign its items (with --allow-sign): every project uses them")
	cmd.Flags().StringArrayVar(&roots, "root", nil, "serve only projects in `DIR` or below (repeatable; without -C)")
	cmd.Flags().DurationVar(&timeout, "timeout", 0, "kill each tool run after `DURATION`, replacing its configured timeout (as rye execute --timeout)")
	return cmd
}

// mcpKey loads the signing key for rye mcp --allow-sign, never with a
// prompt (sign.LoadKeyNoPrompt): an encrypted key needs RYE_KEY_PASSWORD,
// which the caller read (passphrase) before taking it out of the
// environment.
func (a *app) mcpKey(passphrase string) (*sign.Key, error) {
	key, err := sign.LoadKeyNoPrompt(a.keyFile, a.userRoot(), os.Getenv, passphrase)
	var ke *sign.KeyError
	switch {
	case errors.As(err, &ke) && ke.Unavailable:
		return nil, usageError("--allow-sign: %s is encrypted and RYE_KEY_PASSWORD is not set; rye mcp never asks for a passphrase (its stdin is the protocol): set RYE_KEY_PASSWORD in the server's environment, or use a key without one", ke.Path)
	case err != nil:
		return nil, usageError("--allow-sign: %v", err)
	}
	return key, nil
}
