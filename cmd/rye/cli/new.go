package cli

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ryekit/rye/confine"
	"github.com/ryekit/rye/gitrepo"
	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/project"
	"github.com/ryekit/rye/scaffold"
)

func (a *app) newCommand() *cobra.Command {
	var lang, description string
	var force, noSandbox bool
	cmd := &cobra.Command{
		Use:   "new tool|directive|knowledge ID",
		Short: "Start an item from a template that lints clean, signs and runs",
		Long: `rye new writes a new item into the project from a template: a tool
(--lang python, shell or node), a directive or a knowledge entry. Each is a
small working item that shows its kind's contract (for tools, how the
parameters arrive and what the tool prints: docs/tools.md); sign it, and it
lints clean and runs. The directive's author is your git identity. A tool
declares a sandbox block (no network, no subprocess), so that it runs
confined; --no-sandbox leaves it out, for a system that cannot confine.`,
		Args:              cobra.ExactArgs(2),
		ValidArgsFunction: positional(words("tool", "directive", "knowledge")),
		RunE: func(cmd *cobra.Command, args []string) error {
			k, id, err := item.ParseKindID(args[0], args[1])
			if err != nil {
				return usageError("%v", err)
			}
			if k != item.Tool && cmd.Flags().Changed("lang") {
				return usageError("--lang is for tools: a %s is Markdown", k)
			}
			_, sp, err := a.openSpace(project.Options{SpacesOnly: true}, false)
			if err != nil {
				return err
			}
			o := scaffold.Options{Lang: lang, Description: description, Author: gitrepo.Owner(a.workDir(), os.Getenv), Force: force, NoSandbox: noSandbox}
			shown, err := scaffold.Write(sp, k, id, o)
			if err != nil {
				return usageError("%v", err)
			}
			fmt.Fprintln(a.stdout, shown)
			run := map[item.Kind]string{item.Tool: " --name Ada", item.Directive: " --name Ada", item.Knowledge: ""}[k]
			a.info("created %s %s; sign it, then run it: rye sign %s %s && rye execute %s %s%s", k, id, k, id, k, id, run)
			if err := confine.Check(confine.Probe(), confine.Needs{}); k == item.Tool && !noSandbox && err != nil {
				a.info("this system cannot confine tools, so rye execute here refuses one that declares a sandbox block (%v); rye new --no-sandbox writes the tool without one", err)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&lang, "lang", "python", "a tool's `LANGUAGE`: "+strings.Join(scaffold.LangNames(), ", "))
	cmd.Flags().StringVar(&description, "description", "", "the item's description (one line)")
	cmd.Flags().BoolVar(&force, "force", false, "replace an existing file of the same id and form")
	cmd.Flags().BoolVar(&noSandbox, "no-sandbox", false, "write a tool without its sandbox block (it then runs unconfined)")
	cmd.RegisterFlagCompletionFunc("lang", fixedValues(scaffold.LangNames()...))
	return cmd
}
