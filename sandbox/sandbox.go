// Package sandbox reads the sandbox block of a tool's signed metadata: what
// the tool declares it may read, write and connect to, and whether it may
// start other programs. The block is part of the metadata the signature
// covers, so a reviewer settles it with the code.
//
//	sandbox:
//	  filesystem:
//	    read: ["{project}/data"]   # besides the defaults
//	    write: ["{run_dir}"]
//	  network: none               # or ["host:port", ":port", ...]
//	  subprocess: false
//
// Parsing fails closed: an unknown key, a value of the wrong type, a
// relative path, a path that climbs with "..", an unknown placeholder or a
// port out of range is a problem, and a tool whose block has one does not
// run. What a block leaves out is denied: no network key means no network,
// no subprocess key means no subprocess, no filesystem key means the
// defaults only. The executor turns a parsed block into a confinement policy
// (package confine); lint reports the problems at their positions.
//
// The package is separate from the engine (confine) because the engine is
// linked into the small confinement helper, which must not carry rye's
// metadata readers, and from the executor because lint, which may not
// import the executor, checks the same block.
package sandbox

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/ryekit/rye/item/syntax"
)

// Key is the block's metadata field. Python tools write it as the
// module-level __sandbox__ dict, which the Python reader maps to it.
const Key = "sandbox"

// Placeholders a path may start with, and the canonical name of each:
// {project} is accepted for the executor's {project_path}.
var placeholderNames = [...][2]string{
	{"project_path", "project_path"},
	{"project", "project_path"},
	{"tool_dir", "tool_dir"},
	{"user_space", "user_space"},
	{"run_dir", "run_dir"},
	{"home", "home"},
	{"tmp", "tmp"},
}

// placeholder returns the canonical name of a placeholder word, or "".
func placeholder(word string) string {
	for _, p := range placeholderNames {
		if p[0] == word {
			return p[1]
		}
	}
	return ""
}

// placeholderWords lists the words a path may start with, for messages.
func placeholderWords() string {
	words := make([]string, len(placeholderNames))
	for i, p := range placeholderNames {
		words[i] = "{" + p[0] + "}"
	}
	return strings.Join(words, ", ")
}

// Path is one entry of filesystem.read or filesystem.write: a placeholder
// (Var, canonical) or the root (Var ""), and a clean relative part below
// it (Rel, "" for the placeholder's folder itself).
type Path struct {
	Text string // as written
	Var  string // "project_path", "tool_dir", ...; "" for an absolute path
	Rel  string // slash-separated, clean, no leading "/", no ".."
	Node *syntax.Node
}

func (p Path) String() string { return p.Text }

// endpoint is one entry of a network list: ":port" (any host) or
// "host:port" (a named host, which rye cannot enforce without a network
// namespace and a proxy: see confine).
type endpoint struct {
	Text string
	Host string // "" for ":port"
	Port uint16
	Node *syntax.Node
}

// Block is a parsed sandbox block.
type Block struct {
	Node        *syntax.Node
	Read, Write []Path
	// NetworkNone is true for `network: none` and for a block without a
	// network key; otherwise Endpoints lists what may be connected to.
	NetworkNone bool
	Endpoints   []endpoint
	Subprocess  bool
}

// Ports are the ports of the ":port" entries, in order, without
// duplicates.
func (b *Block) Ports() []uint16 {
	var out []uint16
	seen := map[uint16]bool{}
	for _, e := range b.Endpoints {
		if e.Host == "" && !seen[e.Port] {
			seen[e.Port] = true
			out = append(out, e.Port)
		}
	}
	return out
}

// Hosts are the entries that name a host.
func (b *Block) Hosts() []endpoint {
	var out []endpoint
	for _, e := range b.Endpoints {
		if e.Host != "" {
			out = append(out, e)
		}
	}
	return out
}

// Problem is something wrong with a block: the value it is about and what
// is wrong, with the fix.
type Problem struct {
	Node *syntax.Node
	Msg  string
}

func (p Problem) Error() string {
	if p.Node != nil && p.Node.Pos.IsValid() {
		return fmt.Sprintf("%d:%d: %s", p.Node.Pos.Line, p.Node.Pos.Col, p.Msg)
	}
	return p.Msg
}

type reader struct {
	ps []Problem
}

func (r *reader) add(n *syntax.Node, format string, args ...any) {
	r.ps = append(r.ps, Problem{Node: n, Msg: "sandbox: " + fmt.Sprintf(format, args...)})
}

