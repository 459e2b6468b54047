package item

import (
	"bytes"
	"fmt"
	"path"
	"slices"
	"strings"
	"unicode/utf8"
)

// This file is the table of a RyeOS 0.2+ tree (spec 7.1): its fifteen
// kinds, the folder and file forms of each, and the rules that give an
// item its identity from its path (spec 7.3). RyeOS declares all of it as
// data (its kind schemas); rye carries the table of the release the
// specification was read from.

// The kinds RyeOS 0.2 added. rye verifies and lints them; it loads and
// runs none of them.
const (
	Config   Kind = "config"
	Node     Kind = "node"
	Handler  Kind = "handler"
	parser   Kind = "parser"
	protocol Kind = "protocol"
	Runtime  Kind = "runtime"
	Service  Kind = "service"
	Graph    Kind = "graph"
	Client   Kind = "client"
	Surface  Kind = "surface"
	View     Kind = "view"
	// StreamingTool shares tools/ with Tool: the same files, read once and
	// reported as tools (spec 7.1). It is named here for its executor
	// aliases (spec 7.4).
	StreamingTool Kind = "streaming_tool"
	// BundleManifest is .ai/manifest.yaml, a signed file that is not an
	// item (spec 7.1).
	BundleManifest Kind = "bundle-manifest"
)

// ManifestRel is where a RyeOS bundle manifest sits, below .ai/.
const ManifestRel = "manifest.yaml"

// RyeOSKinds are the kinds a RyeOS 0.2+ tree holds, in the order rye
// reports them: rye's three, then the others by folder, then the bundle
// manifest.
var RyeOSKinds = []Kind{Directive, Tool, Knowledge, Client, Config, Graph, Handler, Node, parser, protocol, Runtime, Service, Surface, View, BundleManifest}

// parserName is a parser of spec 7.2.2.
type parserName string

const (
	parseYAML        parserName = "yaml/yaml"
	parseDirective   parserName = "markdown/directive"
	parseFrontMatter parserName = "markdown/frontmatter"
	parseToolHeader  parserName = "python/tool-header"
	parseJavaScript  parserName = "javascript/javascript"
)

// ryeosForm is one file form of a kind: an extension and its parser.
type ryeosForm struct {
	ext    string
	parser parserName
}

// rule is one metadata rule of a kind schema (spec 7.3): where a field's
// value comes from, whether it must be there, and what it must equal.
type rule struct {
	field    string
	from     string // "filename", "relative_dir" or "key" (path + key)
	required bool
	match    string // "", "filename" or "path"
}

// ryeosKind is one row of the table of spec 7.1 and 7.3.
type ryeosKind struct {
	folder   string
	forms    []ryeosForm // in precedence order
	excluded []string    // folder names that hold no item (tools: lib, __pycache__)
	rules    []rule      // sorted by field: RyeOS checks them in that order
}

var (
	nameFromFile    = rule{field: "name", from: "filename"}
	categoryFromDir = rule{field: "category", from: "relative_dir"}
	anchoredName    = rule{field: "name", from: "filename", match: "filename"}
	anchoredCat     = rule{field: "category", from: "key", required: true, match: "path"}
	keyedName       = rule{field: "name", from: "key", required: true, match: "filename"}
	yamlForms       = []ryeosForm{{".yaml", parseYAML}, {".yml", parseYAML}}
)

func requiredKey(field string) rule { return rule{field: field, from: "key", required: true} }

var ryeosKinds = map[Kind]*ryeosKind{
	Directive: {folder: "directives", forms: []ryeosForm{{".md", parseDirective}}, rules: []rule{categoryFromDir, nameFromFile}},
	Knowledge: {folder: "knowledge", forms: []ryeosForm{{".md", parseFrontMatter}, {".yaml", parseYAML}, {".yml", parseYAML}}, rules: []rule{categoryFromDir, nameFromFile}},
	Tool: {folder: "tools", excluded: []string{"lib", "__pycache__"}, rules: []rule{anchoredCat, anchoredName}, forms: []ryeosForm{
		{".py", parseToolHeader}, {".yaml", parseYAML}, {".yml", parseYAML},
		{".js", parseJavaScript}, {".ts", parseJavaScript}, {".mjs", parseJavaScript}, {".cjs", parseJavaScript},
		{".json", parseYAML},
	}},
	Config:   {folder: "config", forms: yamlForms, rules: []rule{anchoredCat, anchoredName}},
	Node:     {folder: "node", forms: yamlForms, rules: []rule{nameFromFile}},
	Handler:  {folder: "handlers", forms: yamlForms, rules: []rule{requiredKey("abi_version"), requiredKey("binary_ref"), anchoredCat, keyedName, requiredKey("serves")}},
	parser:   {folder: "parsers", forms: []ryeosForm{{".yaml", parseYAML}}, rules: []rule{anchoredCat, anchoredName}},
	protocol: {folder: "protocols", forms: yamlForms, rules: []rule{requiredKey("abi_version"), anchoredCat, keyedName}},
	Runtime:  {folder: "runtimes", forms: yamlForms},
	Service:  {folder: "services", forms: yamlForms, rules: []rule{categoryFromDir, nameFromFile}},
	Graph:    {folder: "graphs", forms: yamlForms, rules: []rule{categoryFromDir, nameFromFile}},
	Client:   {folder: "clients", forms: yamlForms, rules: []rule{categoryFromDir, nameFromFile}},
	Surface:  {folder: "surfaces", forms: yamlForms, rules: []rule{categoryFromDir, nameFromFile}},
	View:     {folder: "views", forms: yamlForms},
}

