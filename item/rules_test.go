package item

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ryekit/rye/item/syntax"
)

func shippedExtractor(t *testing.T, k Kind) *Extractor {
	t.Helper()
	p := filepath.Join("..", "space", "system", ".ai", "tools", "rye", "core", "extractors", string(k), string(k)+"_extractor.yaml")
	src, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	x, err := ParseExtractor(src)
	if err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	return x
}

// ruleErrs renders rule errors as "field rule line:col: msg | fix".
func ruleErrs(errs []*syntax.Error) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Field+" "+e.Rule+" "+e.Pos.String()+": "+e.Msg+" | "+e.Fix)
	}
	return out
}

func checkRules(t *testing.T, k Kind, id string, name string, src []byte, want ...string) {
	t.Helper()
	md, err := ReadMetadata(k, name, src)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	got := ruleErrs(shippedExtractor(t, k).Check(md, MustID(id)))
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s as %s:\n got:\n  %s\nwant:\n  %s", name, id, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

func sample(t *testing.T, k Kind, name string) []byte {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", string(k), name))
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func TestRulesDirective(t *testing.T) {
	signed := sample(t, Directive, "signed.md")
	checkRules(t, Directive, "demo/greet", "signed.md", signed)
	checkRules(t, Directive, "other/greet", "signed.md", signed,
		`category match_path 10:15: found "demo", expected the folder path "other" | write <category>other</category> in <metadata>, or move the file`)
	checkRules(t, Directive, "demo/hello", "signed.md", signed,
		`name match_filename 7:18: found "greet", expected the file name "hello" | write name="hello" on <directive>, or rename the file`)
	checkRules(t, Directive, "ops/release/deploy_app", "full.md", sample(t, Directive, "full.md"),
		`limits.depth type 18:57: found a string ("x"), expected an integer | `)
	bad := []byte("```xml\n<directive name=\"Bad-Name\" version=\"1\">\n<metadata><category>x</category><limits turns=\"-1\"/><inputs/></metadata>\n<inputs><input type=\"string\"/></inputs>\n</directive>\n```\n")
	checkRules(t, Directive, "x/bad_name", "bad.md", bad,
		`name format 2:18: found "Bad-Name", expected snake_case (lower-case letters, digits and '_', starting with a letter) | `,
		`name match_filename 2:18: found "Bad-Name", expected the file name "bad_name" | write name="bad_name" on <directive>, or rename the file`,
		`version type 2:37: found a string ("1"), expected a semantic version string like "1.0.0" | `,
		`description required 2:1: missing required field | `,
		`author required 2:1: missing required field | `,
		`limits.turns range 3:48: found -1, expected at least 0 | `,
		`inputs[0] item_required 4:9: missing "name" | `)
}

func TestRulesKnowledgeAndTools(t *testing.T) {
	checkRules(t, Knowledge, "demo/note", "fence.md", sample(t, Knowledge, "fence.md"))
	checkRules(t, Knowledge, "note2", "frontmatter.md", sample(t, Knowledge, "frontmatter.md"))
	checkRules(t, Knowledge, "whole", "whole.yaml", sample(t, Knowledge, "whole.yaml"),
		`version type 5:10: found a number (1.0), expected a semantic version string like "1.0.0" | quote it: version: "1.0.0"`)
	checkRules(t, Knowledge, "other/whole", "whole.yaml", []byte("id: nope\ntitle: t\nentry_type: e\nversion: \"1.0.0\"\ncategory: demo\n"),
		`id match_filename 1:5: found "nope", expected the file name "whole" | write id: "whole", or rename the file`,
		`category match_path 5:11: found "demo", expected the folder path "other" | write category: "other", or move the file`)
	checkRules(t, Tool, "demo/runtime", "runtime.yaml", sample(t, Tool, "runtime.yaml"))
	noExecutor := strings.Replace(string(sample(t, Tool, "count.sh")), "# executor_id: rye/core/runtimes/shell_runtime\n", "", 1)
	checkRules(t, Tool, "demo/count", "count.sh", sample(t, Tool, "count.sh"))
	// executor_id is required and nullable: absent means null (the
	// reference's validate_field, spec 6.6), so a tool without one is a
	// valid library item. (Before the RYE OS semantics this was "missing
	// required field", which refused 64 of the reference's own tools.)
	checkRules(t, Tool, "demo/count", "count.sh", []byte(noExecutor))
	checkRules(t, Tool, "ops/deploy", "deploy.toml", sample(t, Tool, "deploy.toml"))
	checkRules(t, Tool, "lib/helper", "helper.yaml", []byte("version: 2\ntool_type: library\nexecutor_id: null\ncategory: lib\ndescription: d\n"),
		`version type 1:10: found a number (2), expected a semantic version string like "1.0.0" | quote it: version: "2.0.0"`)
	checkRules(t, Tool, "x/y", "y.yaml", []byte("version: \"1.0.0\"\ntool_type: [a]\nexecutor_id: 3\ncategory: x\ndescription: d\n"),
		`tool_type type 2:12: found a list, expected a string | `,
		`executor_id type 3:14: found a number (3), expected a string | `)
}

// TestRulesReferenceSemantics pins validate_field's meaning of required,
// nullable and empty values (spec 6.6), rule by rule.
func TestRulesReferenceSemantics(t *testing.T) {
	x, err := ParseExtractor([]byte(`validation_schema:
  fields:
    a: {required: true, type: string}
    b: {required: true, type: string, nullable: true}
    c: {required: false, type: object}
    d: {required: true, type: array}
    e: {required: true, type: array, nullable: true}
    f: {required: true, type: string, match_path: true}
    g: {required: false, type: semver}
    h: {type: array, item_type: object, item_required: [tag]}
`))
	if err != nil {
		t.Fatal(err)
	}
	check := func(src string, want ...string) {
		t.Helper()
		md, err := ReadMetadata(Tool, "x.yaml", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		got := ruleErrs(x.Check(md, MustID("x/y")))
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%q:\n got:\n  %s\nwant:\n  %s", src, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
		}
	}
	// b absent and null are both fine; c null is fine (not required);
	// e [] is fine (nullable); g "" is not checked further.
	check("a: s\nc: null\nd: [1]\ne: []\nf: x\ng: \"\"\n")
	check("a: s\nb: null\nd: [1]\nf: x\n")
	check("d: [1]\nf: x\n",
		`a required 1:1: missing required field | `)
	check("a: null\nd: []\nf: x\n",
		`a type 1:4: found null, expected a string | `,
		`d required 2:4: missing required field: found an empty list | `)
	check("a: \"\"\nd: [1]\nf: \"\"\n",
		`a required 1:4: missing required field: found an empty string | `,
		`f match_path 3:4: found "", expected the folder path "x" | write f: "x", or move the file`)
	check("a: s\nd: [1]\nf: x\nh: [{tag: cap}, {tag: \"\"}, {content: c}, {tag: null}]\n",
		`h[1] item_required 4:17: missing "tag" | `,
		`h[2] item_required 4:28: missing "tag" | `,
		`h[3] item_required 4:42: missing "tag" | `)
}

// referenceDirectiveRules is the reference's directive extractor's rule
// for permissions (spec 6.6).
const referenceDirectiveRules = `validation_schema:
  fields:
    permissions: {required: false, type: array, item_type: object, item_required: [tag]}
`

func TestRulesPermissionObjects(t *testing.T) {
	src := sample(t, Directive, "full.md")
	md, err := ReadMetadata(Directive, "full.md", src)
	if err != nil {
		t.Fatal(err)
	}
	caps := md.Get("permissions")
	if len(caps.Items) == 0 || caps.Items[0].Kind != syntax.StringNode {
		t.Fatalf("the reader's permissions are capability strings: %v", caps.Plain())
	}
	ref, err := ParseExtractor([]byte(referenceDirectiveRules))
	if err != nil {
		t.Fatal(err)
	}
	if errs := ref.Check(md, "ops/release/deploy_app"); len(errs) != 0 {
		t.Errorf("the reference's rule sees {tag, content} objects: %v", ruleErrs(errs))
	}
	view := ref.Fields(md, "ops/release/deploy_app").Get("permissions")
	first := view.Items[0]
	if first.Get("tag").String() != "cap" || first.Get("content") != caps.Items[0] || first.Pos != caps.Items[0].Pos {
		t.Errorf("object view: %v at %v", first.Plain(), first.Pos)
	}
	if md.Get("permissions").Items[0].Kind != syntax.StringNode {
		t.Error("the view changed the reader's metadata")
	}
	// rye's own rule (item_type: string) still sees the strings.
	if errs := shippedExtractor(t, Directive).Check(md, "ops/release/deploy_app"); len(errs) != 1 {
		t.Errorf("shipped rules: %v", ruleErrs(errs))
	}
}

func TestParseExtractorErrors(t *testing.T) {
	cases := map[string]string{
		"validation_schema:\n  fields:\n    name: {requird: true}\n":      `unknown rule key "requird"`,
		"validation_schema:\n  fields:\n    name: {type: strnig}\n":       `unknown rule type "strnig"`,
		"validation_schema:\n  fields:\n    name: {format: camel}\n":      `unknown format "camel"`,
		"validation_schema:\n  fields:\n    name: true\n":                 `a field rule must be a mapping`,
		"validaton_schema:\n  fields: {}\n":                               `unknown key in extractor file`,
		"extensions: [.md]\n":                                             `no validation_schema`,
		"search_fields: {title: high}\nvalidation_schema: {fields: {}}\n": `a search weight must be a number`,
	}
	for src, want := range cases {
		_, err := ParseExtractor([]byte(src))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", src, err, want)
		}
	}
	x := shippedExtractor(t, Directive)
	if w := x.SearchWeights(); w["title"] != 3 || w["content"] != 1 {
		t.Errorf("weights %v", w)
	}
}

func TestValidate(t *testing.T) {
	x := shippedExtractor(t, Tool)
	if errs := Validate(x, Tool, "demo/runtime", "runtime.yaml", sample(t, Tool, "runtime.yaml")); len(errs) != 0 {
		t.Errorf("valid item: %v", errs)
	}
	errs := Validate(x, Tool, "demo/x", "x.py", []byte("__version__ = get()\n__tool_type__ = 't'\n__executor_id__ = None\n__category__ = 'demo'\n__tool_description__ = 'd'\n"))
	if len(errs) != 1 || errs[0].Error() != "x.py:1:15: __version__: not a literal: the value is not visible without running the file (found a call to get at 1:15)" {
		t.Errorf("non-literal: %v", errs)
	}
	// A CONFIG_SCHEMA that is not a literal is, for the reference, no
	// schema: signing does not refuse it (lint reports it).
	if errs := Validate(x, Tool, "demo/x", "x.py", []byte("__version__ = '1.0.0'\n__tool_type__ = 't'\n__category__ = 'demo'\n__tool_description__ = 'd'\nCONFIG_SCHEMA = build()\n")); len(errs) != 0 {
		t.Errorf("non-literal schema: %v", errs)
	}
	// Nor an unreadable nullable field: absent is null.
	if errs := Validate(x, Tool, "demo/x", "x.py", []byte("__version__ = '1.0.0'\n__tool_type__ = 't'\n__category__ = 'demo'\n__tool_description__ = 'd'\n__executor_id__ = pick()\n")); len(errs) != 0 {
		t.Errorf("non-literal executor: %v", errs)
	}
	// Without rules every problem counts.
	if errs := Validate(nil, Tool, "demo/x", "x.py", []byte("CONFIG_SCHEMA = build()\n")); len(errs) != 1 {
		t.Errorf("no rules: %v", errs)
	}
	errs = Validate(x, Tool, "demo/x", "x.toml", []byte("a = \n"))
	if len(errs) != 1 || errs[0].Path != "x.toml" || !strings.Contains(errs[0].Msg, "invalid TOML") {
		t.Errorf("syntax: %v", errs)
	}
}
