package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/ryekit/rye/internal/atomicfile"
	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/item/syntax"
	"github.com/ryekit/rye/space"
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
		ValidArgsFunction: a.completeKindAndID,
		RunE: func(cmd *cobra.Command, args []string) error {
			loc, err := a.resolveArgs(args[0], args[1])
			if err != nil {
				return err
			}
			if destination != "" {
				return a.copyItem(loc, destination, force)
			}
			it, err := loc.Load()
			if err != nil {
				return findings("%v", err)
			}
			r, err := a.verifyItem(loc, it)
			if err != nil {
				return err
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
			return writeJSON(a.stdout, loadJSON(it, md))
		},
	}
	cmd.Flags().StringVar(&destination, "destination", "", "copy the item into `SPACE` (project or user)")
	cmd.RegisterFlagCompletionFunc("destination", fixedValues("project", "user"))
	cmd.Flags().BoolVar(&force, "force", false, "with --destination: overwrite an existing file")
	cmd.Flags().BoolVar(&noVerify, "no-verify", false, "print the item even if it does not verify (labelled on stderr)")
	return cmd
}

// verifyItem verifies one loaded item against the trust store of the
// working tree, under the configured policy.
func (a *app) verifyItem(loc *space.Located, it *item.Item) (verify.Result, error) {
	v, err := a.verification(&verifyOptions{}, false)
	if err != nil {
		return verify.Result{}, err
	}
	a.warnTrust(v)
	in := verify.Input{Kind: it.Kind, ID: it.ID, Space: loc.Space.Label, Path: it.Path, Embedded: loc.Space.Embedded(), Data: it.Bytes}
	return verify.Check(in, v.trust, v.policy), nil
}

// resolveArgs turns "KIND ID" from the command line into a located item.
// Bad kinds and ids and unknown items are usage errors (exit 2).
func (a *app) resolveArgs(kindArg, idArg string) (*space.Located, error) {
	k, err := item.ParseKind(kindArg)
	if err != nil {
		return nil, usageError("%v", err)
	}
	id, err := item.ParseID(idArg)
	if err != nil {
		return nil, usageError("%v", err)
	}
	ss, err := a.getSpaces()
	if err != nil {
		return nil, err
	}
	loc, err := ss.Resolve(k, id, nil)
	if err != nil {
		return nil, resolveError(err)
	}
	return loc, nil
}

// loadOutput is the --json document of rye load (documented in docs/json.md).
type loadOutput struct {
	Kind     item.Kind    `json:"kind"`
	ID       item.ID      `json:"id"`
	Space    string       `json:"space"`
	Path     string       `json:"path"`
	Form     item.Form    `json:"form"`
	Metadata *syntax.Node `json:"metadata"`
	Body     *string      `json:"body,omitempty"`
	Preamble *string      `json:"preamble,omitempty"`
	Problems []jsonError  `json:"problems"`
}

type jsonError struct {
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
}

func loadJSON(it *item.Item, md *item.Metadata) loadOutput {
	out := loadOutput{Kind: it.Kind, ID: it.ID, Space: it.Space, Path: it.Path, Form: md.Form, Metadata: md.Fields, Problems: []jsonError{}}
	if md.Form != item.FormYAMLFile && md.Form != item.FormPython && md.Form != item.FormTOMLFile {
		out.Body = &md.Body
	}
	if it.Kind == item.Directive {
		out.Preamble = &md.Preamble
	}
	for _, p := range md.Problems {
		out.Problems = append(out.Problems, jsonError{Line: p.Pos.Line, Column: p.Pos.Col, Field: p.Field, Message: p.Msg})
	}
	return out
}

func writeJSON(w interface{ Write([]byte) (int, error) }, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// copyItem copies a located item into another space at the same path.
func (a *app) copyItem(loc *space.Located, destination string, force bool) error {
	dest, err := a.writableSpace("--destination", destination)
	if err != nil {
		return err
	}
	if loc.Space.Name == dest.Name {
		return usageError("%s %s is already in the %s space (%s)", loc.Kind, loc.ID, dest.Name, loc.Path())
	}
	it, err := loc.Load()
	if err != nil {
		return findings("%v", err)
	}
	target := filepath.Join(dest.AI(), filepath.FromSlash(loc.Rel))
	if _, err := os.Lstat(target); err == nil && !force {
		return usageError("%s already exists (use --force to overwrite it)", target)
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return asUsage(err)
	}
	if err := atomicfile.WriteFile(target, it.Bytes, 0o644); err != nil {
		return asUsage(err)
	}
	a.info("copied %s to %s", it.Path, target)
	if dest.Name.Rank() > loc.Space.Name.Rank() {
		a.info("it now shadows the %s copy; sign it there: rye sign %s %s", loc.Space.Name, loc.Kind, loc.ID)
	} else {
		a.info("the %s copy still takes precedence over it", loc.Space.Name)
	}
	if a.json {
		return writeJSON(a.stdout, map[string]string{"kind": string(loc.Kind), "id": string(loc.ID), "from": it.Path, "to": target})
	}
	return nil
}
