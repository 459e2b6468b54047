package cli

import (
	"bytes"
	_ "embed"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/space"
)

func (a *app) completionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "completion bash|zsh|fish|powershell",
		Short: "Print a shell completion script",
		Long: `rye completion prints a completion script for your shell. It completes verbs,
flags and their values (--format, --space, --output, analyzers, ...), item
kinds, and the ids of the items each verb can act on: verify, check, lint
and sign the project's items (sign --space user: yours), load every space's,
execute the tools you can run (not the extractor rule files).

  bash:  source <(rye completion bash)          # in ~/.bashrc
  zsh:   rye completion zsh > "${fpath[1]}/_rye"
  fish:  rye completion fish > ~/.config/fish/completions/rye.fish
  powershell:  rye completion powershell | Out-String | Invoke-Expression   # in $PROFILE

The bash script works in a bare bash (4 or later): it uses the
bash-completion package's helpers when they are loaded and brings minimal
ones of its own otherwise. zsh needs compinit (autoload -U compinit;
compinit), which most setups run. PowerShell (5.1 or 7) shows each
candidate's description in its menu (Tab; MenuComplete shows them all).`,
		Args:      cobra.ExactArgs(1),
		ValidArgs: []string{"bash", "zsh", "fish", "powershell"},
		RunE: func(cmd *cobra.Command, args []string) error {
			root := cmd.Root()
			switch args[0] {
			case "bash":
				var b bytes.Buffer
				if err := root.GenBashCompletionV2(&b, true); err != nil {
					return err
				}
				fmt.Fprint(a.stdout, bashFallbacks)
				_, err := a.stdout.Write(b.Bytes())
				return err
			case "zsh":
				return root.GenZshCompletion(a.stdout)
			case "fish":
				return root.GenFishCompletion(a.stdout, true)
			case "powershell":
				return root.GenPowerShellCompletionWithDesc(a.stdout)
			}
			return usageError("unknown shell %q: use bash, zsh, fish or powershell", args[0])
		},
	}
}

// bashFallbacks are the two helpers of the bash-completion package that
// cobra's bash script calls, defined only when that package has not
// defined them, so that completion works in a bare bash. Words are split
// at blanks only (as bash-completion's -n =: does), from the line up to
// the cursor.
//
//go:embed completion_fallbacks.bash
var bashFallbacks string

// fixedValues completes a flag from a fixed list.
func fixedValues(values ...string) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		return values, cobra.ShellCompDirectiveNoFileComp
	}
}

// idFilter says which items a verb can act on, given its flags: the spaces
// to look in and the ids to leave out.
type idFilter func(cmd *cobra.Command, ss *space.Spaces) (in []*space.Space, skip func(item.Kind, item.ID) bool)

// allItems: every space (load).
func allItems(cmd *cobra.Command, ss *space.Spaces) ([]*space.Space, func(item.Kind, item.ID) bool) {
	return ss.All(), nil
}

// projectItems: the space --space names (verify; sign: project or user),
// the project by default (check, lint).
func projectItems(cmd *cobra.Command, ss *space.Spaces) ([]*space.Space, func(item.Kind, item.ID) bool) {
	name := "project"
	if f := cmd.Flags().Lookup("space"); f != nil {
		name = f.Value.String()
	}
	in, err := ss.Named(name)
	if err != nil {
		return nil, nil
	}
	return in, nil
}

// runnableTools: every space, without the extractor rule files (execute,
// lock).
func runnableTools(cmd *cobra.Command, ss *space.Spaces) ([]*space.Space, func(item.Kind, item.ID) bool) {
	return ss.All(), func(k item.Kind, id item.ID) bool { return k == item.Tool && space.IsExtractor(id) }
}

// completer lists the candidates for one argument.
type completer func(cmd *cobra.Command, args []string, toComplete string) []string

// positional completes the i-th argument with the i-th completer, and
// nothing (not even files) past the last.
func positional(cs ...completer) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if len(args) < len(cs) {
			return cs[len(args)](cmd, args, toComplete), cobra.ShellCompDirectiveNoFileComp
		}
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
}

// words completes an argument from a fixed list.
func words(ws ...string) completer {
	return func(*cobra.Command, []string, string) []string { return ws }
}

// ids completes the ids of kind k among the items filter picks.
func (a *app) ids(filter idFilter, k item.Kind) completer {
	return func(cmd *cobra.Command, _ []string, toComplete string) []string {
		return a.itemIDs(cmd, filter, []item.Kind{k}, toComplete)
	}
}

// completeKindAndID completes "KIND ID" arguments: the kind first, then the
// ids of that kind found in every space.
func (a *app) completeKindAndID() cobra.CompletionFunc {
	return positional(words("directive", "tool", "knowledge"), func(cmd *cobra.Command, args []string, toComplete string) []string {
		k, err := item.ParseKind(args[0])
		if err != nil {
			return nil
		}
		return a.ids(allItems, k)(cmd, args, toComplete)
	})
}

// itemIDs lists the ids of the given kinds that start with prefix, in the
// spaces filter picks, without duplicates, in order.
func (a *app) itemIDs(cmd *cobra.Command, filter idFilter, kinds []item.Kind, prefix string) []string {
	ss, err := a.spaces()
	if err != nil {
		return nil
	}
	in, skip := filter(cmd, ss)
	return space.IDs(in, kinds, prefix, skip)
}

// completeKindOrID completes "[KIND] PATTERN...": kinds and ids first,
// then the ids of the given kind, of the items filter picks.
func (a *app) completeKindOrID(filter idFilter) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		kinds := item.Kinds
		if len(args) > 0 {
			if k, err := item.ParseKind(args[0]); err == nil {
				kinds = []item.Kind{k}
			}
		}
		var out []string
		if len(args) == 0 {
			out = append(out, "directive", "tool", "knowledge")
		}
		return append(out, a.itemIDs(cmd, filter, kinds, toComplete)...), cobra.ShellCompDirectiveNoFileComp
	}
}
