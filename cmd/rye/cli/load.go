package cli

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/project"
	"github.com/ryekit/rye/verify"
)

func (a *app) loadCommand() *cobra.Command {
	var destination string
	var force, noVerify bool
	cmd := &cobra.Command{
		Use:   "load KIND ID",
		Short: "Print a verified item, its parsed metadata (--json), or copy it to another space",
		Long: `rye load resolves an item (project, then user, then system space), verifies
it, and prints its file; an item that does not verify is refused (exit 1)
unless --no-verify, which prints it with a warning on stderr. With --json it
prints the parsed metadata instead. With --destination project|user it
copies the file into that space, where it shadows the original and must be
signed like any item of that space.`,
		Args:              cobra.ExactArgs(2),
		ValidArgsFunction: a.completeKindAndID(),
		RunE: func(cmd *cobra.Command, args []string) error {
			req, err := a.loadRequest(args[0], args[1], destination, force)
			if err != nil {
				return err
			}
			l, err := verify.Load(req)
			if err != nil {
				return loadError(err)
			}
			it, r := l.Item, l.Result
			if req.To != nil {
				return a.reportCopy(l)
			}
			if r.Verdict.Failed() {
				if !noVerify {
					return findings("refusing %s %s (%s): %s: %s\nuse --no-verify to read it anyway", it.Kind, it.ID, it.Path, r.Verdict, r.Reason)
				}
				fmt.Fprintf(a.stderr, "rye: warning: NOT VERIFIED: %s %s (%s): %s: %s\n", it.Kind, it.ID, it.Path, r.Verdict, r.Reason)
			}
			if !a.json {
				_, err := a.stdout.Write(it.Bytes)
				return err
			}
			md, err := it.Metadata()
			if err != nil {
				return findings("%v", err)
			}
			return writeJSON(a.stdout, item.Describe(it, md))
		},
	}
	cmd.Flags().StringVar(&destination, "destination", "", "copy the item into `SPACE` (project or user)")
	cmd.RegisterFlagCompletionFunc("destination", fixedValues("project", "user"))
	cmd.Flags().BoolVar(&force, "force", false, "with --destination: overwrite an existing file")
	cmd.Flags().BoolVar(&noVerify, "no-verify", false, "print the item even if it does not verify (labelled on stderr)")
	return cmd
}

// loadRequest turns "KIND ID" and the flags into a request of the load
// pipeline (project.LoadRequest). Bad kinds, ids and destinations are
// usage errors (exit 2).
func (a *app) loadRequest(kindArg, idArg, destination string, force bool) (verify.LoadRequest, error) {
	k, id, err := item.ParseKindID(kindArg, idArg)
	if err != nil {
		return verify.LoadRequest{}, usageError("%v", err)
	}
	p, err := a.open(project.Options{})
	if err != nil {
		return verify.LoadRequest{}, err
	}
	a.warnTrust(p)
	req, err := p.LoadRequest(k, id, destination, force)
	if err != nil {
		return req, a.requestError(err)
	}
	return req, nil
}

// loadError maps a failed load: an unknown item and a refused copy are
// usage errors (exit 2), an unreadable item a finding (exit 1).
func loadError(err error) error {
	var ce *verify.CopyError
	if errors.As(err, &ce) {
		if ce.Exists {
			return usageError("%s already exists (use --force to overwrite it)", ce.Path)
		}
		return asUsage(err)
	}
	return resolveError(err)
}

func writeJSON(w interface{ Write([]byte) (int, error) }, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// reportCopy says where an item was copied and which copy now wins.
func (a *app) reportCopy(l *verify.Loaded) error {
	a.info("copied %s to %s", l.Item.Path, l.CopiedTo)
	if l.Shadows {
		a.info("it now shadows the %s copy; sign it there: rye sign %s %s", l.Loc.Space.Name, l.Loc.Kind, l.Loc.ID)
	} else {
		a.info("the %s copy still takes precedence over it", l.Loc.Space.Name)
	}
	if a.json {
		return writeJSON(a.stdout, map[string]string{"kind": string(l.Loc.Kind), "id": string(l.Loc.ID), "from": l.Item.Path, "to": l.CopiedTo})
	}
	return nil
}
