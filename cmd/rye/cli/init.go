package cli

import (
	"github.com/spf13/cobra"

	"github.com/ryekit/rye/project"
)

func (a *app) initCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "init",
		Short: "Create the .ai/ folders, .gitattributes and the configuration file",
		Long: `rye init makes the current directory (or -C DIR, or --project DIR) a RYE
project: .ai/directives, .ai/tools, .ai/knowledge, .ai/trusted_keys,
.ai/.gitattributes and .ai/config/rye.yaml. Existing files are left alone,
so running it again only adds what is missing.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			root, created, err := project.Init(a.workDir(), a.projectDir)
			for _, p := range created {
				a.info("created %s", p)
			}
			if err != nil {
				return asUsage(err)
			}
			if len(created) == 0 {
				a.info("%s is already a rye project; nothing to do", root)
			}
			return nil
		},
	}
}
