package sandbox

import (
	"strings"
	"testing"

	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/item/syntax"
)

// block reads the sandbox block of a YAML tool written around body.
func block(t *testing.T, body string) *syntax.Node {
	t.Helper()
	src := "version: \"1.0.0\"\ntool_type: shell\nexecutor_id: x\ncategory: c\ndescription: d\n" + body
	md, err := item.ReadMetadata(item.Tool, "t.yaml", []byte(src))
	if err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	n := md.Get(Key)
	if n == nil {
		t.Fatalf("no sandbox block in %q", body)
	}
	return n
}

func TestParseValid(t *testing.T) {
	b, ps := Parse(block(t, `sandbox:
  filesystem:
    read: ["{project}/data", "/opt/dataset", "{home}/.config/tool/"]
    write: ["{run_dir}", "{tmp}/tool"]
  network: [":443", "example.com:80", "[::1]:8080"]
  subprocess: true
`))
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	want := []Path{{Text: "{project}/data", Var: "project_path", Rel: "data"}, {Text: "/opt/dataset", Rel: "opt/dataset"}, {Text: "{home}/.config/tool/", Var: "home", Rel: ".config/tool"}}
	for i, p := range b.Read {
		if p.Text != want[i].Text || p.Var != want[i].Var || p.Rel != want[i].Rel {
			t.Errorf("read[%d] = %+v, want %+v", i, p, want[i])
		}
	}
	if len(b.Write) != 2 || b.Write[0].Var != "run_dir" || b.Write[0].Rel != "" || b.Write[1].Rel != "tool" {
		t.Errorf("write = %+v", b.Write)
	}
	if b.NetworkNone || len(b.Ports()) != 1 || b.Ports()[0] != 443 || len(b.Hosts()) != 2 || !b.Subprocess {
		t.Errorf("network/subprocess: %+v", b)
	}
}

// What a block leaves out is denied.
func TestParseDefaultsDeny(t *testing.T) {
	b, ps := Parse(block(t, "sandbox: {}\n"))
	if len(ps) > 0 || !b.NetworkNone || b.Subprocess || len(b.Read)+len(b.Write) != 0 {
		t.Fatalf("%+v %v", b, ps)
	}
	b, ps = Parse(block(t, "sandbox:\n  network: none\n"))
	if len(ps) > 0 || !b.NetworkNone {
		t.Fatalf("%+v %v", b, ps)
	}
}

func TestParseProblems(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{"sandbox:\n", "the block is empty"},
		{"sandbox: none\n", "must be a mapping"},
		{"sandbox:\n  netwrok: none\n", `unknown key "netwrok"`},
		{"sandbox:\n  filesystem:\n    reads: []\n", `unknown key "reads"`},
		{"sandbox:\n  filesystem: [a]\n", "filesystem must be a mapping"},
		{"sandbox:\n  filesystem:\n    read: \"{project}\"\n", "must be a list of paths"},
		{"sandbox:\n  filesystem:\n    read: [1]\n", "a path must be a string"},
		{"sandbox:\n  filesystem:\n    read: [data]\n", "is relative"},
		{"sandbox:\n  filesystem:\n    read: [\"./data\"]\n", "is relative"},
		{"sandbox:\n  filesystem:\n    read: [\"~/.ssh\"]\n", "write {home}"},
		{"sandbox:\n  filesystem:\n    read: [\"{project}/../x\"]\n", `climbs with ".."`},
		{"sandbox:\n  filesystem:\n    read: [\"/etc/../root\"]\n", `climbs with ".."`},
		{"sandbox:\n  filesystem:\n    read: [\"{projects}/x\"]\n", "unknown placeholder {projects}"},
		{"sandbox:\n  filesystem:\n    read: [\"{project}x\"]\n", "without a /"},
		{"sandbox:\n  filesystem:\n    read: [\"{project}/{home}\"]\n", "only one placeholder"},
		{"sandbox:\n  filesystem:\n    read: [\"{project\"]\n", "no closing }"},
		{"sandbox:\n  filesystem:\n    read: [\"/\"]\n", "root folder"},
		{"sandbox:\n  filesystem:\n    read: [\"\"]\n", "is empty"},
		{"sandbox:\n  filesystem:\n    read: [\"C:\\\\x\"]\n", "backslash"},
		{"sandbox:\n  filesystem:\n    write: [\"{tool_dir}/out\"]\n", "copy of the tool's verified files"},
		{"sandbox:\n  filesystem:\n    write: [\"{project}\"]\n", "project's .ai/"},
		{"sandbox:\n  filesystem:\n    write: [\"{project}/.ai/trusted_keys\"]\n", "project's .ai/"},
		{"sandbox:\n  filesystem:\n    write: [\"{home}\"]\n", "user space's .ai/"},
		{"sandbox:\n  filesystem:\n    write: [\"{user_space}/.ai\"]\n", "user space's .ai/"},
		{"sandbox:\n  network: any\n", "network must be none or a list"},
		{"sandbox:\n  network: true\n", "network must be none or a list"},
		{"sandbox:\n  network: []\n", "write network: none"},
		{"sandbox:\n  network: [443]\n", "must be a string"},
		{"sandbox:\n  network: [\"443\"]\n", "has no port"},
		{"sandbox:\n  network: [\":0\"]\n", "from 1 to 65535"},
		{"sandbox:\n  network: [\":65536\"]\n", "from 1 to 65535"},
		{"sandbox:\n  network: [\":+80\"]\n", "from 1 to 65535"},
		{"sandbox:\n  network: [\":080\"]\n", "from 1 to 65535"},
		{"sandbox:\n  network: [\"::1:80\"]\n", "without brackets"},
		{"sandbox:\n  network: [\"*.example.com:443\"]\n", "name one host"},
		{"sandbox:\n  subprocess: \"no\"\n", "subprocess must be true or false"},
	} {
		_, ps := Parse(block(t, c.body))
		var msgs []string
		for _, p := range ps {
			msgs = append(msgs, p.Error())
		}
		if !strings.Contains(strings.Join(msgs, "\n"), c.want) {
			t.Errorf("%q: problems %q, want %q", c.body, msgs, c.want)
		}
	}
}

