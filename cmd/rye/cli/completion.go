package cli

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/ryekit/rye/item"
)

func (a *app) completionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "completion bash|zsh|fish",
		Short: "Print a shell completion script",
		Long: `rye completion prints a completion script for your shell. It completes verbs,
flags, item kinds and the ids of the items in your spaces, e.g.

  bash:  source <(rye completion bash)
  zsh:   rye completion zsh > "${fpath[1]}/_rye"
  fish:  rye completion fish > ~/.config/fish/completions/rye.fish`,
		Args:      cobra.ExactArgs(1),
		ValidArgs: []string{"bash", "zsh", "fish"},
		RunE: func(cmd *cobra.Command, args []string) error {
			root := cmd.Root()
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(a.stdout, true)
			case "zsh":
				return root.GenZshCompletion(a.stdout)
			case "fish":
				return root.GenFishCompletion(a.stdout, true)
			}
			return usageError("unknown shell %q: use bash, zsh or fish", args[0])
		},
	}
}

// completeKindAndID completes "KIND ID" arguments: the kind first, then the
// ids of that kind found in every space.
func (a *app) completeKindAndID(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	switch len(args) {
	case 0:
		return []string{"directive", "tool", "knowledge"}, cobra.ShellCompDirectiveNoFileComp
	case 1:
		k, err := item.ParseKind(args[0])
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return a.itemIDs([]item.Kind{k}, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
	return nil, cobra.ShellCompDirectiveNoFileComp
}

// itemIDs lists the ids of the given kinds in all spaces that start with
// prefix, without duplicates, in order.
func (a *app) itemIDs(kinds []item.Kind, prefix string) []string {
	ss, err := a.getSpaces()
	if err != nil {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, sp := range ss.All() {
		found, _, err := sp.Walk(kinds)
		if err != nil {
			continue
		}
		for _, f := range found {
			id := string(f.ID)
			if strings.HasPrefix(id, prefix) && !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
		}
	}
	return out
}

// completeKindOrID completes "[KIND] PATTERN...": kinds and ids first,
// then the ids of the given kind.
func (a *app) completeKindOrID(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
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
	return append(out, a.itemIDs(kinds, toComplete)...), cobra.ShellCompDirectiveNoFileComp
}
