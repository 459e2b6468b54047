// Package sarifcheck validates SARIF logs against the official SARIF
// 2.1.0 JSON schema, for the tests of rye's SARIF output. The schema is a
// copy of the OASIS file (oasis-tcs/sarif-spec, Schemata/).
package sarifcheck

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

//go:embed sarif-schema-2.1.0.json
var schemaText []byte

var compiled = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaText))
	if err != nil {
		return nil, err
	}
	// The published schema nests region's anyOf ("a region has a
	// startLine, a charOffset or a byteOffset") under "properties", which
	// no draft allows; put it where it was meant to be, so that the rule is
	// enforced instead of breaking the compile.
	region := doc.(map[string]any)["definitions"].(map[string]any)["region"].(map[string]any)
	props := region["properties"].(map[string]any)
	if anyOf, ok := props["anyOf"]; ok {
		region["anyOf"] = anyOf
		delete(props, "anyOf")
	}
	c := jsonschema.NewCompiler()
	const url = "https://json.schemastore.org/sarif-2.1.0.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	return c.Compile(url)
})

// Validate returns an error that says what is wrong when data is not a
// valid SARIF 2.1.0 log.
func Validate(data []byte) error {
	schema, err := compiled()
	if err != nil {
		return fmt.Errorf("compiling the SARIF schema: %w", err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	return schema.Validate(inst)
}

// GitHub checks what GitHub code scanning needs beyond the schema, as its
// ingestion rules and Microsoft's SARIF Multitool (--rule-kinds Gh) check
// them: every rule has a fullDescription (shown at the top of an alert) and
// a helpUri or help text; every result has a location; every relative
// artifact URI names a uriBaseId of the run's originalUriBaseIds, each of
// which is an absolute file: folder URI ending in '/' or, for a base that
// is on no disk, has no URI.
func GitHub(data []byte) error {
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						ID              string
						FullDescription *struct{ Text string }
						Help            *struct{ Text string }
						HelpURI         string
					}
				}
			}
			OriginalURIBaseIDs map[string]struct{ URI string } `json:"originalUriBaseIds"`
			Results            []struct {
				RuleID    string
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct {
							URI       string
							URIBaseID string `json:"uriBaseId"`
						}
					}
				}
			}
		}
	}
	if err := json.Unmarshal(data, &log); err != nil {
		return fmt.Errorf("not a SARIF log: %w", err)
	}
	for i, run := range log.Runs {
		for _, r := range run.Tool.Driver.Rules {
			if r.FullDescription == nil || r.FullDescription.Text == "" {
				return fmt.Errorf("run %d: rule %s has no fullDescription", i, r.ID)
			}
			if r.HelpURI == "" && (r.Help == nil || r.Help.Text == "") {
				return fmt.Errorf("run %d: rule %s has neither help nor helpUri", i, r.ID)
			}
		}
		for name, base := range run.OriginalURIBaseIDs {
			if base.URI != "" && (!strings.HasPrefix(base.URI, "file:///") || !strings.HasSuffix(base.URI, "/")) {
				return fmt.Errorf("run %d: originalUriBaseIds %s is %q, not an absolute file: folder URI ending in /", i, name, base.URI)
			}
		}
		for j, res := range run.Results {
			if len(res.Locations) == 0 {
				return fmt.Errorf("run %d: result %d (%s) has no location", i, j, res.RuleID)
			}
			for _, loc := range res.Locations {
				al := loc.PhysicalLocation.ArtifactLocation
				u, err := url.Parse(al.URI)
				if err != nil {
					return fmt.Errorf("run %d: result %d: uri %q: %v", i, j, al.URI, err)
				}
				if u.IsAbs() {
					continue
				}
				if al.URIBaseID == "" {
					return fmt.Errorf("run %d: result %d: relative uri %q has no uriBaseId", i, j, al.URI)
				}
				if _, ok := run.OriginalURIBaseIDs[al.URIBaseID]; !ok {
					return fmt.Errorf("run %d: result %d: uriBaseId %q is not in originalUriBaseIds", i, j, al.URIBaseID)
				}
			}
		}
	}
	return nil
}
