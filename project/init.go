package project

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ryekit/rye/config"
)

// gitattributes keeps git from rewriting line endings in signed files
// (spec 2.3): core.autocrlf would otherwise break v2 signatures.
const gitattributes = "# Signed items must stay byte for byte as signed: no line-ending conversion.\n* -text\n"

// Init creates what is missing of a project's layout (rye init) in dir,
// or in root when it is given (relative to dir): .ai/ with its
// directives, tools, knowledge, trusted_keys and config folders,
// .ai/.gitattributes and .ai/config/rye.yaml. Existing files are left
// alone. It returns the root and what it created, relative to it.
func Init(dir, root string) (string, []string, error) {
	switch {
	case root == "":
		root = dir
	case !filepath.IsAbs(root):
		root = filepath.Join(dir, root)
	}
	created, err := initAt(root)
	return root, created, err
}

func initAt(root string) ([]string, error) {
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
