package cli

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/ryekit/rye/config"
)

// gitattributes keeps git from rewriting line endings in signed files
// (spec 2.3): core.autocrlf would otherwise break v2 signatures.
const gitattributes = "# Signed items must stay byte for byte as signed: no line-ending conversion.\n* -text\n"

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
			root := a.workDir()
			if a.projectDir != "" {
				root = a.projectDir
				if len(a.dirs) == 1 && !filepath.IsAbs(root) {
					root = filepath.Join(a.workDir(), root)
				}
			}
			created, err := initProject(root)
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

// initProject creates what is missing of a project layout under root and
// returns what it created, relative to root.
func initProject(root string) ([]string, error) {
	var created []string
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, err
	}
	for _, dir := range []string{".ai", ".ai/directives", ".ai/tools", ".ai/knowledge", ".ai/trusted_keys", ".ai/config"} {
		p := filepath.Join(root, filepath.FromSlash(dir))
		if info, err := os.Lstat(p); err == nil {
			if !info.IsDir() {
				return created, &fs.PathError{Op: "init", Path: p, Err: errors.New("exists and is not a directory")}
			}
			continue
		}
		if err := os.Mkdir(p, 0o755); err != nil {
			return created, err
		}
		created = append(created, dir+"/")
	}
	files := []struct{ path, content string }{
		{".ai/.gitattributes", gitattributes},
		{config.Path, config.Default},
	}
	for _, f := range files {
		p := filepath.Join(root, filepath.FromSlash(f.path))
		file, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return created, err
		}
		_, werr := file.WriteString(f.content)
		if cerr := file.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return created, werr
		}
		created = append(created, f.path)
	}
	return created, nil
}