// mapping checks that n is a mapping of the given keys, each at most once.
func (r *reader) mapping(n *syntax.Node, what string, keys ...string) bool {
	if n.Kind != syntax.MapNode {
		r.add(n, "%s must be a mapping (%s), found %s", what, strings.Join(keys, ", "), n.Kind)
		return false
	}
	seen := map[string]bool{}
	ok := true
	for _, f := range n.Fields {
		known := false
		for _, k := range keys {
			known = known || k == f.Key
		}
		switch {
		case !known:
			r.add(keyNode(f), "%s: unknown key %q (known: %s): a misspelt key must not silently leave something unconfined", what, f.Key, strings.Join(keys, ", "))
			ok = false
		case seen[f.Key]:
			r.add(keyNode(f), "%s: %q is given twice", what, f.Key)
			ok = false
		}
		seen[f.Key] = true
	}
	return ok
}

// keyNode is a node at a field's key, for messages about the key.
func keyNode(f *syntax.Field) *syntax.Node {
	if f.KeyPos.IsValid() {
		return &syntax.Node{Kind: syntax.StringNode, Str: f.Key, Pos: f.KeyPos}
	}
	return f.Value
}

// Parse reads a sandbox block (the value of the metadata field Key; n must
// not be nil). Every problem is reported; the block is usable only when
// there is none.
func Parse(n *syntax.Node) (*Block, []Problem) {
	r := &reader{}
	b := &Block{Node: n, NetworkNone: true}
	if n.Kind == syntax.NullNode {
		r.add(n, "the block is empty: write `sandbox: {}` for the defaults alone (read the tool's own files and the system's, write nothing, no network, no subprocess), or remove it")
		return b, r.ps
	}
	if !r.mapping(n, "the block", "filesystem", "network", "subprocess") {
		if n.Kind != syntax.MapNode {
			return b, r.ps
		}
	}
	if fs := n.Get("filesystem"); fs != nil {
		if r.mapping(fs, "filesystem", "read", "write") || fs.Kind == syntax.MapNode {
			b.Read = r.paths(fs.Get("read"), "filesystem.read")
			b.Write = r.paths(fs.Get("write"), "filesystem.write")
			for _, w := range b.Write {
				if msg := verifiedUnder(w); msg != "" {
					r.add(w.Node, "filesystem.write: %q %s", w.Text, msg)
				}
			}
		}
	}
	if net := n.Get("network"); net != nil {
		r.network(b, net)
	}
	if sp := n.Get("subprocess"); sp != nil {
		if sp.Kind != syntax.BoolNode {
			r.add(sp, "subprocess must be true or false, found %s", describe(sp))
		} else {
			b.Subprocess = sp.Bool
		}
	}
	return b, r.ps
}

func describe(n *syntax.Node) string {
	if n.Kind == syntax.StringNode {
		return strconv.Quote(n.Str)
	}
	return n.Kind.String()
}

func (r *reader) paths(n *syntax.Node, what string) []Path {
	if n == nil {
		return nil
	}
	if n.Kind != syntax.ListNode {
		r.add(n, "%s must be a list of paths, found %s", what, describe(n))
		return nil
	}
	var out []Path
	for _, it := range n.Items {
		if it.Kind != syntax.StringNode {
			r.add(it, "%s: a path must be a string, found %s", what, describe(it))
			continue
		}
		p, msg := parsePath(it.Str)
		if msg != "" {
			r.add(it, "%s: %q %s", what, it.Str, msg)
			continue
		}
		p.Node = it
		out = append(out, p)
	}
	return out
}

