package item

import "testing"

func TestSemverOrder(t *testing.T) {
	// Each version is lower than the next (the SemVer 2.0.0 example order).
	order := []string{"1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2",
		"1.0.0-beta.11", "1.0.0-rc.1", "1.0.0", "1.0.1", "1.1.0", "2.0.0", "10.0.0"}
	for i := 0; i+1 < len(order); i++ {
		a, err1 := ParseSemver(order[i])
		b, err2 := ParseSemver(order[i+1])
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if a.Compare(b) != -1 || b.Compare(a) != 1 || a.Compare(a) != 0 {
			t.Errorf("%s < %s not seen", order[i], order[i+1])
		}
	}
	a, _ := ParseSemver("1.2.3+build.7")
	b, _ := ParseSemver("1.2.3")
	if a.Compare(b) != 0 {
		t.Error("build metadata must not count")
	}
	for _, bad := range []string{"1.0", "v1.0.0", "01.0.0", "1.0.0-", "1.0.0-01", ""} {
		if _, err := ParseSemver(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