// Every form reads the block: a shell header, a Python module-level dict.
func TestParseForms(t *testing.T) {
	sh := "#!/bin/bash\n# ---\n# version: \"1.0.0\"\n# sandbox:\n#   network: [\":8080\"]\n#   subprocess: false\n# ---\necho\n"
	py := "__version__ = \"1.0.0\"\n__sandbox__ = {\"filesystem\": {\"read\": [\"{project}/data\"]}, \"network\": \"none\", \"subprocess\": False}\n"
	js := "// ---\n// version: \"1.0.0\"\n// sandbox:\n//   filesystem: {write: [\"{run_dir}\"]}\n// ---\n"
	for _, c := range []struct{ name, src string }{{"t.sh", sh}, {"t.py", py}, {"t.js", js}} {
		md, err := item.ReadMetadata(item.Tool, c.name, []byte(c.src))
		if err != nil {
			t.Fatal(err)
		}
		n := md.Get(Key)
		if n == nil {
			t.Fatalf("%s: no block", c.name)
		}
		if _, ps := Parse(n); len(ps) > 0 {
			t.Errorf("%s: %v", c.name, ps)
		}
	}
}

func TestExpand(t *testing.T) {
	p, msg := parsePath("{project}/data/x")
	if msg != "" {
		t.Fatal(msg)
	}
	base, rel, err := p.Expand(func(v string) string { return map[string]string{"project_path": "/p"}[v] })
	if err != nil || base != "/p" || rel != "data/x" {
		t.Fatalf("%q %q %v", base, rel, err)
	}
	p, _ = parsePath("{user_space}/x")
	if _, _, err := p.Expand(func(string) string { return "" }); err == nil {
		t.Fatal("a placeholder without a value expanded")
	}
	p, _ = parsePath("/opt//data/./x/")
	if base, rel, _ := p.Expand(nil); base != "/" || rel != "opt/data/x" {
		t.Fatalf("%q %q", base, rel)
	}
}

// A Python dict that gives a key twice is refused (Python keeps the last;
// a reviewer may read the first).
func TestParsePythonDuplicateKey(t *testing.T) {
	md, err := item.ReadMetadata(item.Tool, "t.py", []byte("__sandbox__ = {\"subprocess\": False, \"subprocess\": True}\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, ps := Parse(md.Get(Key))
	if len(ps) == 0 || !strings.Contains(ps[0].Error(), "given twice") {
		t.Fatalf("problems: %v", ps)
	}
}

// A Python tool names __sandbox__ somewhere rye does not read it: in a
// block, or as a string (globals()["__sandbox__"]). A comment, or a string
// that only mentions it, is not a binding.
func TestPythonElsewhere(t *testing.T) {
	for src, want := range map[string]string{
		"x = 1\n":                          "",
		"# __sandbox__ is not declared\n":  "",
		"doc = \"see __sandbox__ docs\"\n": "",
		"try:\n    __sandbox__ = {}\nexcept Exception:\n    pass\n": "line 2",
		"if True:\n    __sandbox__ = {}\n":                          "line 2",
		"\nglobals()['__sandbox__'] = {}\n":                         "line 2",
		"def f():\n    return '''\n":                                "cannot be read",
	} {
		_, got := PythonElsewhere([]byte(src))
		if want == "" && got != "" || want != "" && !strings.Contains(got, want) {
			t.Errorf("%q: %q, want %q", src, got, want)
		}
	}
}