// parsePath reads one path entry. The message says what is wrong with it
// ("" when nothing is).
func parsePath(s string) (Path, string) {
	p := Path{Text: s}
	if s == "" {
		return p, "is empty"
	}
	if strings.ContainsRune(s, 0) {
		return p, "holds a NUL byte"
	}
	if strings.Contains(s, `\`) {
		return p, `holds a backslash: write paths with "/"`
	}
	rest := s
	switch {
	case strings.HasPrefix(s, "{"):
		end := strings.IndexByte(s, '}')
		if end < 0 {
			return p, "starts with { but has no closing }"
		}
		word := s[1:end]
		p.Var = placeholder(word)
		if p.Var == "" {
			return p, fmt.Sprintf("starts with the unknown placeholder {%s} (known: %s)", word, placeholderWords())
		}
		rest = s[end+1:]
		if rest != "" && rest[0] != '/' {
			return p, fmt.Sprintf("continues after {%s} without a /", word)
		}
	case strings.HasPrefix(s, "~"):
		return p, "starts with ~: write {home}"
	case !strings.HasPrefix(s, "/"):
		return p, fmt.Sprintf("is relative: start it with a placeholder (%s) or /", placeholderWords())
	}
	if strings.ContainsAny(rest, "{}") {
		return p, "holds a brace after its start: only one placeholder, at the start, is allowed"
	}
	var parts []string
	for _, seg := range strings.Split(rest, "/") {
		switch seg {
		case "", ".":
			continue
		case "..":
			return p, `climbs with "..": name the folder itself`
		}
		parts = append(parts, seg)
	}
	p.Rel = path.Join(parts...)
	if p.Var == "" && p.Rel == "" {
		return p, "is the root folder /: name the folders the tool needs"
	}
	return p, ""
}

func (r *reader) network(b *Block, n *syntax.Node) {
	switch n.Kind {
	case syntax.StringNode:
		if n.Str != "none" {
			r.add(n, "network must be none or a list of \"host:port\" and \":port\" entries, found %q", n.Str)
		}
		return
	case syntax.ListNode:
	default:
		r.add(n, "network must be none or a list of \"host:port\" and \":port\" entries, found %s", describe(n))
		return
	}
	if len(n.Items) == 0 {
		r.add(n, "network is an empty list: write network: none")
		return
	}
	var eps []endpoint
	for _, it := range n.Items {
		if it.Kind != syntax.StringNode {
			r.add(it, "network: an entry must be a string \"host:port\" or \":port\", found %s", describe(it))
			continue
		}
		e, msg := parseEndpoint(it.Str)
		if msg != "" {
			r.add(it, "network: %q %s", it.Str, msg)
			continue
		}
		e.Node = it
		eps = append(eps, e)
	}
	if len(eps) == len(n.Items) {
		b.NetworkNone, b.Endpoints = false, eps
	}
}

// parseEndpoint reads one network entry: ":port", "host:port" or
// "[ipv6]:port".
func parseEndpoint(s string) (endpoint, string) {
	e := endpoint{Text: s}
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return e, "has no port: write \":port\" (any host) or \"host:port\""
	}
	host, port := s[:i], s[i+1:]
	if strings.HasPrefix(host, "[") {
		if !strings.HasSuffix(host, "]") || len(host) < 3 || !strings.Contains(host, ":") {
			return e, "has a malformed [IPv6] host"
		}
	} else if strings.Contains(host, ":") {
		return e, "has an IPv6 host without brackets: write \"[::1]:port\""
	}
	for _, c := range host {
		if c <= ' ' || c == '/' || c == '@' || c == '*' || c > 0x7e {
			return e, fmt.Sprintf("has %q in its host: name one host", c)
		}
	}
	n, err := strconv.ParseUint(port, 10, 16)
	if err != nil || n == 0 || port[0] == '+' || (len(port) > 1 && port[0] == '0') {
		return e, "has a port that is not a number from 1 to 65535"
	}
	e.Host, e.Port = host, uint16(n)
	return e, ""
}

// verifiedUnder says why a write path is or holds a folder of verified
// files ("" when it is not, as far as its text tells): a tool that may
// write there could change what rye verified, or the keys it trusts. The
// executor checks the real folders too, once the placeholders have values.
func verifiedUnder(p Path) string {
	aiFolder := p.Rel == "" || p.Rel == ".ai" || strings.HasPrefix(p.Rel, ".ai/")
	switch {
	case p.Var == "tool_dir":
		return "is the run's copy of the tool's verified files: write to {run_dir}"
	case p.Var == "project_path" && aiFolder:
		return "is or holds the project's .ai/ folder (its items and trusted keys): name a folder outside .ai/"
	case p.Var == "user_space" && aiFolder, p.Var == "home" && aiFolder:
		return "is or holds your user space's .ai/ folder (items and trusted keys every project uses): name a folder outside it"
	}
	return ""
}

// Expand returns the folder the path starts from (the placeholder's value,
// from value, or "/" for an absolute path) and its part below it. A
// placeholder without a value (no user space) is an error.
func (p Path) Expand(value func(name string) string) (base, rel string, err error) {
	if p.Var == "" {
		return "/", p.Rel, nil
	}
	base = value(p.Var)
	if base == "" || !strings.HasPrefix(base, "/") {
		return "", "", fmt.Errorf("sandbox: %q: {%s} has no value in this run", p.Text, p.Var)
	}
	return base, p.Rel, nil
}
