package sarifcheck

import "testing"

func TestValidate(t *testing.T) {
	if err := Validate([]byte(`{"version":"2.1.0","runs":[]}`)); err != nil {
		t.Errorf("minimal log: %v", err)
	}
	bad := []string{
		`{"version":"2.0.0","runs":[]}`,
		`{"runs":[]}`,
		`{"version":"2.1.0","runs":[{"tool":{"driver":{}}}]}`,
		`{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x"}},"results":[{"message":{"text":"m"},"locations":[{"physicalLocation":{"region":{"endLine":3}}}]}]}]}`,
		`not json`,
	}
	for _, b := range bad {
		if Validate([]byte(b)) == nil {
			t.Errorf("accepted %s", b)
		}
	}
}

func TestGitHub(t *testing.T) {
	good := `{"runs":[{"tool":{"driver":{"rules":[{"id":"a","fullDescription":{"text":"A."},"helpUri":"https://x"}]}},
		"originalUriBaseIds":{"%SRCROOT%":{"uri":"file:///repo/"}},
		"results":[{"ruleId":"a","locations":[{"physicalLocation":{"artifactLocation":{"uri":"sub/.ai/x.py","uriBaseId":"%SRCROOT%"}}}]},
		           {"ruleId":"a","locations":[{"physicalLocation":{"artifactLocation":{"uri":"file:///home/u/.ai/y.py"}}}]}]}]}`
	if err := GitHub([]byte(good)); err != nil {
		t.Errorf("good log: %v", err)
	}
	bad := map[string]string{
		"no fullDescription": `{"runs":[{"tool":{"driver":{"rules":[{"id":"a","helpUri":"https://x"}]}}}]}`,
		"no help":            `{"runs":[{"tool":{"driver":{"rules":[{"id":"a","fullDescription":{"text":"A."}}]}}}]}`,
		"no base":            `{"runs":[{"tool":{"driver":{}},"results":[{"ruleId":"a","locations":[{"physicalLocation":{"artifactLocation":{"uri":"x.py"}}}]}]}]}`,
		"unknown base":       `{"runs":[{"tool":{"driver":{}},"results":[{"ruleId":"a","locations":[{"physicalLocation":{"artifactLocation":{"uri":"x.py","uriBaseId":"B"}}}]}]}]}`,
		"relative base":      `{"runs":[{"tool":{"driver":{}},"originalUriBaseIds":{"B":{"uri":"repo/"}}}]}`,
		"no location":        `{"runs":[{"tool":{"driver":{}},"results":[{"ruleId":"a"}]}]}`,
	}
	for name, b := range bad {
		if GitHub([]byte(b)) == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
