package testscripts

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/spf13/cobra"

	"github.com/ryekit/rye/cmd/rye/cli"
	"github.com/ryekit/rye/internal/jsonschema"
	"github.com/ryekit/rye/item"
	"github.com/ryekit/rye/verify"
)

// schemaDir holds the JSON Schema of every verb's JSON output.
const schemaDir = "../docs/json"

// jsonVerbs names the schema of each verb's --json (or --format json)
// document. A verb that prints no JSON is in textVerbs instead; a new verb
// must be put in one of them (TestEveryVerbHasASchema).
var jsonVerbs = map[string][]string{
	"verify":            {"verify"},
	"check":             {"check"},
	"lint":              {"lint"},
	"load":              {"load", "load-destination"},
	"search":            {"search"},
	"sign":              {"sign"},
	"execute tool":      {"execute"},
	"execute directive": {"execute"},
	"execute knowledge": {"execute"},
	"thread":            {"execute"},
	"lock":              {"lock"},
	"keys generate":     {"keys-generate"},
	"keys show":         {"keys-show"},
	"trust add":         {"trust-add"},
	"trust self":        {"trust-add"},
	"trust list":        {"trust-list"},
	"bundle create":     {"bundle-create"},
	"bundle verify":     {"bundle-verify"},
	"bundle install":    {"bundle-install"},
	"bundle list":       {"bundle-list"},
	"version":           {"version"},
	"version verify":    {"version-verify"},
}

// textVerbs print no JSON document: text for people or another program
// (a PEM key, an allowed_signers file, a shell script, the MCP protocol),
// or nothing.
var textVerbs = []string{"init", "new", "keys export", "trust remove", "trust export", "mcp",
	"completion"}

// jsonValid SCHEMA [FILE] validates FILE (default: the last command's
// stdout) against docs/json/SCHEMA.schema.json, with rye's own JSON Schema
// validator.
func jsonValid(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: jsonvalid SCHEMA [FILE]")
	}
	sch, err := compileSchema(filepath.Join(ts.Getenv("REPO"), "docs", "json", args[0]+".schema.json"))
	ts.Check(err)
	data := ts.ReadFile("stdout")
	if len(args) == 2 {
		data = ts.ReadFile(args[1])
	}
	v, err := decodeJSON([]byte(data))
	if err != nil {
		ts.Fatalf("not one JSON document: %v\n%s", err, data)
	}
	if err := sch.Validate(v); err != nil {
		ts.Fatalf("the output does not validate against %s.schema.json: %v", args[0], err)
	}
}

func compileSchema(path string) (*jsonschema.Schema, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	doc, err := decodeJSON(data)
	if err != nil {
		return nil, err
	}
	d, err := jsonschema.Compile("https://github.com/ryekit/rye/blob/main/docs/json/"+filepath.Base(path), doc, jsonschema.Draft2020)
	if err != nil {
		return nil, err
	}
	return d.Schema(), nil
}

// decodeJSON is exactly one JSON value, numbers kept as json.Number.
func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, &json.SyntaxError{Offset: dec.InputOffset()}
	}
	return v, nil
}

// TestEveryVerbHasASchema keeps the JSON schemas complete and used: every
// verb of rye is either in jsonVerbs or in textVerbs; every schema named
// there exists in docs/json, compiles, names itself in its $id, and is
// validated against a real output by some testscript (jsonvalid); every
// schema file is named by a verb.
func TestEveryVerbHasASchema(t *testing.T) {
	for _, verb := range leafVerbs(cli.Command()) {
		_, isJSON := jsonVerbs[verb]
		if isJSON == slices.Contains(textVerbs, verb) {
			t.Errorf("rye %s: put it in jsonVerbs (with its schema) or in textVerbs", verb)
		}
	}
	scripts, _ := filepath.Glob("*.txtar")
	var all strings.Builder
	for _, s := range scripts {
		data, _ := os.ReadFile(s)
		all.Write(data)
	}
	named := map[string]bool{}
	for _, schemas := range jsonVerbs {
		for _, s := range schemas {
			named[s] = true
		}
	}
	files, _ := filepath.Glob(filepath.Join(schemaDir, "*.schema.json"))
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".schema.json")
		if !named[name] {
			t.Errorf("%s: no verb names it in jsonVerbs", f)
		}
	}
	for name := range named {
		path := filepath.Join(schemaDir, name+".schema.json")
		if _, err := compileSchema(path); err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		data, _ := os.ReadFile(path)
		var head struct {
			ID string `json:"$id"`
		}
		json.Unmarshal(data, &head)
		if !strings.HasSuffix(head.ID, "/docs/json/"+name+".schema.json") {
			t.Errorf("%s: $id %q does not name the file", path, head.ID)
		}
		if !regexp.MustCompile(`(?m)^(\[[^]]*\] )*jsonvalid ` + regexp.QuoteMeta(name) + `( |$)`).MatchString(all.String()) {
			t.Errorf("%s: no testscript validates an output against it (jsonvalid %s)", path, name)
		}
	}
}

// leafVerbs are the commands of rye that run something, as "verb sub".
func leafVerbs(root *cobra.Command) []string {
	var out []string
	var walk func(c *cobra.Command, prefix string)
	walk = func(c *cobra.Command, prefix string) {
		for _, sub := range c.Commands() {
			if sub.Hidden || sub.Name() == "help" {
				continue
			}
			name := strings.TrimSpace(prefix + " " + sub.Name())
			if sub.HasSubCommands() && sub.Name() != "version" {
				walk(sub, name)
				continue
			}
			out = append(out, name)
			if sub.HasSubCommands() {
				walk(sub, name)
			}
		}
	}
	walk(root, "")
	sort.Strings(out)
	return out
}

// TestSchemaEnumsFollowTheCode keeps the schemas' lists of verdicts and
// kinds those of the code: a verdict or kind added later must be added to
// the schemas too.
func TestSchemaEnumsFollowTheCode(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(schemaDir, "verify.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Defs struct {
			Verdict struct {
				Properties struct {
					Kind    struct{ Enum []string } `json:"kind"`
					Verdict struct{ Enum []string } `json:"verdict"`
				} `json:"properties"`
			} `json:"verdict"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	var verdicts, kinds []string
	for _, v := range verify.Verdicts {
		verdicts = append(verdicts, string(v))
	}
	for _, k := range append(item.RyeOSKinds, item.StreamingTool) {
		kinds = append(kinds, string(k))
	}
	sort.Strings(kinds)
	got := doc.Defs.Verdict.Properties
	if !slices.Equal(got.Verdict.Enum, verdicts) {
		t.Errorf("verify.schema.json verdicts %q, the code's %q", got.Verdict.Enum, verdicts)
	}
	if gk := slices.Sorted(slices.Values(got.Kind.Enum)); !slices.Equal(gk, kinds) {
		t.Errorf("verify.schema.json kinds %q, the code's %q", gk, kinds)
	}
}