// RyeOSOnlyFolders are the folders below .ai/ that only a RyeOS 0.2+ tree
// has (spec 7.5: config/ is left out, since RYE OS projects of every era
// have one).
var RyeOSOnlyFolders = []string{"node", "services", "handlers", "parsers", "protocols", "runtimes", "graphs", "clients", "surfaces", "views"}

// RyeOSFolder is the folder below .ai/ of a kind in a RyeOS 0.2+ tree (""
// for the bundle manifest, which is one file).
func RyeOSFolder(k Kind) string {
	if rk := ryeosKinds[k]; rk != nil {
		return rk.folder
	}
	return ""
}

// RyeOSExtensions are the file forms of a kind in a RyeOS 0.2+ tree, in
// precedence order (spec 7.1).
func RyeOSExtensions(k Kind) []string {
	rk := ryeosKinds[k]
	if rk == nil {
		return nil
	}
	out := make([]string, len(rk.forms))
	for i, f := range rk.forms {
		out[i] = f.ext
	}
	return out
}

// RyeOSHasExtension reports whether ext is a file form of k in a RyeOS
// 0.2+ tree.
func RyeOSHasExtension(k Kind, ext string) bool {
	_, ok := ryeosFormOf(k, ext)
	return ok
}

func ryeosFormOf(k Kind, ext string) (ryeosForm, bool) {
	if rk := ryeosKinds[k]; rk != nil {
		for _, f := range rk.forms {
			if f.ext == ext {
				return f, true
			}
		}
	}
	return ryeosForm{}, false
}

// RyeOSExcluded reports whether a folder name below kind k's folder holds
// no items of k (tools/**/lib/ and __pycache__/: the support files of
// RyeOS tools).
func RyeOSExcluded(k Kind, name string) bool {
	rk := ryeosKinds[k]
	return rk != nil && slices.Contains(rk.excluded, name)
}

// RyeOSKindOfFolder is the kind whose items a folder below .ai/ holds in a
// RyeOS 0.2+ tree.
func RyeOSKindOfFolder(folder string) (Kind, bool) {
	for _, k := range RyeOSKinds {
		if rk := ryeosKinds[k]; rk != nil && rk.folder == folder {
			return k, true
		}
	}
	return "", false
}

// IsRyeOSOnly reports a kind that rye's own projects do not have: the
// kinds RyeOS 0.2 added and the bundle manifest.
func (k Kind) IsRyeOSOnly() bool {
	return k == BundleManifest || (ryeosKinds[k] != nil && !k.Valid())
}

// ParseRyeOSID validates the path of a RyeOS item below its kind folder,
// without the extension, as an id: RyeOS takes any path whose parts do
// not start with '.' (spec 7.1), so rye accepts any part but the empty
// one, "." and "..", a backslash and control characters (which could
// corrupt a terminal); the result still cannot leave its space when
// joined to it.
func ParseRyeOSID(s string) (ID, error) {
	if s == "" {
		return "", fmt.Errorf("invalid item id: empty")
	}
	if len(s) > maxIDLen {
		return "", fmt.Errorf("invalid item id %q: %d bytes, at most %d allowed", abbreviate(s), len(s), maxIDLen)
	}
	if !utf8.ValidString(s) {
		return "", fmt.Errorf("invalid item id %q: not UTF-8", printable(s))
	}
	for i, seg := range strings.Split(s, "/") {
		switch {
		case seg == "":
			return "", fmt.Errorf("invalid item id %q: segment %d is empty (a leading, trailing or doubled '/')", printable(s), i+1)
		case seg == "." || seg == ".." || strings.HasPrefix(seg, "."):
			return "", fmt.Errorf("invalid item id %q: segment %d starts with '.', which RyeOS never reads", printable(s), i+1)
		case strings.ContainsRune(seg, '\\'):
			return "", fmt.Errorf("invalid item id %q: segment %d holds a backslash", printable(s), i+1)
		case strings.ContainsFunc(seg, func(r rune) bool { return r < 0x20 || r == 0x7f }):
			return "", fmt.Errorf("invalid item id %q: segment %d holds a control character", printable(s), i+1)
		}
	}
	return ID(s), nil
}

