package sign

import (
	"strings"
	"testing"
	"time"
)

func TestSourceDateEpoch(t *testing.T) {
	env := func(v string) func(string) string {
		return func(name string) string {
			if name != "SOURCE_DATE_EPOCH" {
				t.Fatalf("read %s", name)
			}
			return v
		}
	}
	if got, set, err := SourceDateEpoch(env("1771653400")); err != nil || !set || !got.Equal(time.Date(2026, 2, 21, 5, 56, 40, 0, time.UTC)) || got.Location() != time.UTC {
		t.Errorf("valid: %v %v %v", got, set, err)
	}
	if got, set, err := SourceDateEpoch(env("0")); err != nil || !set || got.Unix() != 0 {
		t.Errorf("zero: %v %v %v", got, set, err)
	}
	if got, set, err := SourceDateEpoch(env("")); err != nil || set || !got.IsZero() {
		t.Errorf("unset: %v %v %v", got, set, err)
	}
	for _, bad := range []string{"soon", "-1", "1.5", " 1", "99999999999999999999"} {
		if _, set, err := SourceDateEpoch(env(bad)); err == nil || !set || !strings.Contains(err.Error(), "is not a number of seconds since 1970") {
			t.Errorf("%q: %v %v", bad, set, err)
		}
	}
}
