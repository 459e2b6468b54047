// Package corpus generates synthetic RYE projects for benchmarks: n items
// of every kind and file form, about 2 KiB each, with valid metadata, in a
// few namespaces. The same seed gives the same files.
package corpus

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// words feed the generated descriptions and bodies, so that search has
// realistic term statistics.
var words = strings.Fields(`deploy release build test lint format check verify sign key trust
	greet user project tool runtime chain directive knowledge search index cache file folder
	python shell node yaml toml json schema parameter input output model limit token spend turn
	git commit branch merge review issue plan step process report summary table error warning
	network http request response retry timeout backoff header body status code result value`)

// Generate writes a project with n items under root (root/.ai/...).
func Generate(root string, n int, seed uint64) error {
	r := rand.New(rand.NewPCG(seed, 1))
	for i := 0; i < n; i++ {
		ns := fmt.Sprintf("ns%02d/group%02d", i%17, i%7)
		name := fmt.Sprintf("item_%05d", i)
		var rel, content string
		switch i % 6 {
		case 0:
			rel, content = directive(r, ns, name)
		case 1:
			rel, content = knowledgeFence(r, ns, name)
		case 2:
			rel, content = pythonTool(r, ns, name)
		case 3:
			rel, content = yamlTool(r, ns, name)
		case 4:
			rel, content = shellTool(r, ns, name)
		default:
			rel, content = knowledgeFrontMatter(r, ns, name)
		}
		full := filepath.Join(root, ".ai", filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func sentence(r *rand.Rand, n int) string {
	s := make([]string, n)
	for i := range s {
		s[i] = words[r.IntN(len(words))]
	}
	return strings.Join(s, " ")
}

// body is about 1.7 KiB of Markdown-ish prose.
func body(r *rand.Rand, prefix string) string {
	var b strings.Builder
	for b.Len() < 1700 {
		b.WriteString(prefix)
		b.WriteString(sentence(r, 12))
		b.WriteString(".\n")
	}
	return b.String()
}

func directive(r *rand.Rand, ns, name string) (string, string) {
	return "directives/" + ns + "/" + name + ".md", fmt.Sprintf("# %s\n\n```xml\n<directive name=%q version=\"1.0.0\">\n  <metadata>\n    <description>%s</description>\n    <category>%s</category>\n    <author>bench</author>\n    <limits turns=\"5\" spend=\"0.5\"/>\n  </metadata>\n  <inputs>\n    <input name=\"target\" type=\"string\" required=\"true\">What to work on</input>\n  </inputs>\n</directive>\n```\n\n%s", name, name, sentence(r, 8), ns, body(r, ""))
}

func knowledgeFence(r *rand.Rand, ns, name string) (string, string) {
	return "knowledge/" + ns + "/" + name + ".md", fmt.Sprintf("```yaml\nid: %s\ntitle: %s\nentry_type: reference\ncategory: %s\nversion: \"1.0.0\"\ntags: [bench, %s]\n```\n\n%s", name, sentence(r, 5), ns, words[r.IntN(len(words))], body(r, ""))
}

func knowledgeFrontMatter(r *rand.Rand, ns, name string) (string, string) {
	return "knowledge/" + ns + "/" + name + ".md", fmt.Sprintf("---\nid: %s\ntitle: %s\nentry_type: guide\ncategory: %s\nversion: \"1.0.0\"\n---\n\n%s", name, sentence(r, 5), ns, body(r, ""))
}

func pythonTool(r *rand.Rand, ns, name string) (string, string) {
	return "tools/" + ns + "/" + name + ".py", fmt.Sprintf("#!/usr/bin/env python3\n\"\"\"%s\"\"\"\n\nimport json\nimport sys\n\n__version__ = \"1.0.0\"\n__tool_type__ = \"python\"\n__executor_id__ = \"rye/core/runtimes/python_script_runtime\"\n__category__ = %q\n__tool_description__ = %q\n\nCONFIG_SCHEMA = {\n    \"type\": \"object\",\n    \"properties\": {\"target\": {\"type\": \"string\", \"default\": \"x\"}},\n}\n\n\ndef execute(params, project_path):\n%s    return {\"success\": True}\n\n\nif __name__ == \"__main__\":\n    print(json.dumps(execute({}, \".\")))\n", sentence(r, 6), ns, sentence(r, 8), body(r, "    # "))
}

func yamlTool(r *rand.Rand, ns, name string) (string, string) {
	return "tools/" + ns + "/" + name + ".yaml", fmt.Sprintf("version: \"1.0.0\"\ntool_type: runtime\nexecutor_id: rye/core/primitives/subprocess\ncategory: %s\ndescription: %s\nconfig:\n  command: echo\n  args: [\"{tool_path}\"]\n%s", ns, sentence(r, 8), body(r, "# "))
}

func shellTool(r *rand.Rand, ns, name string) (string, string) {
	return "tools/" + ns + "/" + name + ".sh", fmt.Sprintf("#!/usr/bin/env bash\n# ---\n# version: \"1.0.0\"\n# tool_type: shell\n# executor_id: rye/core/runtimes/shell_runtime\n# category: %s\n# description: %s\n# ---\n%secho done\n", ns, sentence(r, 8), body(r, "# "))
}
