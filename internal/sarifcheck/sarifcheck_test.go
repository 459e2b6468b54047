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