// identity is an item's name and category as RyeOS derives them (spec
// 7.3): from the path for most kinds, from declared keys that must agree
// with the path for the anchored ones.
type identity struct {
	// Name is the file stem, or the declared name of a handler or protocol
	// when it is the stem.
	Name string
	// Category is the folder below the kind folder ("" at its root); for a
	// node item it is empty and Section is set.
	Category string
	// Section is a node item's first folder below node/.
	Section string
}

// Ref is an item's canonical ref, kind:bare_id (spec 7.3), as RyeOS names
// it; a tool is named as a tool.
func (id ID) Ref(k Kind) string { return string(k) + ":" + string(id) }

// RyeOSItemAt classifies a file below .ai/ (rel, '/'-separated) as RyeOS
// 0.2+ enumerates items (spec 7.1): the kind whose folder holds it, its
// id (the path below the folder without the extension) and extension.
// ok is false for a file RyeOS does not read as an item: a part that
// starts with '.', a folder the kind excludes (tools/**/lib/,
// __pycache__/), an extension the kind does not declare, and rye's own
// configuration file (config/rye.yaml, docs/eras.md). The key material
// below config/keys/ (.toml, .pub, .key, .pem) has no config form; a
// .yaml or .yml file there is a config item, as RyeOS reads it.
// .ai/manifest.yaml is the bundle manifest.
func RyeOSItemAt(rel string) (k Kind, id ID, ext string, ok bool) {
	if rel == ManifestRel {
		return BundleManifest, "manifest", ".yaml", true
	}
	folder, rest, found := strings.Cut(rel, "/")
	if !found {
		return "", "", "", false
	}
	k, known := RyeOSKindOfFolder(folder)
	if !known {
		return "", "", "", false
	}
	parts := strings.Split(rest, "/")
	for _, p := range parts[:len(parts)-1] {
		if RyeOSExcluded(k, p) {
			return "", "", "", false
		}
	}
	if k == Config && rest == "rye.yaml" {
		return "", "", "", false
	}
	ext = path.Ext(rest)
	if !RyeOSHasExtension(k, ext) {
		return "", "", "", false
	}
	id, err := ParseRyeOSID(strings.TrimSuffix(rest, ext))
	if err != nil {
		return "", "", "", false
	}
	return k, id, ext, true
}

// RyeOSForm reports whether an item of rye's three kinds is written in a
// form only RyeOS 0.2+ writes (spec 6.4), so that it is read with RyeOS's
// rules whatever signs it: a directive whose first line after the
// signature line is --- and that has no ```xml block; a Python tool with a
// # ryeos-tool: header; and, read from md (rye's reading of the file, nil
// when it does not parse), a knowledge page whose front matter has no id
// or title but a category, tags, a version or a description, or a YAML
// tool whose executor_id is an alias (@...), or that declares
// required_caps or a command "bin:...".
func RyeOSForm(k Kind, ext string, src []byte, md *Metadata) bool {
	start := afterSignature(src, ext)
	switch {
	case k == Directive && ext == ".md":
		first := lineEnd(src, start)
		return isDashes(src[start:first]) && !bytes.Contains(src, []byte("```xml"))
	case k == Tool && ext == ".py":
		off := start
		for off < len(src) {
			next := lineEnd(src, off)
			line := bytes.TrimSpace(src[off:next])
			switch {
			case len(line) == 0:
				off = next
				continue
			case bytes.HasPrefix(line, []byte("#")):
				return string(bytes.TrimSpace(line[1:])) == "ryeos-tool:"
			}
			return false
		}
	case md == nil:
	case k == Knowledge && md.Form == formFrontMatter:
		if md.Get("id") != nil || md.Get("title") != nil {
			return false
		}
		for _, f := range []string{"category", "tags", "version", "description"} {
			if md.Get(f) != nil {
				return true
			}
		}
	case k == Tool && md.Form == formYAMLFile:
		return strings.HasPrefix(md.Str("executor_id"), "@") || md.Get("required_caps") != nil || strings.HasPrefix(md.Get("config").Get("command").String(), "bin:") || strings.HasPrefix(md.Str("command"), "bin:")
	}
	return false
}
