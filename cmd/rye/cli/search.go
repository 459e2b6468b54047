package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ryekit/rye/search"
)

func (a *app) searchCommand() *cobra.Command {
	var limit int
	var noCache bool
	cmd := &cobra.Command{
		Use:   "search SCOPE QUERY...",
		Short: "Search items by name, title, description, category and body",
		Long: `rye search ranks the items of every space with BM25 over their name, title,
description, category and body (weights from the extractor rule files).

SCOPE is a kind with an optional namespace, written as ids are: tool,
tool/my-project/*, my-project/* (every kind), knowledge, all; the dotted
tool.my-project.* works too. QUERY is one or more words; a word matches the
same word, a word with the same stem (greeting finds greet) and, from three
letters, a word it starts (deplo finds deployment); a word ending in *
matches every word it starts; "*" alone lists everything in scope. The index
is cached in the user cache directory and refreshed file by file; --no-cache
rebuilds it in memory. See docs/search.md.`,
		Args: func(cmd *cobra.Command, args []string) error {
			switch len(args) {
			case 0:
				return usageError("rye search needs a SCOPE and a QUERY, e.g. rye search tool deploy (SCOPE: tool, directive, knowledge or all, with an optional namespace: tool/my-project/*)")
			case 1:
				return usageError("rye search %s: no QUERY: give the words to look for, e.g. rye search %s deploy (\"*\" lists everything in scope)", args[0], args[0])
			}
			return nil
		},
		ValidArgsFunction: positional(words("tool", "directive", "knowledge", "all")),
		RunE: func(cmd *cobra.Command, args []string) error {
			query := strings.Join(args[1:], " ")
			ss, err := a.spaces()
			if err != nil {
				return err
			}
			req, err := search.Over(ss, !noCache)
			if err != nil {
				return asUsage(err)
			}
			req.Scope, req.Query, req.Limit = args[0], query, limit
			res, err := search.Run(req)
			var re *search.RequestError
			switch {
			case errors.As(err, &re):
				return usageError("%v", err)
			case err != nil:
				return findings("%v", err)
			}
			if a.json {
				return writeJSON(a.stdout, map[string]any{"scope": args[0], "query": query, "total": res.Total, "results": nonNil(res.Results)})
			}
			for _, r := range res.Results {
				desc := r.Description
				if desc == "" {
					desc = r.Title
				}
				fmt.Fprintf(a.stdout, "%-9s  %-40s  %-7s  %6.3f  %s\n", r.Kind, r.ID, r.Space, r.Score, oneLine(desc))
			}
			if res.Total > len(res.Results) {
				a.info("%d of %d results shown (use --limit)", len(res.Results), res.Total)
			} else if res.Total == 0 {
				a.info("no results for %q in %s", query, args[0])
			}
			return nil
		},
	}
	cmd.Flags().IntVar(&limit, "limit", 10, "show at most `N` results (0: all)")
	cmd.Flags().BoolVar(&noCache, "no-cache", false, "do not read or write the index cache")
	return cmd
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}
