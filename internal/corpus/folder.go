package corpus

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
)

// Folder writes n tools into one folder, root/.ai/tools/ns/ (Python, YAML
// and shell in turn, as Generate writes them), and returns their paths
// relative to root, in the order written: a folder as large as a
// benchmark asks, which Generate spreads over many.
func Folder(root, ns string, n int, seed uint64) ([]string, error) {
	r := rand.New(rand.NewPCG(seed, 2))
	var rels []string
	for i := range n {
		name := fmt.Sprintf("item_%05d", i)
		var rel, content string
		switch i % 3 {
		case 0:
			rel, content = pythonTool(r, ns, name)
		case 1:
			rel, content = yamlTool(r, ns, name)
		default:
			rel, content = shellTool(r, ns, name)
		}
		full := filepath.Join(root, ".ai", filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			return nil, err
		}
		rels = append(rels, filepath.ToSlash(filepath.Join(".ai", rel)))
	}
	return rels, nil
}
